/**
 * Calendar arithmetic in an IANA time zone with nothing but `Intl` (Node 20 has no Temporal). Loyalty
 * dates are calendar dates in the project's time zone ("expires at the end of 25 February"), so every
 * rule converts an instant to a local date, moves on the calendar, and converts back to an instant.
 *
 * A local date is `{ year, month (1–12), day }`. Out-of-range months and days are normalised the way
 * `Date.UTC` does (month 13 is January of the next year, day 0 is the last day of the previous month).
 */
import { offsetAt, zonedTimeToInstant } from './zoned-time'

export interface LocalDate {
  year: number
  month: number
  day: number
}

export type CalendarPeriod = 'MONTH' | 'QUARTER' | 'HALF_YEAR' | 'YEAR'

/** The calendar date of `instant` in `timeZone`. */
export function localDate(instant: Date, timeZone: string): LocalDate {
  const wall = new Date(instant.getTime() + offsetAt(instant.getTime(), timeZone))
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() }
}

/**
 * The instant at which local midnight starting `date` occurs in `timeZone`. When a DST jump skips
 * midnight, the first instant of that local day is returned (the gap moves the time forward).
 */
export function startOfDay(date: LocalDate, timeZone: string): Date {
  return zonedTimeToInstant(date, timeZone)
}

/** Normalises out-of-range month/day values (`{2024, 13, 1}` is 2025-01-01). */
export function normalise(date: LocalDate): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day))
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}

const ISO_DAY = /^\d\d\d\d-\d\d-\d\d/

/**
 * An ISO 8601 date-time (it begins `YYYY-MM-DD`) as milliseconds since the epoch; NaN when it is not
 * one. `Date.parse` alone rolls an impossible day of the month over (30 February reads as 2 March) and
 * takes forms that are not ISO; PostgreSQL's `timestamptz` refuses both, so a timestamp index reads
 * such text as absent on every store and an input refuses it (docs/storage.md#indexes).
 */
export function parseInstant(text: string): number {
  if (!ISO_DAY.test(text)) return Number.NaN
  const day = (text.charCodeAt(8) - 48) * 10 + text.charCodeAt(9) - 48
  const month = (text.charCodeAt(5) - 48) * 10 + text.charCodeAt(6) - 48
  if (day > 28 && month >= 1 && month <= 12 && day > daysInMonth(Number(text.slice(0, 4)), month)) return Number.NaN
  return Date.parse(text)
}

export function compareDates(a: LocalDate, b: LocalDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day
}

export function addDays(date: LocalDate, days: number): LocalDate {
  return normalise({ year: date.year, month: date.month, day: date.day + days })
}

/** Adds calendar months, clamping the day to the target month's length (31 Jan + 1 month = 28/29 Feb). */
export function addMonthsClamped(date: LocalDate, months: number): LocalDate {
  const first = normalise({ year: date.year, month: date.month + months, day: 1 })
  return { ...first, day: Math.min(date.day, daysInMonth(first.year, first.month)) }
}

function periodMonths(period: CalendarPeriod): number {
  switch (period) {
    case 'MONTH':
      return 1
    case 'QUARTER':
      return 3
    case 'HALF_YEAR':
      return 6
    case 'YEAR':
      return 12
    default: {
      const _never: never = period
      return _never
    }
  }
}

/** The first day of the calendar period (month, quarter, half year, year) containing `date`. */
export function periodFirstDay(date: LocalDate, period: CalendarPeriod): LocalDate {
  const size = periodMonths(period)
  const month = Math.floor((date.month - 1) / size) * size + 1
  return { year: date.year, month, day: 1 }
}

/** The last day of the calendar period containing `date`. */
export function periodLastDay(date: LocalDate, period: CalendarPeriod): LocalDate {
  const first = periodFirstDay(date, period)
  return addDays(normalise({ ...first, month: first.month + periodMonths(period) }), -1)
}

/** The first day of the period after the one containing `date`. */
export function nextPeriodFirstDay(date: LocalDate, period: CalendarPeriod): LocalDate {
  return addDays(periodLastDay(date, period), 1)
}

/** Start (inclusive) and end (exclusive) instants of the calendar period containing `instant`. */
export function periodBounds(instant: Date, period: CalendarPeriod, timeZone: string): { start: Date; end: Date } {
  const today = localDate(instant, timeZone)
  return {
    start: startOfDay(periodFirstDay(today, period), timeZone),
    end: startOfDay(nextPeriodFirstDay(today, period), timeZone),
  }
}

/** "Usable until the end of `date`": the instant the next local day begins. */
export function endOfDayExclusive(date: LocalDate, timeZone: string): Date {
  return startOfDay(addDays(date, 1), timeZone)
}

/** Formats a local date as `YYYY-MM-DD`. */
export function formatLocalDate(date: LocalDate): string {
  const y = String(date.year).padStart(4, '0')
  const m = String(date.month).padStart(2, '0')
  const d = String(date.day).padStart(2, '0')
  return `${y}-${m}-${d}`
}

/** Reads a `YYYY-MM-DD` date; anything else is a RangeError. */
export function parseLocalDate(text: string): LocalDate {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (m === null) throw new RangeError(`expected a YYYY-MM-DD date, got ${text}`)
  return { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }
}
