/**
 * Wall-clock arithmetic in an IANA time zone, with nothing but `Intl.DateTimeFormat` (pure: the
 * answer depends only on the instant and the zone name). Validity hours, days of week and calendar
 * durations are all stated in the engine's zone (docs/behaviour.md#time-zone), so every rule that reads "the
 * local day" or "the local time" goes through here.
 */

export interface LocalParts {
  year: number
  /** 1..12 */
  month: number
  /** 1..31 */
  day: number
  hour: number
  minute: number
  second: number
  millisecond: number
  /** 0 = Sunday … 6 = Saturday, as `validity_day_of_week` counts. */
  weekday: number
}

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 }
const MS_PER_DAY = 86_400_000

// Building a DateTimeFormat is costly; caching one per zone is memoisation, not state.
const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
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
      weekday: 'short',
      era: 'short',
    })
    formatters.set(timeZone, f)
  }
  return f
}

/** The local calendar and clock fields of an instant in `timeZone`. */
export function localParts(instant: Date | number, timeZone = 'UTC'): LocalParts {
  const ms = typeof instant === 'number' ? instant : instant.getTime()
  const out: LocalParts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, millisecond: 0, weekday: 0 }
  let bc = false
  for (const part of formatterFor(timeZone).formatToParts(ms)) {
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
      case 'weekday':
        out.weekday = WEEKDAYS[part.value] ?? 0
        break
      case 'era':
        bc = part.value === 'BC' || part.value === 'B'
        break
      default:
        break
    }
  }
  if (bc) out.year = 1 - out.year
  out.millisecond = ((ms % 1000) + 1000) % 1000
  return out
}

/** The wall-clock fields read as if they were UTC: a linear scale for local arithmetic. */
function wallMillis(p: Omit<LocalParts, 'weekday'>): number {
  const d = new Date(0)
  d.setUTCFullYear(p.year, p.month - 1, p.day)
  d.setUTCHours(p.hour, p.minute, p.second, p.millisecond)
  return d.getTime()
}

// Intl is slow (microseconds a call) and zone offsets only change on whole minutes, so the offset
// is memoised per zone and minute (loyalty tier transitions ask for it per member). A bounded memo
// of a deterministic function: no observable state.
const offsets = new Map<string, number>()
const OFFSET_MEMO_LIMIT = 10_000

/** Offset of `timeZone` from UTC at an instant, in milliseconds (Warsaw in summer: +7_200_000). */
export function offsetAt(ms: number, timeZone: string): number {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return 0
  const minute = Math.floor(ms / 60_000)
  const key = `${timeZone}|${minute}`
  const known = offsets.get(key)
  if (known !== undefined) return known
  const at = minute * 60_000
  const offset = wallMillis(localParts(at, timeZone)) - at
  if (offsets.size >= OFFSET_MEMO_LIMIT) offsets.clear()
  offsets.set(key, offset)
  return offset
}

export interface WallTime {
  year: number
  month: number
  day: number
  hour?: number
  minute?: number
  second?: number
  millisecond?: number
}

/**
 * The instant a wall-clock time names in `timeZone`. Month/day overflow is normalised like
 * `Date.UTC`. Ambiguous times (autumn fold) take the earlier instant; times in a spring gap move
 * forward by the gap, as Temporal's "compatible" disambiguation does.
 */
export function zonedTimeToInstant(wall: WallTime, timeZone = 'UTC'): Date {
  const t = wallMillis({
    year: wall.year,
    month: wall.month,
    day: wall.day,
    hour: wall.hour ?? 0,
    minute: wall.minute ?? 0,
    second: wall.second ?? 0,
    millisecond: wall.millisecond ?? 0,
  })
  const before = offsetAt(t - MS_PER_DAY, timeZone)
  const after = offsetAt(t + MS_PER_DAY, timeZone)
  const candidates = [t - before, t - after].filter((c) => c + offsetAt(c, timeZone) === t)
  if (candidates.length > 0) return new Date(Math.min(...candidates))
  return new Date(t - before)
}

/** Days since 1970-01-01 of the local calendar date: for "same day" and "N days ago" checks. */
export function localDayNumber(instant: Date | number, timeZone = 'UTC'): number {
  const p = localParts(instant, timeZone)
  return Math.floor(wallMillis({ ...p, hour: 0, minute: 0, second: 0, millisecond: 0 }) / MS_PER_DAY)
}

/** Minutes since local midnight. */
export function localMinuteOfDay(instant: Date | number, timeZone = 'UTC'): number {
  const p = localParts(instant, timeZone)
  return p.hour * 60 + p.minute
}

/** Parses `HH:MM` (or `HH:MM:SS`, seconds ignored) into minutes since midnight; null when malformed. */
export function parseClockTime(value: string): number | null {
  const m = /^(\d{1,2}):(\d{2})(?::\d{2})?$/.exec(value.trim())
  if (m === null) return null
  const h = Number(m[1])
  const min = Number(m[2])
  if (h > 24 || min > 59 || (h === 24 && min !== 0)) return null
  return h * 60 + min
}

/**
 * Whether a local minute-of-day on a local weekday falls in a daily window `[start, end)` open on
 * `days` (all days when null). A window whose end is not after its start runs past midnight, so its
 * tail belongs to the day it started on.
 */
export function inDailyWindow(
  minute: number,
  weekday: number,
  start: number,
  end: number,
  days: readonly number[] | null,
): boolean {
  const openOn = (d: number): boolean => days === null || days.includes(d)
  if (end > start) return openOn(weekday) && minute >= start && minute < end
  if (minute >= start) return openOn(weekday)
  return minute < end && openOn((weekday + 6) % 7)
}
