import type {
  LoyaltyTier,
  LoyaltyTiersExpiration,
  MemberTierExpiration,
  PointsBucket,
  TierPeriod,
} from '../model/loyalty'
import { addDurationToDate, clockMillis, type Duration, parseDuration } from './duration'
import {
  addDays,
  daysInMonth,
  endOfDayExclusive,
  formatLocalDate,
  type LocalDate,
  localDate,
  nextPeriodFirstDay,
  parseLocalDate,
  periodBounds,
  periodFirstDay,
  periodLastDay,
  startOfDay,
} from './zoned-calendar'

/**
 * Tier qualification and tier transitions (docs/concepts.md#tiers, docs/behaviour.md#tiers).
 *
 * A member's tier dates are calendar dates in the project's time zone, `YYYY-MM-DD` as the hosted
 * API shows them: `start_date` is the first day in force, `expiration_date` the last day held; the
 * tier is held through the whole of that day and lapses at the next local midnight. The calculation
 * below works on instants (`tierDates`); `expirationObject` turns them into dates.
 */

export type TierRange = Pick<LoyaltyTier, 'id' | 'points'>

/**
 * The tier whose inclusive range `[from, to]` holds `points` (an open `to` has no ceiling).
 * When ranges overlap (a misconfiguration) the tier with the highest `from` wins.
 */
export function qualifyTier<T extends TierRange>(tiers: readonly T[], points: number): T | null {
  let best: T | null = null
  for (const tier of tiers) {
    const to = tier.points.to
    if (points < tier.points.from || (to !== null && to !== undefined && points > to)) continue
    if (best === null || tier.points.from > best.points.from) best = tier
  }
  return best
}

/**
 * The points around `points` over which `qualifyTier` gives the same tier: from the nearest range
 * edge at or below them to just before the nearest one above (`max` undefined: no edge above). A
 * commit that guards the points it leaves within them keeps a tier decided on them right.
 */
export function sameTierBounds(tiers: readonly TierRange[], points: number): { min?: number; max?: number } {
  let min: number | undefined
  let max: number | undefined
  for (const tier of tiers) {
    const to = tier.points.to
    for (const edge of [tier.points.from, to === null || to === undefined ? undefined : to + 1]) {
      if (edge === undefined) continue
      if (edge <= points) min = min === undefined ? edge : Math.max(min, edge)
      else max = max === undefined ? edge - 1 : Math.min(max, edge - 1)
    }
  }
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) }
}

/** What tier qualification reads of a ledger bucket. */
export type QualifyingBucket = Pick<PointsBucket, 'points' | 'created_at' | 'source'> & {
  status?: PointsBucket['status']
}

/** Points collected (credited) in the calendar period containing `now`; refunds are not collected. */
export function pointsInPeriod(
  buckets: readonly QualifyingBucket[],
  period: TierPeriod,
  now: Date,
  timeZone: string,
): number {
  const { start, end } = periodBounds(now, period, timeZone)
  const from = start.getTime()
  const to = end.getTime()
  let total = 0
  for (const b of buckets) {
    // Pending points count once active, in the period of their activation (`created_at`).
    if (b.source.type === 'rollback' || b.status === 'PENDING') continue
    const at = Date.parse(b.created_at)
    if (at >= from && at < to) total += b.points
  }
  return total
}

/** The points a tier qualification compares: the balance, or the points collected this period. */
export function qualifyingPoints(
  config: LoyaltyTiersExpiration | null | undefined,
  card: { balance: number; buckets: readonly QualifyingBucket[] },
  now: Date,
  timeZone: string,
): number {
  const type = config?.qualification_type ?? 'BALANCE'
  switch (type) {
    case 'BALANCE':
      return card.balance
    case 'POINTS_IN_PERIOD':
      return pointsInPeriod(card.buckets, config?.qualification_period ?? 'MONTH', now, timeZone)
    default: {
      const _never: never = type
      return _never
    }
  }
}

export type TierEventType =
  | 'customer.loyalty.tier.joined'
  | 'customer.loyalty.tier.left'
  | 'customer.loyalty.tier.upgraded'
  | 'customer.loyalty.tier.downgraded'
  | 'customer.loyalty.tier.prolonged'
  | 'customer.loyalty.tier.expiration.changed'

export interface TierEvent {
  type: TierEventType
  /** The tier a tier earning rule matches: the tier left for `left`, otherwise the tier reached. */
  tier_id: string
  from_tier_id: string | null
  to_tier_id: string | null
}

/** What a member holds: the tier, the tier in force before a deferred start, and its dates. */
export interface MemberTierStanding {
  tier_id: string | null
  previous_tier_id: string | null
  expiration: MemberTierExpiration | null
}

export interface TierTransitionInput {
  tiers: readonly TierRange[]
  config: LoyaltyTiersExpiration | null | undefined
  current: MemberTierStanding | null
  /** The qualifying points (see `qualifyingPoints`). */
  points: number
  now: Date
  timeZone: string
  customerId: string
  campaignId: string
  /**
   * Set when the program's tier rules changed ("Refresh tiers"): a kept tier takes the expiration
   * the new rules give, announced by `expiration.changed` (or `prolonged` when it moves later).
   */
  refresh?: boolean
}

export interface TierTransition {
  standing: MemberTierStanding
  events: TierEvent[]
  changed: boolean
}

/**
 * The member's next standing and the events it emits.
 *
 * - Without an expiring tier (`BALANCE_DROP`, the default) the tier always follows the points:
 *   up, down or out at once.
 * - With an expiring tier (`END_OF_PERIOD`, `END_OF_NEXT_PERIOD`, `CUSTOM`) a member moves up at
 *   once but keeps the tier until its `expiration_date`; once it has lapsed the tier follows the
 *   points again (a member who still qualifies for it is `prolonged` with fresh dates). Under
 *   `POINTS_IN_PERIOD`, qualifying again for the held tier prolongs it when the fresh expiration is
 *   later (earning in April under `END_OF_NEXT_PERIOD` carries the tier to the end of May).
 * - `NEXT_PERIOD` defers the start of a tier reached by qualifying (joined or upgraded) to the next
 *   qualification period; the tier held before stays in force until then (`previous_tier_id`).
 *   Downgrades and prolongations take effect at once.
 * - Each real move emits exactly one event (see `moveEvent`): `joined` when the member enters the
 *   tier structure for the first time, `upgraded`/`downgraded` for a later move between tiers, `left`
 *   when the member drops out of every tier.
 */
export function transitionTier(input: TierTransitionInput): TierTransition {
  const { tiers, now, current } = input
  const t = now.getTime()
  const rank = new Map(tiers.map((tier) => [tier.id, tier.points.from]))
  const expiresType = input.config?.expiration_date?.type ?? 'BALANCE_DROP'
  const qualification = input.config?.qualification_type ?? 'BALANCE'

  const held = current?.tier_id ?? null
  const oldExpiration = current?.expiration ?? null
  const heldExpiresAt =
    oldExpiration?.expiration_date == null ? null : lapseInstant(oldExpiration.expiration_date, input.timeZone)
  const heldKnown = held !== null && rank.has(held)
  // A removed tier is lost at once; an expired one is re-evaluated.
  const heldLapsed = held !== null && (!heldKnown || (heldExpiresAt !== null && t >= heldExpiresAt))
  const target = qualifyTier(tiers, input.points)?.id ?? null

  const unchanged: TierTransition = {
    standing: current ?? { tier_id: null, previous_tier_id: null, expiration: null },
    events: [],
    changed: false,
  }

  let next: string | null
  if (expiresType === 'BALANCE_DROP' || held === null || heldLapsed) next = target
  else if (target !== null && (rank.get(target) ?? 0) > (rank.get(held) ?? 0)) next = target
  else next = held

  if (next === null) {
    if (held === null) return unchanged
    return {
      standing: { tier_id: null, previous_tier_id: null, expiration: null },
      events: [{ type: 'customer.loyalty.tier.left', tier_id: held, from_tier_id: held, to_tier_id: null }],
      changed: true,
    }
  }

  if (next === held) {
    // Same tier: keep it, or prolong / re-date it.
    const fresh = tierDates(input, now, 'IMMEDIATE')
    const oldEnd = heldExpiresAt
    // Compared as the dates they are stored as (a clock part in `extend` holds the whole day).
    const freshEnd =
      fresh.expiration === null ? null : lapseInstant(lastHeldDay(fresh.expiration, input.timeZone), input.timeZone)
    const later = freshEnd !== null && oldEnd !== null && freshEnd > oldEnd
    let type: TierEventType | null = null
    if (heldLapsed) type = 'customer.loyalty.tier.prolonged'
    else if (input.refresh === true && freshEnd !== oldEnd)
      type = later ? 'customer.loyalty.tier.prolonged' : 'customer.loyalty.tier.expiration.changed'
    else if (qualification === 'POINTS_IN_PERIOD' && later) type = 'customer.loyalty.tier.prolonged'
    if (type === null) return unchanged
    const today = formatLocalDate(localDate(now, input.timeZone))
    const startDate = heldLapsed ? today : (oldExpiration?.start_date ?? today)
    return {
      standing: {
        tier_id: held,
        previous_tier_id: null,
        expiration: expirationObject(input, held, oldExpiration?.created_at ?? now.toISOString(), startDate, fresh),
      },
      events: [{ type, tier_id: held, from_tier_id: held, to_tier_id: held }],
      changed: true,
    }
  }

  // A move to another tier.
  const from = held
  const up = from === null || !heldKnown ? null : (rank.get(next) ?? 0) > (rank.get(from) ?? 0)
  const startType = up === false ? 'IMMEDIATE' : (input.config?.start_date?.type ?? 'IMMEDIATE')
  const dates = tierDates(input, now, startType)
  const events: TierEvent[] = [{ type: moveEvent(current, up), tier_id: next, from_tier_id: from, to_tier_id: next }]
  const deferred = dates.start.getTime() > t
  return {
    standing: {
      tier_id: next,
      // Until a deferred start the member keeps what was in force, unless that has lapsed.
      previous_tier_id: deferred && !heldLapsed ? effectiveTierId(current, now, input.timeZone) : null,
      expiration: expirationObject(
        input,
        next,
        now.toISOString(),
        formatLocalDate(localDate(dates.start, input.timeZone)),
        dates,
      ),
    },
    events,
    changed: true,
  }
}

/**
 * The one event of a move into a tier. `joined` only for a member who never held a standing in the
 * program (no stored standing yet), so "joined tier structure" earning rules fire once per member. A
 * member re-entering after dropping out of every tier moves up (`upgraded`); so does a member whose
 * tier was deleted from the program, whose rank is no longer known.
 */
function moveEvent(current: MemberTierStanding | null, up: boolean | null): TierEventType {
  if (current === null) return 'customer.loyalty.tier.joined'
  return up === false ? 'customer.loyalty.tier.downgraded' : 'customer.loyalty.tier.upgraded'
}

/** The tier in force at `now`: before a deferred start (local midnight of `start_date`), the previous tier. */
export function effectiveTierId(
  standing: MemberTierStanding | null | undefined,
  now: Date,
  timeZone: string,
): string | null {
  if (standing === null || standing === undefined) return null
  const start = standing.expiration?.start_date
  if (start != null && startOfDay(parseLocalDate(start), timeZone).getTime() > now.getTime()) {
    return standing.previous_tier_id
  }
  return standing.tier_id
}

/** The last day a tier whose hold ends at `exclusiveEnd` is held, `YYYY-MM-DD` in `timeZone`. */
export function lastHeldDay(exclusiveEnd: Date, timeZone: string): string {
  return formatLocalDate(localDate(new Date(exclusiveEnd.getTime() - 1), timeZone))
}

/** When a tier held through `expirationDate` (`YYYY-MM-DD`) lapses: the next local midnight. */
export function lapseInstant(expirationDate: string, timeZone: string): number {
  return endOfDayExclusive(parseLocalDate(expirationDate), timeZone).getTime()
}

function expirationObject(
  input: TierTransitionInput,
  tierId: string,
  createdAt: string,
  startDate: string,
  dates: { expiration: Date | null },
): MemberTierExpiration {
  return {
    customer_id: input.customerId,
    campaign_id: input.campaignId,
    tier_id: tierId,
    created_at: createdAt,
    start_date: startDate,
    expiration_date: dates.expiration === null ? null : lastHeldDay(dates.expiration, input.timeZone),
    updated_at: input.now.toISOString(),
  }
}

/**
 * Start and expiration of a tier reached at `now` (docs/behaviour.md#tiers: reached 10 March, monthly periods →
 * IMMEDIATE from 10 March, NEXT_PERIOD from 1 April; END_OF_PERIOD until the end of 31 March,
 * END_OF_NEXT_PERIOD until the end of 30 April, `extend: P7D` on END_OF_PERIOD until the end of
 * 7 April).
 *
 * The periods are counted from the tier's start day (with NEXT_PERIOD, END_OF_PERIOD is the end of
 * the period the tier starts in). `CUSTOM` keeps the tier for `extend` from its start day (reached
 * 20 July with `P30D` → held until 20 August 00:00), then `rounding` moves the last day to the end
 * (`END`) or the start (`START`) of its month/quarter/half year/year, or of the month `value`
 * (0 = January) for `type: CUSTOM`. BALANCE qualification has no period: MONTH is used.
 */
export function tierDates(
  input: Pick<TierTransitionInput, 'config' | 'timeZone'>,
  now: Date,
  startType: 'IMMEDIATE' | 'NEXT_PERIOD',
): { start: Date; expiration: Date | null } {
  const { config, timeZone } = input
  const period = config?.qualification_period ?? 'MONTH'
  const today = localDate(now, timeZone)
  const startDay = startType === 'IMMEDIATE' ? today : nextPeriodFirstDay(today, period)
  const start = startType === 'IMMEDIATE' ? now : startOfDay(startDay, timeZone)
  const exp = config?.expiration_date
  const extend = exp?.extend === undefined ? null : parseExtend(exp.extend)
  const type = exp?.type ?? 'BALANCE_DROP'
  switch (type) {
    case 'BALANCE_DROP':
      return { start, expiration: null }
    case 'END_OF_PERIOD':
      return { start, expiration: endAfter(periodLastDay(startDay, period), extend, timeZone) }
    case 'END_OF_NEXT_PERIOD': {
      const nextLast = periodLastDay(nextPeriodFirstDay(startDay, period), period)
      return { start, expiration: endAfter(nextLast, extend, timeZone) }
    }
    case 'CUSTOM': {
      const lastDay = extend === null ? startDay : addDays(addDurationToDate(startDay, extend), -1)
      const rounding = exp?.rounding
      if (rounding === undefined) return { start, expiration: withClock(endOfDayExclusive(lastDay, timeZone), extend) }
      return { start, expiration: roundTierEnd(lastDay, rounding, timeZone) }
    }
    default: {
      const _never: never = type
      return _never
    }
  }
}

type Rounding = NonNullable<NonNullable<LoyaltyTiersExpiration['expiration_date']>['rounding']>

function roundTierEnd(lastDay: LocalDate, rounding: Rounding, timeZone: string): Date {
  let first: LocalDate
  let last: LocalDate
  if (rounding.type === 'CUSTOM') {
    const index = rounding.value ?? 0
    if (!Number.isSafeInteger(index) || index < 0 || index > 11) {
      throw new RangeError(`tier rounding value must be 0 (January) to 11 (December), got ${index}`)
    }
    const month = index + 1
    if (rounding.strategy === 'END') {
      const year = month >= lastDay.month ? lastDay.year : lastDay.year + 1
      last = { year, month, day: daysInMonth(year, month) }
      return endOfDayExclusive(last, timeZone)
    }
    const year = month <= lastDay.month ? lastDay.year : lastDay.year - 1
    first = { year, month, day: 1 }
    return startOfDay(first, timeZone)
  }
  if (rounding.strategy === 'END') return endOfDayExclusive(periodLastDay(lastDay, rounding.type), timeZone)
  return startOfDay(periodFirstDay(lastDay, rounding.type), timeZone)
}

function endAfter(lastDay: LocalDate, extend: Duration | null, timeZone: string): Date {
  const day = extend === null ? lastDay : addDurationToDate(lastDay, extend)
  return withClock(endOfDayExclusive(day, timeZone), extend)
}

function withClock(instant: Date, extend: Duration | null): Date {
  const millis = extend === null ? 0 : clockMillis(extend)
  return millis === 0 ? instant : new Date(instant.getTime() + millis)
}

function parseExtend(text: string): Duration {
  try {
    return parseDuration(text)
  } catch {
    throw new RangeError(`tier expiration extend must be an ISO 8601 duration such as P3M, got ${text}`)
  }
}
