/**
 * Time validity of a voucher, campaign, promotion tier, earning rule or reward (docs/concepts.md#time-validity):
 * the `active` flag, `start_date`/`expiration_date`, a recurring `validity_timeframe`, allowed days
 * of week and daily hours. All local notions (day of week, clock time, calendar intervals) are read
 * in the engine's IANA time zone (docs/behaviour.md#time-zone). `now` is a parameter; nothing here reads a clock.
 */
import type { Validity, ValidityHoursDaily } from '../model/common'
import { addDuration, isZeroDuration, parseDuration, scaleDuration } from './duration'
import { inDailyWindow, localMinuteOfDay, localParts, parseClockTime } from './zoned-time'

export type ValidityReason =
  | 'disabled'
  | 'not_started'
  | 'expired'
  | 'outside_timeframe'
  | 'outside_day_of_week'
  | 'outside_hours'

export type ValidityVerdict = { ok: true } | { ok: false; reason: ValidityReason; detail: string }

export interface ValidityOptions {
  /** IANA zone for local days and hours; default `UTC`. */
  timeZone?: string
  /** Where a `validity_timeframe` counts from when there is no `start_date` (e.g. `created_at`). */
  timeframeAnchor?: Date | string | null
}

const VALID: ValidityVerdict = Object.freeze({ ok: true })
const NO_PERIODS: readonly ValidityHoursDaily[] = []

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(instantOf(value))
}

// Date.parse dominates checking many objects per event (earning rules per paid order) and the same
// few date strings recur: a bounded memo of a deterministic function, no observable state.
const instants = new Map<string, number>()

function instantOf(value: Date | string): number {
  if (value instanceof Date) return value.getTime()
  let t = instants.get(value)
  if (t === undefined) {
    t = Date.parse(value)
    if (instants.size >= 10_000) instants.clear()
    instants.set(value, t)
  }
  return t
}

/**
 * Checks run in this order, and the first "no" wins: disabled, not started, expired, outside the
 * timeframe, outside the days of week, outside the daily hours. A timeframe window is
 * `[anchor + k·interval, anchor + k·interval + duration)`; daily hours are `[start, expiration)`.
 */
export function checkValidity(validity: Validity, now: Date, options: ValidityOptions = {}): ValidityVerdict {
  const timeZone = options.timeZone ?? 'UTC'
  const nowMs = now.getTime()
  if (validity.active === false) return { ok: false, reason: 'disabled', detail: 'active is false' }
  if (validity.start_date != null && nowMs < instantOf(validity.start_date)) {
    return { ok: false, reason: 'not_started', detail: `starts at ${validity.start_date}` }
  }
  if (validity.expiration_date != null && nowMs > instantOf(validity.expiration_date)) {
    return { ok: false, reason: 'expired', detail: `expired at ${validity.expiration_date}` }
  }
  const timeframe = validity.validity_timeframe
  const anchorSource = validity.start_date ?? options.timeframeAnchor ?? null
  if (timeframe != null && anchorSource !== null) {
    const window = currentTimeframeWindow(toDate(anchorSource), timeframe.interval, timeframe.duration, now, timeZone)
    if (window === null || nowMs >= window.end.getTime()) {
      return {
        ok: false,
        reason: 'outside_timeframe',
        detail:
          window === null
            ? `outside the timeframe ${timeframe.duration} every ${timeframe.interval}`
            : `outside the timeframe: last window ${window.start.toISOString()} to ${window.end.toISOString()}`,
      }
    }
  }
  const days = validity.validity_day_of_week
  const periods = validity.validity_hours?.daily ?? NO_PERIODS
  // Reading local time costs an Intl call: only when a day or hour limit asks for it.
  if ((days == null || days.length === 0) && periods.length === 0) return VALID
  const local = localParts(now, timeZone)
  if (days != null && days.length > 0 && !days.includes(local.weekday)) {
    return {
      ok: false,
      reason: 'outside_day_of_week',
      detail: `${DAY_NAMES[local.weekday]} (${local.weekday}) in ${timeZone} is not one of [${days.join(', ')}]`,
    }
  }
  if (periods.length > 0) {
    const minute = localMinuteOfDay(now, timeZone)
    const open = periods.some((p) => {
      const start = parseClockTime(p.start_time)
      const end = parseClockTime(p.expiration_time)
      if (start === null || end === null) return false
      const days = p.days_of_week.length > 0 ? p.days_of_week : null
      return inDailyWindow(minute, local.weekday, start, end, days)
    })
    if (!open) {
      const hh = String(local.hour).padStart(2, '0')
      const mm = String(local.minute).padStart(2, '0')
      const list = periods.map((p) => `${p.start_time}-${p.expiration_time} on [${p.days_of_week.join(', ')}]`)
      return {
        ok: false,
        reason: 'outside_hours',
        detail: `${DAY_NAMES[local.weekday]} ${hh}:${mm} in ${timeZone} is outside ${list.join('; ')}`,
      }
    }
  }
  return VALID
}

/**
 * The latest timeframe window that started at or before `now`, or null before the first one.
 * Windows are computed as `anchor + k·interval` (not by repeated addition) so month-end clamping
 * never drifts.
 */
export function currentTimeframeWindow(
  anchor: Date,
  interval: string,
  duration: string,
  now: Date,
  timeZone = 'UTC',
): { start: Date; end: Date } | null {
  const step = parseDuration(interval)
  const length = parseDuration(duration)
  if (now.getTime() < anchor.getTime()) return null
  const startOf = (k: number): Date => addDuration(anchor, scaleDuration(step, k), timeZone)
  if (isZeroDuration(step)) {
    return { start: anchor, end: addDuration(anchor, length, timeZone) }
  }
  const approx = startOf(1).getTime() - anchor.getTime()
  let k = Math.max(0, Math.floor((now.getTime() - anchor.getTime()) / Math.max(approx, 1)))
  while (k > 0 && startOf(k).getTime() > now.getTime()) k--
  while (startOf(k + 1).getTime() <= now.getTime()) k++
  const start = startOf(k)
  return { start, end: addDuration(start, length, timeZone) }
}

/** The `{code, key, message, details}` a redeemable result carries for a validity "no". */
export interface ValidityError {
  code: 400
  key: string
  message: string
  details: string
}

/** Voucher keys of docs/errors.md#result-keys; `details` is the code, as the hosted service sends it. */
export function voucherValidityError(reason: ValidityReason, code: string): ValidityError {
  switch (reason) {
    case 'disabled':
      return { code: 400, key: 'voucher_disabled', message: 'voucher is disabled', details: code }
    case 'not_started':
      return { code: 400, key: 'voucher_not_active', message: 'voucher not active', details: code }
    case 'expired':
      return { code: 400, key: 'voucher_expired', message: 'voucher expired', details: code }
    case 'outside_timeframe':
    case 'outside_day_of_week':
    case 'outside_hours':
      return { code: 400, key: 'voucher_not_active_now', message: 'voucher not active now', details: code }
    default: {
      const _never: never = reason
      return _never
    }
  }
}

/**
 * Promotion tier keys: disabled is `promotion_inactive` ("Inactive Promotion", as the failed
 * redemption example shows); any date or recurring-window "no" is `promotion_not_active_now`.
 */
export function promotionTierValidityError(reason: ValidityReason, tierId: string): ValidityError {
  switch (reason) {
    case 'disabled':
      return {
        code: 400,
        key: 'promotion_inactive',
        message: 'Inactive Promotion',
        details: `Promotion Tier with id: ${tierId} is disabled.`,
      }
    case 'not_started':
    case 'expired':
    case 'outside_timeframe':
    case 'outside_day_of_week':
    case 'outside_hours':
      return {
        code: 400,
        key: 'promotion_not_active_now',
        message: 'promotion not active now',
        details: `Promotion Tier with id: ${tierId} is not active now.`,
      }
    default: {
      const _never: never = reason
      return _never
    }
  }
}

/**
 * Campaign-level "no" (the campaign a voucher or tier belongs to). The interface names only
 * `campaign_not_active` (docs/errors.md#result-keys), so every reason maps to it; `details` says which check decided.
 */
export function campaignValidityError(reason: ValidityReason, campaignId: string): ValidityError {
  const why: Record<ValidityReason, string> = {
    disabled: 'is disabled',
    not_started: 'has not started yet',
    expired: 'has expired',
    outside_timeframe: 'is outside its timeframe',
    outside_day_of_week: 'is not active on this day of the week',
    outside_hours: 'is outside its validity hours',
  }
  return {
    code: 400,
    key: 'campaign_not_active',
    message: 'campaign not active',
    details: `Campaign with id: ${campaignId} ${why[reason]}.`,
  }
}

/**
 * A code's `expiration_date` once it is published in a campaign with `activity_duration_after_publishing`:
 * active for that long from its first publication (the timer is per code and starts then; a code not
 * yet published keeps its dates), never past an earlier expiration it already has. Republishing a
 * code does not restart the timer.
 */
export function expirationAfterPublishing(
  voucher: { expiration_date?: string | null; publish: { count: number } },
  duration: string | null | undefined,
  publishedAt: Date,
  timeZone: string,
): string | null {
  const current = voucher.expiration_date ?? null
  if (!duration || voucher.publish.count > 0) return current
  const end = addDuration(publishedAt, duration, timeZone)
  if (current !== null && Date.parse(current) <= end.getTime()) return current
  return end.toISOString()
}
