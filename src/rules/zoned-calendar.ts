/**
 * Calendar arithmetic in an IANA time zone with nothing but `Intl` (Node 20 has no Temporal). Loyalty
 * dates are calendar dates in the project's time zone ("expires at the end of 25 February"), so every
 * rule converts an instant to a local date, moves on the calendar, and converts back to an instant.
 *
 * A local date is `{ year, month (1–12), day }`. Out-of-range months and days are normalised the way
 * `Date.UTC` does (month 13 is January of the next year, day 0 is the last day of the previous month).
 */
export interface LocalDate {
  year: number
  month: number
  day: number
}

export type CalendarPeriod = 'MONTH' | 'QUARTER' | 'HALF_YEAR' | 'YEAR'

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formatters.set(timeZone, f)
  }
  return f
}

interface LocalDateTime extends LocalDate {
  hour: number
  minute: number
  second: number
}

function formattedParts(instant: Date, timeZone: string): LocalDateTime {
  const out: LocalDateTime = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }
  for (const part of formatter(timeZone).formatToParts(instant)) {
    switch (part.type) {
      case 'year':
        out.year = Number(part.value)
        break
      case 'month':
        out.month = Number(part.value)
        break
      case 'day':
        out.day = Number(part.value)
        break
      case 'hour':
        out.hour = Number(part.value)
        break
      case 'minute':
        out.minute = Number(part.value)
        break
      case 'second':
        out.second = Number(part.value)
        break
      default:
        break
    }
  }
  return out
}

// Intl is slow (microseconds a call) and zone offsets only change on whole minutes, so the offset
// is memoised per zone and minute. A bounded memo of a deterministic function: no observable state.
const offsets = new Map<string, number>()
const OFFSET_MEMO_LIMIT = 10_000

/** Milliseconds the zone is ahead of UTC at `instant`. */
function offsetAt(instant: number, timeZone: string): number {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return 0
  const minute = Math.floor(instant / 60_000)
  const key = `${timeZone}|${minute}`
  const known = offsets.get(key)
  if (known !== undefined) return known
  const at = minute * 60_000
  const t = formattedParts(new Date(at), timeZone)
  const offset = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) - at
  if (offsets.size >= OFFSET_MEMO_LIMIT) offsets.clear()
  offsets.set(key, offset)
  return offset
}

/** The calendar date of `instant` in `timeZone`. */
export function localDate(instant: Date, timeZone: string): LocalDate {
  const wall = new Date(instant.getTime() + offsetAt(instant.getTime(), timeZone))
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() }
}

/**
 * The instant at which local midnight starting `date` occurs in `timeZone`. When a DST jump skips
 * midnight, the first instant of that local day is returned.
 */
export function startOfDay(date: LocalDate, timeZone: string): Date {
  const wall = Date.UTC(date.year, date.month - 1, date.day)
  // Two passes settle the offset across a DST change between the guess and the answer.
  let guess = wall - offsetAt(wall, timeZone)
  guess = wall - offsetAt(guess, timeZone)
  const back = localDate(new Date(guess), timeZone)
  const wanted = normalise(date)
  if (compareDates(back, wanted) < 0) {
    // Midnight does not exist that day (spring forward at 00:00): take the first hour that does.
    guess += 3_600_000
  }
  return new Date(guess)
}

/** Normalises out-of-range month/day values (`{2024, 13, 1}` is 2025-01-01). */
export function normalise(date: LocalDate): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day))
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
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

/** A parsed ISO 8601 duration with calendar parts (years, months, weeks, days) and a clock part in ms. */
export interface CalendarDuration {
  years: number
  months: number
  days: number
  millis: number
}

const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/

/** Parses `P3M`, `P1Y2M10D`, `P7D`, `P2W`, `PT12H`…; returns null for anything else. */
export function parseDuration(text: string): CalendarDuration | null {
  const m = DURATION.exec(text)
  if (m === null || text === 'P' || text.endsWith('T')) return null
  const n = (i: number): number => (m[i] === undefined ? 0 : Number(m[i]))
  return {
    years: n(1),
    months: n(2),
    days: n(3) * 7 + n(4),
    millis: Math.round(n(5) * 3_600_000 + n(6) * 60_000 + n(7) * 1000),
  }
}

/** Adds the calendar part of a duration to a local date (years and months clamp the day). */
export function addDurationToDate(date: LocalDate, duration: CalendarDuration): LocalDate {
  return addDays(addMonthsClamped(date, duration.years * 12 + duration.months), duration.days)
}
