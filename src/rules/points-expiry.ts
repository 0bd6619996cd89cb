import type { PendingPointsRule, PointsExpirationRules } from '../model/loyalty'
import {
  addDays,
  addMonthsClamped,
  type CalendarPeriod,
  daysInMonth,
  endOfDayExclusive,
  type LocalDate,
  localDate,
  normalise,
  periodLastDay,
  startOfDay,
} from './zoned-calendar'

/**
 * When a credit of points expires (docs/concepts.md#points-expiry, docs/behaviour.md#points-expiry).
 *
 * Dates are calendar dates in the project's time zone. "Usable until the end of day X" is returned as
 * the instant X+1 00:00 local: the points are spendable strictly before the returned instant and
 * expired at it (the nightly job's "expiration date D takes effect at D+1 00:00").
 *
 * - `MONTH` with `period_value` N: earned on day d → usable until the end of day d of month+N, with
 *   days 29–31 clamped to the target month's last day; N = 0 means the end of the earning day.
 * - `rounding_type` then moves that last day to the end of its month / quarter / half year / year,
 *   or (`PARTICULAR_MONTH`) to the end of the first month numbered `rounding_value` on or after it.
 *   `rounding_value` counts months from 0 = January to 11 = December, the convention the tiers'
 *   `rounding.value` uses for tiers (docs/concepts.md#tiers); nothing defines it for points.
 * - `FIXED_DAY_OF_YEAR`: usable until the end of the next `fixed_month`/`fixed_day` on or after the
 *   earning day (a day past the month's length clamps to its last day, so 29 Feb works every year).
 *
 * Returns null when there is no rule: such points never expire.
 */
export function pointsExpiryDate(
  earnedAt: Date,
  rules: PointsExpirationRules | null | undefined,
  timeZone: string,
): Date | null {
  if (rules === null || rules === undefined) return null
  const lastDay = lastUsableDay(localDate(earnedAt, timeZone), rules)
  return endOfDayExclusive(lastDay, timeZone)
}

/** The last calendar day on which points earned on `earned` can still be spent. */
export function lastUsableDay(earned: LocalDate, rules: PointsExpirationRules): LocalDate {
  switch (rules.period_type) {
    case 'MONTH': {
      const months = wholeNumber(rules.period_value, 'period_value')
      const target = addMonthsClamped(earned, months)
      return rules.rounding_type === undefined ? target : roundUp(target, rules)
    }
    case 'FIXED_DAY_OF_YEAR': {
      const month = wholeNumber(rules.fixed_month, 'fixed_month')
      const day = wholeNumber(rules.fixed_day, 'fixed_day')
      if (month < 1 || month > 12 || day < 1 || day > 31) {
        throw new RangeError(`FIXED_DAY_OF_YEAR needs fixed_month 1–12 and fixed_day 1–31, got ${month}/${day}`)
      }
      const thisYear = { year: earned.year, month, day: Math.min(day, daysInMonth(earned.year, month)) }
      if (!isBefore(thisYear, earned)) return thisYear
      const next = earned.year + 1
      return { year: next, month, day: Math.min(day, daysInMonth(next, month)) }
    }
    default: {
      const _never: never = rules.period_type
      return _never
    }
  }
}

function roundUp(date: LocalDate, rules: PointsExpirationRules): LocalDate {
  const rounding = rules.rounding_type
  switch (rounding) {
    case undefined:
      return date
    case 'END_OF_MONTH':
      return endOf(date, 'MONTH')
    case 'END_OF_QUARTER':
      return endOf(date, 'QUARTER')
    case 'END_OF_HALF_YEAR':
      return endOf(date, 'HALF_YEAR')
    case 'END_OF_YEAR':
      return endOf(date, 'YEAR')
    case 'PARTICULAR_MONTH': {
      const index = wholeNumber(rules.rounding_value, 'rounding_value')
      if (index > 11) throw new RangeError(`rounding_value must be 0 (January) to 11 (December), got ${index}`)
      const month = index + 1
      const year = month >= date.month ? date.year : date.year + 1
      return { year, month, day: daysInMonth(year, month) }
    }
    default: {
      const _never: never = rounding
      return _never
    }
  }
}

function endOf(date: LocalDate, period: CalendarPeriod): LocalDate {
  return periodLastDay(normalise(date), period)
}

function isBefore(a: LocalDate, b: LocalDate): boolean {
  return a.year !== b.year ? a.year < b.year : a.month !== b.month ? a.month < b.month : a.day < b.day
}

function wholeNumber(value: number | undefined, name: string): number {
  if (value === undefined || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`points expiration rule: ${name} must be a non-negative integer, got ${String(value)}`)
  }
  return value
}

/**
 * The rules that govern a credit: an earning rule's own `expiration_rules` override the campaign's
 * (docs/concepts.md#points-expiry); null or absent on both means the points never expire.
 */
export function effectiveExpirationRules(
  earningRuleRules: PointsExpirationRules | null | undefined,
  campaignRules: PointsExpirationRules | null | undefined,
): PointsExpirationRules | null {
  return earningRuleRules ?? campaignRules ?? null
}

/**
 * When pending points become spendable: at 00:00 (project time zone) of the `period_value`-th day
 * after the earning day, the nightly run where "pending points activate" (docs/concepts.md#tiers). Earned on
 * 15 January with 7 days: active from 22 January 00:00.
 */
export function pendingActivationDate(earnedAt: Date, pending: PendingPointsRule, timeZone: string): Date {
  return startOfDay(addDays(localDate(earnedAt, timeZone), pending.period_value), timeZone)
}
