/**
 * ISO 8601 durations (`P1D`, `PT1H`, `P3M`, `P1Y2M10DT2H30M`, `P2W`) as validity timeframes and
 * loyalty expiry use them. Calendar parts (years, months, weeks, days) move the local calendar date
 * in the engine's zone, clamping to the month's end (Jan 31 + P1M = Feb 28/29); clock parts
 * (hours, minutes, seconds) are elapsed time, so PT24H across a DST change is not P1D.
 */
import { addDays, addMonthsClamped, type LocalDate } from './zoned-calendar'
import { localParts, zonedTimeToInstant } from './zoned-time'

export interface Duration {
  years: number
  months: number
  weeks: number
  days: number
  hours: number
  minutes: number
  seconds: number
}

const PATTERN = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/

/** Parses an ISO 8601 duration; throws a RangeError naming the input when it is not one. */
export function parseDuration(text: string): Duration {
  const normalised = text.trim().toUpperCase()
  const m = PATTERN.exec(normalised)
  // "P", "PT" and "P1DT" match the pattern's optional groups but name no duration.
  if (m === null || m.slice(1).every((g) => g === undefined) || normalised.endsWith('T')) {
    throw new RangeError(`Invalid ISO 8601 duration: ${JSON.stringify(text)}`)
  }
  const n = (i: number): number => (m[i] === undefined ? 0 : Number(m[i]?.replace(',', '.')))
  return { years: n(1), months: n(2), weeks: n(3), days: n(4), hours: n(5), minutes: n(6), seconds: n(7) }
}

/** The same duration with every part multiplied by a non-negative integer `k`. */
export function scaleDuration(d: Duration, k: number): Duration {
  return {
    years: d.years * k,
    months: d.months * k,
    weeks: d.weeks * k,
    days: d.days * k,
    hours: d.hours * k,
    minutes: d.minutes * k,
    seconds: d.seconds * k,
  }
}

/** Adds the calendar part of a duration (years, months, weeks, days) to a local date; months clamp the day. */
export function addDurationToDate(date: LocalDate, d: Duration): LocalDate {
  return addDays(addMonthsClamped(date, d.years * 12 + d.months), d.weeks * 7 + d.days)
}

/** The clock part of a duration (hours, minutes, seconds) as elapsed milliseconds. */
export function clockMillis(d: Duration): number {
  return Math.round(((d.hours * 60 + d.minutes) * 60 + d.seconds) * 1000)
}

/** `date + duration`, calendar parts in `timeZone` (default UTC). Accepts a parsed or textual duration. */
export function addDuration(date: Date, duration: Duration | string, timeZone = 'UTC'): Date {
  const d = typeof duration === 'string' ? parseDuration(duration) : duration
  let result = date
  if (d.years !== 0 || d.months !== 0 || d.weeks !== 0 || d.days !== 0) {
    const p = localParts(date, timeZone)
    result = zonedTimeToInstant({ ...p, ...addDurationToDate(p, d) }, timeZone)
  }
  const clockMs = clockMillis(d)
  return clockMs === 0 ? result : new Date(result.getTime() + clockMs)
}

/** Whether a duration is zero in every part (such a timeframe can never open). */
export function isZeroDuration(d: Duration): boolean {
  return d.years + d.months + d.weeks + d.days + d.hours + d.minutes + d.seconds === 0
}
