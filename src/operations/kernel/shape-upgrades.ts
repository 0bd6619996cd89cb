import type { AsyncAction } from '../../model/async-action'
import type { MemberTierState } from '../../model/loyalty'
import type { Redemption } from '../../model/redemption'
import { lastHeldDay } from '../../rules/tiers'
import { formatLocalDate, localDate } from '../../rules/zoned-calendar'

/**
 * Upgrades of stored values written by earlier versions of the engine, one function per collection
 * whose shape changed. Each takes what was stored (any earlier shape, or the current one) and returns
 * the current shape; the store's per-collection shape versions call them on read.
 */

/** Action types written before the hosted, upper-case names were adopted. */
const FORMER_ACTION_TYPES: Readonly<Record<string, string>> = {
  'vouchers.bulk_update': 'VOUCHERS.BULK_UPDATE',
  'loyalty.generate_cards': 'CAMPAIGN.VOUCHERS_GENERATE',
}

/**
 * `async_actions`, shape 1 → 2: the type takes its hosted name, `progress` is added (100 once run),
 * and a `result: null` of an action that has not run is dropped (the hosted response omits it).
 * A v1 bulk update's `results` list is left as it was: that report was complete in its own form.
 */
export function upgradeAsyncAction(
  value: AsyncAction | (Omit<AsyncAction, 'progress'> & { progress?: number }),
): AsyncAction {
  const ran = value.status === 'DONE' || value.status === 'FAILED'
  const { result, ...rest } = value
  return {
    ...rest,
    type: FORMER_ACTION_TYPES[value.type] ?? value.type,
    progress: value.progress ?? (ran ? 100 : 0),
    ...(result === null || result === undefined ? {} : { result }),
  }
}

type RedemptionV1 = Omit<Redemption, 'related_redemptions'> & {
  related_redemptions?: {
    rollbacks: NonNullable<Redemption['related_redemptions']>['rollbacks']
    redemptions: readonly (string | { id: string; date: string })[]
  }
}

/**
 * `redemptions`, shape 1 → 2: a stacked parent's `related_redemptions.redemptions` held bare child
 * ids; the hosted schema lists `{id, date}`. Children were written in the parent's commit, so the
 * parent's own date is theirs.
 */
export function upgradeRedemption(value: Redemption | RedemptionV1): Redemption {
  const related = value.related_redemptions
  if (related === undefined) return value as Redemption
  return {
    ...value,
    related_redemptions: {
      rollbacks: related.rollbacks,
      redemptions: related.redemptions.map((r) => (typeof r === 'string' ? { id: r, date: value.date } : r)),
    },
  } as Redemption
}

/**
 * `redemptions` shape 2 → 3, `redemption_rollbacks` 1 → 2: a record whose order is a stored order
 * refers to it (`order_ref`, joined in when read: `src/operations/shop/order-records.ts`) instead of holding
 * a copy. Records written before hold their own copy in `order`, which reads as it always did, so the
 * step leaves them as they are; the version tells which records may refer to an order.
 */
export function keepOrderCopy<T>(value: T): T {
  return value
}

/**
 * Optional objects a stored value used to hold as `null` and the hosted responses omit, per
 * collection (shape 1 → 2 of each): a program's tier expiration, an earning rule's own expiration
 * and pending-points rules, a program tier's member-only `expiration`, a validation rule's bundles.
 */
export const OMITTED_WHEN_NULL = {
  campaigns: ['loyalty_tiers_expiration'],
  earning_rules: ['expiration_rules', 'pending_points'],
  loyalty_tiers: ['expiration'],
  validation_rules: ['bundle_rules'],
} as const satisfies Record<string, readonly string[]>

/** Drops the collection's optional objects stored as `null` (see `OMITTED_WHEN_NULL`). */
export function dropNullOptionals<T extends object>(collection: keyof typeof OMITTED_WHEN_NULL, value: T): T {
  const keys: readonly string[] = OMITTED_WHEN_NULL[collection]
  if (!keys.some((k) => k in value && (value as Record<string, unknown>)[k] === null)) return value
  return Object.fromEntries(Object.entries(value).filter(([k, v]) => !(v === null && keys.includes(k)))) as T
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/

/**
 * `member_tiers`, shape 1 → 2: a member's tier dates were instants (`start_date` the instant the tier
 * started, `expiration_date` the local midnight after the last day held); they are now `YYYY-MM-DD`
 * dates in the engine's time zone (the first day in force, the last day held). A shape-1 expiry with
 * a clock part (a CUSTOM `extend` of hours) now holds to the end of that day.
 */
export function upgradeMemberTier(value: MemberTierState, timeZone: string): MemberTierState {
  const e = value.expiration
  if (e === null) return value
  const start = e.start_date === null || DATE_ONLY.test(e.start_date) ? e.start_date : day(e.start_date, timeZone)
  const end =
    e.expiration_date === null || DATE_ONLY.test(e.expiration_date)
      ? e.expiration_date
      : lastHeldDay(new Date(e.expiration_date), timeZone)
  if (start === e.start_date && end === e.expiration_date) return value
  return { ...value, expiration: { ...e, start_date: start, expiration_date: end } }
}

function day(instant: string, timeZone: string): string {
  return formatLocalDate(localDate(new Date(instant), timeZone))
}

/**
 * `vouchers`, shape 1 → 2 (docs/behaviour.md#gift-card-balance): a gift card's `subtracted_amount`
 * counted its spent credits too, which are `redemption.redeemed_amount`. It is recomputed from the
 * identity `balance = amount − subtracted_amount − redeemed_amount` rather than by taking the spent
 * credits off, because a shape-1 row keeps its shape through later increments (a redemption moves
 * `balance` and `redeemed_amount` together and leaves `subtracted_amount`), and the identity holds
 * through those while the stored `subtracted_amount` does not.
 */
export function upgradeGiftVoucher<
  T extends { gift?: { amount: number; balance: number; subtracted_amount?: number } | null; redemption?: object },
>(value: T): T {
  const gift = value.gift
  if (!gift) return value
  const redeemed = (value.redemption as { redeemed_amount?: number } | undefined)?.redeemed_amount ?? 0
  return { ...value, gift: { ...gift, subtracted_amount: Math.max(0, gift.amount - gift.balance - redeemed) } }
}
