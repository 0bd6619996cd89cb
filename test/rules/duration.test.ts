import { describe, expect, it } from 'vitest'
import { addDuration, parseDuration, scaleDuration } from '../../src/rules/duration'

const iso = (d: Date): string => d.toISOString()

describe('parseDuration', () => {
  it('reads every part of P1Y2M10DT2H30M', () => {
    expect(parseDuration('P1Y2M10DT2H30M')).toEqual({
      years: 1,
      months: 2,
      weeks: 0,
      days: 10,
      hours: 2,
      minutes: 30,
      seconds: 0,
    })
  })

  it('reads weeks, single parts and fractional seconds', () => {
    expect(parseDuration('P2W').weeks).toBe(2)
    expect(parseDuration('PT1H').hours).toBe(1)
    expect(parseDuration('P3M').months).toBe(3)
    expect(parseDuration('PT1.5S').seconds).toBe(1.5)
  })

  it.each(['P', 'PT', '1D', 'P1H', 'P1DT', 'PT1D', '', 'P-1D'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/Invalid ISO 8601 duration/)
  })

  it('scales every part', () => {
    expect(scaleDuration(parseDuration('P1M2DT3H'), 3)).toEqual({
      years: 0,
      months: 3,
      weeks: 0,
      days: 6,
      hours: 9,
      minutes: 0,
      seconds: 0,
    })
  })
})

describe('addDuration', () => {
  it('clamps to the end of a shorter month', () => {
    expect(iso(addDuration(new Date('2024-01-31T10:00:00Z'), 'P1M'))).toBe('2024-02-29T10:00:00.000Z')
    expect(iso(addDuration(new Date('2023-01-31T10:00:00Z'), 'P1M'))).toBe('2023-02-28T10:00:00.000Z')
    expect(iso(addDuration(new Date('2024-02-29T00:00:00Z'), 'P1Y'))).toBe('2025-02-28T00:00:00.000Z')
    expect(iso(addDuration(new Date('2024-10-31T00:00:00Z'), 'P3M'))).toBe('2025-01-31T00:00:00.000Z')
  })

  it('adds a mixed duration: calendar first, then clock time', () => {
    expect(iso(addDuration(new Date('2024-01-15T00:00:00Z'), 'P1Y2M10DT2H30M'))).toBe('2025-03-25T02:30:00.000Z')
    expect(iso(addDuration(new Date('2024-02-20T08:00:00Z'), 'P2W'))).toBe('2024-03-05T08:00:00.000Z')
    expect(iso(addDuration(new Date('2024-02-20T08:00:00Z'), 'PT1H'))).toBe('2024-02-20T09:00:00.000Z')
  })

  it('keeps the local wall-clock time across a DST change for calendar days (Europe/Warsaw)', () => {
    // 2024-03-30 12:00 in Warsaw is UTC+1; the next day is UTC+2.
    const start = new Date('2024-03-30T11:00:00Z')
    expect(iso(addDuration(start, 'P1D', 'Europe/Warsaw'))).toBe('2024-03-31T10:00:00.000Z')
    expect(iso(addDuration(start, 'PT24H', 'Europe/Warsaw'))).toBe('2024-03-31T11:00:00.000Z')
    // In UTC a day is always 24 hours.
    expect(iso(addDuration(start, 'P1D'))).toBe('2024-03-31T11:00:00.000Z')
  })

  it('clamps months by the local calendar date, not the UTC one', () => {
    // 2024-01-31 00:30 in Warsaw is 2024-01-30T23:30Z: the local day is the 31st.
    expect(iso(addDuration(new Date('2024-01-30T23:30:00Z'), 'P1M', 'Europe/Warsaw'))).toBe('2024-02-28T23:30:00.000Z')
  })

  it('moves a wall time that falls in the spring gap forward', () => {
    // 2024-03-30 02:30 Warsaw + P1D = 2024-03-31 02:30, which does not exist: 03:30 (UTC+2).
    expect(iso(addDuration(new Date('2024-03-30T01:30:00Z'), 'P1D', 'Europe/Warsaw'))).toBe('2024-03-31T01:30:00.000Z')
  })

  it('takes the earlier instant of an autumn fold', () => {
    // 2024-10-26 02:30 Warsaw (UTC+2) + P1D = 2024-10-27 02:30, which happens twice: the first is UTC+2.
    expect(iso(addDuration(new Date('2024-10-26T00:30:00Z'), 'P1D', 'Europe/Warsaw'))).toBe('2024-10-27T00:30:00.000Z')
  })
})
