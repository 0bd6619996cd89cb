import { describe, expect, it } from 'vitest'
import { effectiveExpirationRules, pointsExpiryDate } from '../../src/rules/points-expiry'

const UTC = 'UTC'
const at = (iso: string) => new Date(iso)
const iso = (d: Date | null) => (d === null ? null : d.toISOString())

describe('pointsExpiryDate: the worked example', () => {
  it('1 month: earned 25 Jan, usable until the end of 25 Feb, expires 26 Feb 00:00', () => {
    expect(iso(pointsExpiryDate(at('2025-01-25T15:30:00Z'), { period_type: 'MONTH', period_value: 1 }, UTC))).toBe(
      '2025-02-26T00:00:00.000Z',
    )
  })

  it('0 months: earned 1 Jan, expires 2 Jan 00:00', () => {
    expect(iso(pointsExpiryDate(at('2025-01-01T08:00:00Z'), { period_type: 'MONTH', period_value: 0 }, UTC))).toBe(
      '2025-01-02T00:00:00.000Z',
    )
  })

  it('31 Jan + 1 month: clamped to 28 Feb, expires 1 Mar 00:00', () => {
    expect(iso(pointsExpiryDate(at('2025-01-31T10:00:00Z'), { period_type: 'MONTH', period_value: 1 }, UTC))).toBe(
      '2025-03-01T00:00:00.000Z',
    )
  })

  it('31 Jan + 1 month in a leap year: clamped to 29 Feb', () => {
    expect(iso(pointsExpiryDate(at('2024-01-31T10:00:00Z'), { period_type: 'MONTH', period_value: 1 }, UTC))).toBe(
      '2024-03-01T00:00:00.000Z',
    )
    expect(iso(pointsExpiryDate(at('2024-01-29T10:00:00Z'), { period_type: 'MONTH', period_value: 1 }, UTC))).toBe(
      '2024-03-01T00:00:00.000Z',
    )
  })

  it('1 month rounded to the end of the month: earned in January, usable until the end of 28 Feb', () => {
    const rules = { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' } as const
    for (const day of ['2025-01-01T00:00:00Z', '2025-01-15T12:00:00Z', '2025-01-31T23:59:59Z']) {
      expect(iso(pointsExpiryDate(at(day), rules, UTC))).toBe('2025-03-01T00:00:00.000Z')
    }
  })

  it('a transfer on 25 Jan with 1-month expiry: the points expire on 25 Feb (usable through that day)', () => {
    expect(iso(pointsExpiryDate(at('2025-01-25T00:00:00Z'), { period_type: 'MONTH', period_value: 1 }, UTC))).toBe(
      '2025-02-26T00:00:00.000Z',
    )
  })

  it('nightly: an expiration date of 2025-12-31 takes effect at 2026-01-01 00:00', () => {
    const rules = { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' } as const
    expect(iso(pointsExpiryDate(at('2025-11-30T12:00:00Z'), rules, UTC))).toBe('2026-01-01T00:00:00.000Z')
    expect(iso(pointsExpiryDate(at('2025-12-31T12:00:00Z'), { period_type: 'MONTH', period_value: 0 }, UTC))).toBe(
      '2026-01-01T00:00:00.000Z',
    )
  })
})

describe('pointsExpiryDate: rounding types', () => {
  const earned = at('2025-02-10T12:00:00Z')
  it('END_OF_QUARTER, END_OF_HALF_YEAR, END_OF_YEAR', () => {
    const month = (rounding_type: 'END_OF_QUARTER' | 'END_OF_HALF_YEAR' | 'END_OF_YEAR') =>
      iso(pointsExpiryDate(earned, { period_type: 'MONTH', period_value: 2, rounding_type }, UTC))
    // 10 Feb + 2 months = 10 Apr → Q2 ends 30 Jun; H1 ends 30 Jun; year ends 31 Dec.
    expect(month('END_OF_QUARTER')).toBe('2025-07-01T00:00:00.000Z')
    expect(month('END_OF_HALF_YEAR')).toBe('2025-07-01T00:00:00.000Z')
    expect(month('END_OF_YEAR')).toBe('2026-01-01T00:00:00.000Z')
    expect(
      iso(
        pointsExpiryDate(
          at('2025-08-10T12:00:00Z'),
          { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_HALF_YEAR' },
          UTC,
        ),
      ),
    ).toBe('2026-01-01T00:00:00.000Z')
  })

  it('PARTICULAR_MONTH rounds up to the end of the named month (0 = January)', () => {
    const rules = {
      period_type: 'MONTH',
      period_value: 1,
      rounding_type: 'PARTICULAR_MONTH',
      rounding_value: 5,
    } as const
    // 10 Feb + 1 month = 10 Mar → end of June this year.
    expect(iso(pointsExpiryDate(earned, rules, UTC))).toBe('2025-07-01T00:00:00.000Z')
    // 10 Aug + 1 = 10 Sep → next June.
    expect(iso(pointsExpiryDate(at('2025-08-10T12:00:00Z'), rules, UTC))).toBe('2026-07-01T00:00:00.000Z')
  })
})

describe('pointsExpiryDate: FIXED_DAY_OF_YEAR', () => {
  const rules = { period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 3, fixed_day: 31 } as const
  it('the next such date, usable through that day', () => {
    expect(iso(pointsExpiryDate(at('2025-02-10T12:00:00Z'), rules, UTC))).toBe('2025-04-01T00:00:00.000Z')
    expect(iso(pointsExpiryDate(at('2025-03-31T12:00:00Z'), rules, UTC))).toBe('2025-04-01T00:00:00.000Z')
    expect(iso(pointsExpiryDate(at('2025-04-01T00:00:00Z'), rules, UTC))).toBe('2026-04-01T00:00:00.000Z')
  })
  it('29 February clamps to 28 February in a common year', () => {
    const leap = { period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 2, fixed_day: 29 } as const
    expect(iso(pointsExpiryDate(at('2025-01-10T12:00:00Z'), leap, UTC))).toBe('2025-03-01T00:00:00.000Z')
    expect(iso(pointsExpiryDate(at('2024-01-10T12:00:00Z'), leap, UTC))).toBe('2024-03-01T00:00:00.000Z')
  })
})

describe('pointsExpiryDate: time zone and overrides', () => {
  it('uses the local calendar day and local midnight', () => {
    // 23:30 UTC on 25 Jan is already 26 Jan in Warsaw (UTC+1): usable until the end of 26 Feb local.
    expect(
      iso(pointsExpiryDate(at('2025-01-25T23:30:00Z'), { period_type: 'MONTH', period_value: 1 }, 'Europe/Warsaw')),
    ).toBe('2025-02-26T23:00:00.000Z')
    // Across the spring DST change in New York (9 Mar 2025): midnight is 04:00 UTC afterwards.
    expect(
      iso(pointsExpiryDate(at('2025-02-20T17:00:00Z'), { period_type: 'MONTH', period_value: 1 }, 'America/New_York')),
    ).toBe('2025-03-21T04:00:00.000Z')
  })

  it('no rule means never', () => {
    expect(pointsExpiryDate(at('2025-01-25T00:00:00Z'), null, UTC)).toBeNull()
  })

  it('the earning rule overrides the campaign', () => {
    const campaign = { period_type: 'MONTH', period_value: 12 } as const
    const rule = { period_type: 'MONTH', period_value: 1 } as const
    expect(effectiveExpirationRules(rule, campaign)).toBe(rule)
    expect(effectiveExpirationRules(null, campaign)).toBe(campaign)
    expect(effectiveExpirationRules(undefined, null)).toBeNull()
  })

  it('rejects a MONTH rule without period_value', () => {
    expect(() => pointsExpiryDate(at('2025-01-25T00:00:00Z'), { period_type: 'MONTH' }, UTC)).toThrow(RangeError)
  })
})
