import type { Customer } from '../../model/customer'
import type { CalculatedOrder } from '../../model/order'
import type { Redemption } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import type { Counter, Store } from '../../ports'
import { addPending, type CounterScope, type CounterWrite, counterIds, counterWrites } from '../../rules/counters'
import type { Collections } from '../../rules/discounts'
import {
  countUnitsUsed,
  hasUnitBudget,
  type RedeemableSubject,
  targetingOf,
  type UnitBudgetUse,
} from '../../rules/redeemables'
import type { Tx } from '../context'
import { withOrders } from '../stored-orders'

/** The counter rows of the given scopes (docs/storage.md#counters), read in one batch. */
export async function loadCounters(
  store: Store,
  scopes: readonly CounterScope[],
  now: Date,
  timeZone: string,
): Promise<Map<string, Counter>> {
  const ids = new Set(scopes.flatMap((scope) => counterIds(scope, now, timeZone)))
  const rows = ids.size === 0 ? [] : await store.counters.getMany([...ids])
  return new Map(rows.map((r) => [r.value.id, r.value]))
}

/** What a subject's redemption counts for, or null when the request names nothing stored. */
export function counterScope(subject: RedeemableSubject, customer: Customer | undefined): CounterScope | null {
  const redeemableId = subject.tier?.id ?? subject.voucher?.id
  if (redeemableId === undefined) return null
  return {
    redeemableId,
    campaignId: subject.tier?.campaign_id ?? subject.voucher?.campaign_id ?? null,
    customerId: customer?.id ?? null,
  }
}

/**
 * Units the redeemable's targeting entries have used of their unit budgets (docs/concepts.md#targeting), from the
 * successful, not rolled back child redemptions of its campaign (a code without a campaign: of the
 * code). Undefined, and nothing read, when no entry has a budget.
 */
export async function unitBudgetsFor(
  store: Store,
  subject: RedeemableSubject,
  customer: Customer | undefined,
  collections: Collections,
): Promise<(UnitBudgetUse | undefined)[] | undefined> {
  const included = targetingOf(subject)?.included ?? []
  if (!included.some(hasUnitBudget)) return undefined
  const campaignId = subject.campaign?.id ?? subject.tier?.campaign_id
  const where = campaignId
    ? { related_object_parent_id: campaignId }
    : subject.voucher
      ? { related_object_id: subject.voucher.id }
      : undefined
  const counted =
    where === undefined
      ? []
      : (await store.redemptions.list({ where })).data
          .map((s) => s.value)
          .filter((r) => r.result === 'SUCCESS' && r.status !== 'ROLLED_BACK' && r.redemption !== null)
  const past = (await withOrders(store, counted)).map((r) => ({
    customer_id: r.customer_id,
    related_object_id: r.related_object_id,
    items: r.order?.items ?? [],
  }))
  return countUnitsUsed(
    included,
    past,
    { tier_id: subject.tier?.id ?? null, customer_id: customer?.id ?? null },
    collections,
  )
}

/** Writes counter increments (docs/storage.md#counters): created on first use, guarded as the decision needs. */
export function applyCounterWrites(tx: Tx, writes: readonly CounterWrite[]): void {
  for (const w of writes) tx.increment('counters', w.id, w.by, { create: {}, ...(w.guard ? { guard: w.guard } : {}) })
}

/**
 * Takes rolled-back redemptions out of their counters, in the periods they were counted in. Reads
 * the customers' campaign counters first (one batch): a customer whose last redemption in the
 * campaign goes is no longer a distinct customer of it.
 */
export async function uncountRedemptions(tx: Tx, children: readonly Redemption[]): Promise<void> {
  const counted = children.filter((c) => c.result === 'SUCCESS' && c.status !== 'ROLLED_BACK')
  const timeZone = tx.ctx.config.timezone
  const scoped = counted.map((child) => ({ child, scope: scopeOfRedemption(child), at: new Date(child.date) }))
  const ids = new Set(scoped.flatMap(({ scope, at }) => counterIds(scope, at, timeZone)))
  const rows = new Map((await tx.store.counters.getMany([...ids])).map((r) => [r.value.id, r.value]))
  const pending = new Map<string, Record<string, number>>()
  for (const { child, scope, at } of scoped) {
    const writes = counterWrites({
      scope,
      at,
      timeZone,
      before: rows,
      orderAmount: child.order?.amount ?? 0,
      discount: child.order?.total_applied_discount_amount ?? 0,
      sign: -1,
      pending,
    })
    applyCounterWrites(tx, writes)
    addPending(pending, writes)
  }
}

function scopeOfRedemption(r: Redemption): CounterScope {
  return {
    redeemableId: r.related_object_id,
    campaignId: r.related_object_parent_id ?? null,
    customerId: r.customer_id,
  }
}

/**
 * What one redemption of a tier adds to its `summary.orders`: the order as the tier left it (the
 * child redemption's order) and the discount the tier gave. A rollback takes back exactly this, from
 * the same order read back.
 */
export function tierShare(order: CalculatedOrder | null | undefined): { amount: number; discount: number } {
  return { amount: order?.amount ?? 0, discount: order?.total_applied_discount_amount ?? 0 }
}

/** A discount code without a quantity limit: no check depends on its counters. */
export function isUnlimitedCoupon(voucher: Voucher): boolean {
  return voucher.type === 'DISCOUNT_VOUCHER' && voucher.redemption.quantity === null
}
