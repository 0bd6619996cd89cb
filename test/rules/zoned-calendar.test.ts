import { describe, expect, it } from 'vitest'
import { parseDuration } from '../../src/rules/duration'
import {
  addMonthsClamped,
  localDate,
  parseInstant,
  periodBounds,
  periodLastDay,
  startOfDay,
} from '../../src/rules/zoned-calendar'

describe('zoned calendar', () => {
  it('local dates and midnights in a zone, across DST', () => {
    expect(localDate(new Date('2025-03-30T22:30:00Z'), 'Europe/Warsaw')).toEqual({ year: 2025, month: 3, day: 31 })
    expect(startOfDay({ year: 2025, month: 3, day: 31 }, 'Europe/Warsaw').toISOString()).toBe(
      '2025-03-30T22:00:00.000Z',
    )
    expect(startOfDay({ year: 2025, month: 3, day: 30 }, 'Europe/Warsaw').toISOString()).toBe(
      '2025-03-29T23:00:00.000Z',
    )
    // São Paulo skipped midnight on 4 Nov 2018 (clocks went from 00:00 to 01:00): the day starts at 01:00.
    expect(startOfDay({ year: 2018, month: 11, day: 4 }, 'America/Sao_Paulo').toISOString()).toBe(
      '2018-11-04T03:00:00.000Z',
    )
  })

  it('month arithmetic clamps, periods are calendar periods', () => {
    expect(addMonthsClamped({ year: 2025, month: 1, day: 31 }, 1)).toEqual({ year: 2025, month: 2, day: 28 })
    expect(addMonthsClamped({ year: 2025, month: 11, day: 30 }, 3)).toEqual({ year: 2026, month: 2, day: 28 })
    expect(periodLastDay({ year: 2025, month: 8, day: 10 }, 'HALF_YEAR')).toEqual({ year: 2025, month: 12, day: 31 })
    const q = periodBounds(new Date('2025-05-15T00:00:00Z'), 'QUARTER', 'UTC')
    expect([q.start.toISOString(), q.end.toISOString()]).toEqual([
      '2025-04-01T00:00:00.000Z',
      '2025-07-01T00:00:00.000Z',
    ])
  })

  it('parses ISO 8601 durations', () => {
    // One parser (rules/duration) serves loyalty and validity: weeks stay weeks, clock parts stay parts.
    const zero = { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0 }
    expect(parseDuration('P1Y2M3W4D')).toEqual({ ...zero, years: 1, months: 2, weeks: 3, days: 4 })
    expect(parseDuration('PT1H30M')).toEqual({ ...zero, hours: 1, minutes: 30 })
    expect(() => parseDuration('P')).toThrow(RangeError)
    expect(() => parseDuration('P1DT')).toThrow(RangeError)
    expect(() => parseDuration('3 months')).toThrow(RangeError)
  })
})

describe('parseInstant', () => {
  it('reads ISO date-times as Date.parse does, and refuses impossible days and other forms', () => {
    for (const ok of ['2026-02-28T23:59:59Z', '2024-02-29T00:00:00.000Z', '2026-04-30', '2026-12-31T10:00:00+02:00']) {
      expect(parseInstant(ok)).toBe(Date.parse(ok))
    }
    for (const bad of [
      '2026-02-29T00:00:00Z',
      '2026-02-30',
      '2026-04-31T00:00:00Z',
      '2026-13-01',
      '2026-00-10',
      'soon',
      'March 2, 2026',
      '',
    ]) {
      expect(parseInstant(bad), bad).toBeNaN()
    }
  })
})
