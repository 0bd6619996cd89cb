import type { Customer } from '../../model/customer'
import type { CalculatedOrder } from '../../model/order'
import type { Redemption } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import { addPending, type CounterScope, type CounterWrite, counterIds, counterWrites } from '../../rules/counters'
import type { Collections } from '../../rules/discounts'
import {
  countUnitsUsed,
  hasUnitBudget,
  type RedeemableSubject,
  targetingOf,
  type UnitBudgetUse,
} from '../../rules/redeemables'
import type { Counter, Store, Write } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'
import { withOrders } from '../shop/order-records'

/** The counter rows of the given scopes (docs/storage.md#counters), read in one batch. */
export async function loadCounters(
  store: Store,
  scopes: readonly CounterScope[],
  now: Date,
  timeZone: string,
): Promise<Map<string, Counter>> {
  // One scope's ids are distinct already; redeemables of one campaign share its rows.
  const ids =
    scopes.length === 1
      ? counterIds(scopes[0] as CounterScope, now, timeZone)
      : [...new Set(scopes.flatMap((scope) => counterIds(scope, now, timeZone)))]
  const rows = ids.length === 0 ? [] : await store.counters.getMany(ids)
  const out = new Map<string, Counter>()
  for (const r of rows) out.set(r.value.id, r.value)
  return out
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
      : (await store.redemptions.list({ where, count: false })).data
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
export function applyCounterWrites(tx: Tx, writes: readonly CounterWrite[]): Write[] {
  const from = tx.writes.length
  for (const w of writes) tx.increment('counters', w.id, w.by, { create: {}, ...(w.guard ? { guard: w.guard } : {}) })
  return tx.writes.slice(from)
}

type CountInput = Omit<Parameters<typeof counterWrites>[0], 'pending' | 'before'>

/** What each attempt's redemptions were counted from, and the writes that counted them. */
const counted = new WeakMap<Tx, { inputs: CountInput[]; writes: Write[] }>()

/**
 * Counts one redeemable's redemption in its counter rows (`counterWrites`, read as `before`), after
 * those of the same request already counted (`pending`). What it was counted from is kept, so the
 * same redemption can be counted again on other stored values (`recountedWrites`).
 */
export function countRedemption(
  tx: Tx,
  input: CountInput,
  before: ReadonlyMap<string, Counter>,
  pending: Map<string, Record<string, number>>,
): void {
  const writes = counterWrites({ ...input, before, pending })
  const record = counted.get(tx) ?? { inputs: [], writes: [] }
  counted.set(tx, record)
  record.inputs.push(input)
  record.writes.push(...applyCounterWrites(tx, writes))
  addPending(pending, writes)
}

/**
 * The attempt's writes with its redemptions counted again as if the counter rows read were `rows`
 * (docs/storage.md#alternatives): where a customer's first redemption in a campaign turns out not to
 * be the first, the distinct-customer rows are not bumped and the guards say so.
 */
export function recountedWrites(tx: Tx, rows: ReadonlyMap<string, Counter>): Write[] {
  const record = counted.get(tx)
  const writes = tx.changeset()
  if (!record) return writes
  const old = new Set(record.writes)
  const pending = new Map<string, Record<string, number>>()
  const probe = tx.fork([])
  for (const input of record.inputs) {
    const again = counterWrites({ ...input, before: rows, pending })
    applyCounterWrites(probe, again)
    addPending(pending, again)
  }
  probe.release()
  // The recount takes the place of the first counter write; the others go.
  const at = writes.findIndex((w) => old.has(w))
  return [
    ...writes.slice(0, at).filter((w) => !old.has(w)),
    ...probe.writes,
    ...writes.slice(at).filter((w) => !old.has(w)),
  ]
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
