import type { Decimal } from 'decimal.js'
import { addMonthsClamped, compareDates, daysInMonth, type LocalDate, localDate } from '../zoned-calendar'
import { zonedTimeToInstant } from '../zoned-time'
import { FormulaFailure } from './failure'

/**
 * Dates inside a formula (docs/behaviour.md#formulas), as tagged values so they never pass for numbers:
 * - `date`: a calendar date in the engine's time zone (`TODAY`, `DATE("2026-03-01")`,
 *   `CUSTOMER_BIRTHDATE`): no time, no zone of its own;
 * - `instant`: a point in time (`NOW`, `DATE_TIME("…")`, the voucher's and the tier's
 *   `start_date` / `expiration_date`), read as a local date in the engine's zone whenever a calendar
 *   question is asked of it (its day, month, year, "days until").
 * Two instants compare as instants; as soon as one side is a calendar date both compare as calendar
 * dates, so `VOUCHER_EXPIRATION_DATE = TODAY` asks "does it expire today, locally".
 */
export type FormulaDate = { kind: 'date'; date: LocalDate } | { kind: 'instant'; ms: number }

/**
 * A value inside a formula: numbers are exact decimals; metadata may also give text, yes/no, or lists;
 * date operands give a tagged calendar date or instant, never a number.
 */
export type FormulaValue = Decimal | string | boolean | FormulaDate | readonly FormulaValue[]

export function isFormulaDate(v: unknown): v is FormulaDate {
  return typeof v === 'object' && v !== null && 'kind' in v && (v.kind === 'date' || v.kind === 'instant')
}

export function calendarDate(date: LocalDate): FormulaDate {
  return { kind: 'date', date }
}

export function instant(ms: number): FormulaDate {
  return { kind: 'instant', ms }
}

/** The calendar date of a date value in `timeZone`. */
export function toLocalDate(d: FormulaDate, timeZone: string): LocalDate {
  return d.kind === 'date' ? d.date : localDate(new Date(d.ms), timeZone)
}

/** The instant a date value names: a calendar date is its local midnight in `timeZone`. */
export function toInstant(d: FormulaDate, timeZone: string): number {
  return d.kind === 'instant' ? d.ms : zonedTimeToInstant(d.date, timeZone).getTime()
}

/** Negative, 0 or positive as `a` is before, on or after `b` (calendar days unless both are instants). */
export function compareFormulaDates(a: FormulaDate, b: FormulaDate, timeZone: string): number {
  if (a.kind === 'instant' && b.kind === 'instant') return Math.sign(a.ms - b.ms)
  return Math.sign(compareDates(toLocalDate(a, timeZone), toLocalDate(b, timeZone)))
}

/** Calendar days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: LocalDate, to: LocalDate): number {
  return Math.round((utcDay(to) - utcDay(from)) / 86_400_000)
}

/**
 * Whole calendar months from `from` to `to`, cut toward zero: the largest n with `from` + n months
 * on or before `to`, a month after the 31st ending on the month's last day (31 Jan → 28 Feb is one
 * month; 29 Feb 2024 → 28 Feb 2025 is twelve).
 */
export function monthsBetween(from: LocalDate, to: LocalDate): number {
  if (compareDates(to, from) < 0) return 0 - monthsBetween(to, from)
  let n = (to.year - from.year) * 12 + (to.month - from.month)
  while (n > 0 && compareDates(addMonthsClamped(from, n), to) > 0) n--
  return n
}

function utcDay(d: LocalDate): number {
  return Date.UTC(d.year, d.month - 1, d.day)
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i

/**
 * Reads ISO 8601 text: `YYYY-MM-DD` is a calendar date; `YYYY-MM-DDTHH:MM[:SS[.fff]]` is an instant,
 * at the offset it names (`Z`, `+01:00`) or, without one, on the engine zone's wall clock.
 * Null when the text is not such a date or names a day that does not exist (2026-02-30).
 */
export function parseDateText(text: string, timeZone: string): FormulaDate | null {
  const s = text.trim()
  const day = DATE_ONLY.exec(s)
  if (day) {
    const date = validDate(Number(day[1]), Number(day[2]), Number(day[3]))
    return date === null ? null : calendarDate(date)
  }
  const m = DATE_TIME.exec(s)
  if (!m) return null
  const date = validDate(Number(m[1]), Number(m[2]), Number(m[3]))
  const hour = Number(m[4])
  const minute = Number(m[5])
  const second = Number(m[6] ?? 0)
  const millisecond = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3))
  if (date === null || hour > 23 || minute > 59 || second > 59) return null
  const zone = m[8]
  if (zone === undefined) {
    return instant(zonedTimeToInstant({ ...date, hour, minute, second, millisecond }, timeZone).getTime())
  }
  const utc = Date.UTC(date.year, date.month - 1, date.day, hour, minute, second, millisecond)
  return instant(utc - offsetMillis(zone))
}

/** The calendar date a stored date field holds: its `YYYY-MM-DD` part as written (a birthdate has no zone). */
export function datePart(text: string): FormulaDate | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text.trim())
  if (!m) return null
  const date = validDate(Number(m[1]), Number(m[2]), Number(m[3]))
  return date === null ? null : calendarDate(date)
}

/** A date from numbers: `DATE(2026; 3; 1)`. */
export function dateFromParts(year: number, month: number, day: number, pos: number): FormulaDate {
  const date = validDate(year, month, day)
  if (date === null) throw new FormulaFailure('type', `${year}-${month}-${day} is not a calendar date`, pos)
  return calendarDate(date)
}

function validDate(year: number, month: number, day: number): LocalDate | null {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return null
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1) return null
  return day > daysInMonth(year, month) ? null : { year, month, day }
}

function offsetMillis(zone: string): number {
  if (zone === 'Z' || zone === 'z') return 0
  const sign = zone.startsWith('-') ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000
}
