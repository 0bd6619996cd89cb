import { describe, expect, it } from 'vitest'
import { calculateEarnedPoints } from '../../../src/rules/earned-points'
import { evaluateFormula, type FormulaContext } from '../../../src/rules/formulas'

function value(source: string, context: FormulaContext): string {
  const out = evaluateFormula(source, context)
  if (!out.ok) throw new Error(`${source}: ${out.reason.code} ${out.reason.message}`)
  return out.value.toString()
}

function failure(source: string, context: FormulaContext) {
  const out = evaluateFormula(source, context)
  if (out.ok) throw new Error(`${source} evaluated to ${out.value.toString()}`)
  return out.reason
}

const at = (iso: string, timeZone = 'UTC'): FormulaContext => ({ now: new Date(iso), timeZone })

describe('TODAY, NOW and the calendar parts', () => {
  it('IF(DAY_OF_MONTH(TODAY) = 15; 20; 10) on 2026-01-15 → 20, on the 16th → 10', () => {
    expect(value('IF(DAY_OF_MONTH(TODAY) = 15; 20; 10)', at('2026-01-15T10:00:00Z'))).toBe('20')
    expect(value('IF(DAY_OF_MONTH(TODAY) = 15; 20; 10)', at('2026-01-16T10:00:00Z'))).toBe('10')
  })

  it('MONTH is 1–12, YEAR the calendar year, of TODAY and NOW', () => {
    const ctx = at('2026-12-31T12:00:00Z')
    expect(value('MONTH(TODAY) x 10000 + DAY_OF_MONTH(TODAY) x 100 + YEAR(NOW) - 2000', ctx)).toBe('123126')
    expect(value('MONTH(TODAY())', at('2026-01-15T10:00:00Z'))).toBe('1')
  })

  it('TODAY is the calendar date in the engine zone: 23:30 UTC on 31 Dec is 1 Jan in Warsaw', () => {
    const utc = at('2025-12-31T23:30:00Z')
    const warsaw = at('2025-12-31T23:30:00Z', 'Europe/Warsaw')
    expect(value('YEAR(TODAY) x 10000 + MONTH(TODAY) x 100 + DAY_OF_MONTH(TODAY)', utc)).toBe('20251231')
    expect(value('YEAR(TODAY) x 10000 + MONTH(TODAY) x 100 + DAY_OF_MONTH(NOW)', warsaw)).toBe('20260101')
  })

  it('a date is not a number: TODAY alone, TODAY + 1 and ORDER_AMOUNT > TODAY do not evaluate', () => {
    const ctx = at('2026-01-15T10:00:00Z')
    expect(failure('TODAY', ctx).code).toBe('not_a_number')
    expect(failure('TODAY + 1', ctx).code).toBe('type')
    expect(failure('IF(TODAY; 1; 2)', ctx).code).toBe('type')
  })
})

describe('DATE and DATE_TIME', () => {
  const ctx = at('2026-01-15T10:00:00Z', 'Europe/Warsaw')

  it('DATE("2026-03-01") and DATE(2026; 3; 1) name the same day; DATE of a date-time is its local day', () => {
    expect(value('IF(DATE("2026-03-01") = DATE(2026; 3; 1); 1; 0)', ctx)).toBe('1')
    expect(value('DAY_OF_MONTH(DATE("2026-02-28T23:30:00Z"))', ctx)).toBe('1') // 00:30 on 1 March in Warsaw
    expect(value('MONTH(DATE("2026-02-28T23:30:00Z"))', at('2026-01-15T10:00:00Z'))).toBe('2')
  })

  it('DATE_TIME without an offset is Warsaw wall-clock time; with one it is that instant', () => {
    expect(value('IF(DATE_TIME("2026-01-15T11:00") = NOW; 1; 0)', ctx)).toBe('1')
    expect(value('IF(DATE_TIME("2026-01-15T10:00:00Z") = NOW; 1; 0)', ctx)).toBe('1')
    expect(value('IF(DATE_TIME("2026-01-15T11:00:00+01:00") = NOW; 1; 0)', ctx)).toBe('1')
    expect(value('IF(NOW > DATE_TIME("2026-01-15T10:59"); 1; 0)', ctx)).toBe('1')
    expect(value('IF(NOW < DATE_TIME("2026-01-15T10:59"); 1; 0)', ctx)).toBe('0')
  })

  it('text that is not a calendar date does not evaluate', () => {
    expect(failure('DAY_OF_MONTH(DATE("2026-02-30"))', ctx).code).toBe('type')
    expect(failure('DATE("soon")', ctx).code).toBe('type')
    expect(failure('DATE(2026; 13; 1)', ctx).code).toBe('type')
    expect(failure('DATE(5)', ctx).code).toBe('type')
  })
})

describe('comparisons between dates', () => {
  const ctx = at('2026-01-15T10:00:00Z')

  it('calendar dates compare by day; a date-time against a date compares its local day', () => {
    expect(value('IF(TODAY = DATE("2026-01-15"); 1; 0)', ctx)).toBe('1')
    expect(value('IF(TODAY = "2026-01-15"; 1; 0)', ctx)).toBe('1')
    expect(value('IF(NOW = TODAY; 1; 0)', ctx)).toBe('1')
    expect(value('IF(TODAY < DATE("2026-01-16"); 1; 0)', ctx)).toBe('1')
    expect(value('IF(TODAY >= DATE("2026-01-16"); 1; 0)', ctx)).toBe('0')
    expect(value('IF(TODAY != DATE("2026-01-16"); 1; 0)', ctx)).toBe('1')
    expect(value('IF(TODAY = 15; 1; 0)', ctx)).toBe('0')
  })

  it('DATE_IS, IS_AFTER and IS_BEFORE as operators and as functions', () => {
    expect(value('IF(TODAY DATE_IS "2026-01-15"; 1; 0)', ctx)).toBe('1')
    expect(value('IF(TODAY IS_AFTER DATE("2026-01-14") AND TODAY IS_BEFORE (DATE("2026-01-16")); 1; 0)', ctx)).toBe('1')
    expect(value('IF(IS_AFTER(TODAY; "2026-01-15"); 1; 0)', ctx)).toBe('0')
    expect(value('IF(IS_BEFORE(NOW; "2026-01-15T10:00:01Z"); 1; 0)', ctx)).toBe('1')
    expect(value('IF(DATE_IS(NOW; DATE("2026-01-15")); 1; 0)', ctx)).toBe('1')
    expect(failure('IF(TODAY IS_AFTER 5; 1; 0)', ctx).code).toBe('type')
  })

  it('IN_ARRAY and SWITCH match dates', () => {
    expect(value('IF(IN_ARRAY(TODAY; "2025-12-24"; "2026-01-15"); 7; 0)', ctx)).toBe('7')
    expect(value('SWITCH(TODAY; SWITCH_CASE(DATE("2026-01-15"); 3) SWITCH_CASE(DATE("2026-01-16"); 4); 5)', ctx)).toBe(
      '3',
    )
  })
})

describe('DAYS_SINCE, MONTHS_SINCE, YEARS_SINCE, DAYS_UNTIL, MONTHS_UNTIL', () => {
  const ctx = at('2026-01-15T10:00:00Z')

  it('count whole calendar days and months from or to today', () => {
    expect(value('DAYS_SINCE(DATE("2025-12-25"))', ctx)).toBe('21')
    expect(value('DAYS_UNTIL(DATE("2026-02-14"))', ctx)).toBe('30')
    expect(value('DAYS_UNTIL(DATE("2026-01-10"))', ctx)).toBe('-5')
    expect(value('MONTHS_SINCE(DATE("2025-10-15"))', ctx)).toBe('3')
    expect(value('MONTHS_SINCE(DATE("2025-10-16"))', ctx)).toBe('2')
    expect(value('MONTHS_UNTIL(DATE("2026-04-14"))', ctx)).toBe('2')
    expect(value('YEARS_SINCE(DATE("1990-01-15"))', ctx)).toBe('36')
    expect(value('YEARS_SINCE(DATE("1990-01-16"))', ctx)).toBe('35')
  })

  it('a month after the 31st ends on the last day of a shorter month; a second date replaces today', () => {
    expect(value('MONTHS_SINCE(DATE("2026-01-31"); DATE("2026-02-28"))', ctx)).toBe('1')
    expect(value('MONTHS_SINCE(DATE("2026-01-31"); DATE("2026-02-27"))', ctx)).toBe('0')
    expect(value('YEARS_SINCE(DATE("2024-02-29"); DATE("2025-02-28"))', ctx)).toBe('1')
    expect(value('DAYS_SINCE("2024-02-28"; "2024-03-01")', ctx)).toBe('2')
  })

  it('DAYS_UNTIL(VOUCHER_EXPIRATION_DATE) counts Warsaw calendar days, across Warsaw midnight', () => {
    // Expires 2026-01-20T23:30Z = 00:30 on 21 January in Warsaw.
    const voucher = { start_date: '2026-01-01T00:00:00Z', expiration_date: '2026-01-20T23:30:00Z' }
    const warsaw = (now: string): FormulaContext => ({ ...at(now, 'Europe/Warsaw'), voucher })
    expect(value('DAYS_UNTIL(VOUCHER_EXPIRATION_DATE)', warsaw('2026-01-15T22:59:00Z'))).toBe('6') // 23:59 on the 15th
    expect(value('DAYS_UNTIL(VOUCHER_EXPIRATION_DATE)', warsaw('2026-01-15T23:00:00Z'))).toBe('5') // 00:00 on the 16th
    // The same instants in UTC: the expiry is on the 20th, both nows on the 15th.
    expect(value('DAYS_UNTIL(VOUCHER_EXPIRATION_DATE)', { ...at('2026-01-15T22:59:00Z'), voucher })).toBe('5')
    expect(value('DAYS_UNTIL(VOUCHER_EXPIRATION_DATE)', { ...at('2026-01-15T23:00:00Z'), voucher })).toBe('5')
    expect(value('DAYS_SINCE(VOUCHER_START_DATE)', warsaw('2026-01-15T23:00:00Z'))).toBe('15')
  })

  it('PROMOTION_TIER_START_DATE / EXPIRATION_DATE read the tier', () => {
    const promotion_tier = { start_date: '2026-01-10T00:00:00Z', expiration_date: null }
    expect(value('DAYS_SINCE(PROMOTION_TIER_START_DATE)', { ...ctx, promotion_tier })).toBe('5')
    expect(failure('DAYS_UNTIL(PROMOTION_TIER_EXPIRATION_DATE)', { ...ctx, promotion_tier }).code).toBe('missing_value')
    expect(failure('DAYS_UNTIL(VOUCHER_EXPIRATION_DATE)', { ...ctx, promotion_tier }).code).toBe('missing_value')
  })
})

describe('CUSTOMER_BIRTHDATE', () => {
  it('is the date part as written, whatever the zone', () => {
    const customer = { birthdate: '1990-01-15' }
    const ctx: FormulaContext = { ...at('2026-01-14T23:30:00Z', 'Europe/Warsaw'), customer }
    expect(value('IF(MONTH(CUSTOMER_BIRTHDATE) = MONTH(TODAY); 15; 5)', ctx)).toBe('15')
    expect(value('IF(DAY_OF_MONTH(CUSTOMER_BIRTHDATE) = DAY_OF_MONTH(TODAY); 1; 0)', ctx)).toBe('1')
    const midnightUtc = { ...ctx, customer: { birthdate: '1990-01-15T00:00:00.000Z' }, timeZone: 'America/New_York' }
    expect(value('DAY_OF_MONTH(CUSTOMER_BIRTHDATE)', midnightUtc)).toBe('15')
  })
})

describe('fallback when a date is missing', () => {
  it('no birthdate, no validity date, unreadable text, or no clock: missing_value', () => {
    const ctx = at('2026-01-15T10:00:00Z')
    expect(failure('MONTH(CUSTOMER_BIRTHDATE)', { ...ctx, customer: { birthdate: null } }).code).toBe('missing_value')
    expect(failure('MONTH(CUSTOMER_BIRTHDATE)', ctx).code).toBe('missing_value')
    expect(failure('DAYS_UNTIL(VOUCHER_EXPIRATION_DATE)', { ...ctx, voucher: {} }).code).toBe('missing_value')
    expect(failure('MONTH(CUSTOMER_BIRTHDATE)', { ...ctx, customer: { birthdate: 'n/a' } }).code).toBe('missing_value')
    expect(failure('DAY_OF_MONTH(TODAY)', {}).code).toBe('missing_value')
    expect(failure('YEAR(NOW)', {}).code).toBe('missing_value')
    expect(failure('YEAR(DATE("2026-01-01")) + DAYS_SINCE(DATE("2026-01-01"))', {}).code).toBe('missing_value')
  })

  it('DEFAULT_TO gives its second value instead', () => {
    const ctx = at('2026-01-15T10:00:00Z')
    expect(value('DEFAULT_TO(DAYS_UNTIL(VOUCHER_EXPIRATION_DATE); 30)', ctx)).toBe('30')
    expect(value('DEFAULT_TO(MONTH(CUSTOMER_BIRTHDATE); 0)', ctx)).toBe('0')
  })
})

describe('points formulas read the date', () => {
  it('double points on the 15th, by the event time in the engine zone; the static points without a clock', () => {
    const loyalty = { type: 'FIXED' as const, points: 10, points_formula: 'IF(DAY_OF_MONTH(TODAY) = 15; 20; 10)' }
    const input = { now: new Date('2026-01-14T23:30:00Z'), timeZone: 'Europe/Warsaw' }
    expect(calculateEarnedPoints(loyalty, input)).toBe(20)
    expect(calculateEarnedPoints(loyalty, { ...input, timeZone: 'UTC' })).toBe(10)
    expect(calculateEarnedPoints({ ...loyalty, points: 7 }, {})).toBe(7)
  })
})
