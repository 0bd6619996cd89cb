import type { Customer } from '../../model/customer'
import type { CalculatedOrder, CalculatedOrderItem } from '../../model/order'
import type { Redemption } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import { addPending, type CounterScope, type CounterWrite, counterIds, counterWrites } from '../../rules/counters'
import type { Collections } from '../../rules/discounts'
import {
  hasUnitBudget,
  type RedeemableSubject,
  targetingOf,
  type UnitBudgetsUsed,
  unitCounterIds,
  unitCounterWrites,
  unitScopeOf,
  withUnits,
} from '../../rules/redeemables'
import type { Counter, Store, Write } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'

/** The ids of the counter rows of the given scopes (docs/storage.md#counters), each once. */
export function counterRowIds(scopes: readonly CounterScope[]): string[] {
  // One scope's ids are distinct already; redeemables of one campaign share its rows.
  return scopes.length === 1
    ? counterIds(scopes[0] as CounterScope)
    : [...new Set(scopes.flatMap((scope) => counterIds(scope)))]
}

/** Counter rows by id, in one batch. */
export async function readCounters(store: Store, ids: readonly string[]): Promise<Map<string, Counter>> {
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
 * The counter rows of the subjects' unit budgets (docs/storage.md#counters), in one batch, set on each
 * subject that has a budget (`unit_counters`). Nothing is read when no entry has one.
 */
export async function loadUnitCounters(
  store: Store,
  subjects: readonly RedeemableSubject[],
  customer: Customer | undefined,
  order: CalculatedOrder,
  collections: Collections,
): Promise<void> {
  const wanted: { subject: RedeemableSubject; ids: string[] }[] = []
  for (const subject of subjects) {
    const included = targetingOf(subject)?.included ?? []
    if (!included.some(hasUnitBudget)) continue
    const scope = unitScopeOf(subject, customer?.id ?? null)
    if (scope === null) continue
    wanted.push({ subject, ids: unitCounterIds(included, scope, order.items, collections) })
  }
  if (wanted.length === 0) return
  const ids = [...new Set(wanted.flatMap((w) => w.ids))]
  const rows = new Map((await store.counters.getMany(ids)).map((r) => [r.value.id, r.value]))
  // A row not made yet counts 0; listing it says which rows the decision read (docs/storage.md#alternatives).
  for (const id of ids) if (!rows.has(id)) rows.set(id, { id })
  for (const { subject } of wanted) subject.unit_counters = rows
}

/**
 * Counts one redemption's units in its unit budget rows, guarded by the limits it decided on; returns
 * what it added, by row id, for the child redemption to keep (a rollback gives exactly that back).
 */
export function countUnits(
  tx: Tx,
  subject: RedeemableSubject,
  customer: Customer | undefined,
  items: readonly CalculatedOrderItem[],
  collections: Collections,
  used: UnitBudgetsUsed,
): Record<string, number> | undefined {
  const scope = unitScopeOf(subject, customer?.id ?? null)
  if (scope === null) return undefined
  const included = targetingOf(subject)?.included ?? []
  const writes = unitCounterWrites(included, scope, withUnits(items, used.units), collections, used.limits)
  applyCounterWrites(tx, writes)
  return Object.fromEntries(writes.map((w) => [w.id, w.by.count as number]))
}

/** Writes counter increments (docs/storage.md#counters): created on first use, guarded as the decision needs. */
export function applyCounterWrites(tx: Tx, writes: readonly CounterWrite[]): Write[] {
  const from = tx.writes.length
  for (const w of writes)
    tx.increment('counters', w.id, w.by, {
      create: {},
      ...(w.guard ? { guard: w.guard } : {}),
      ...(w.unset ? { unset: w.unset } : {}),
    })
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
 * Takes rolled-back redemptions out of their counters, in the periods they were counted in (those the
 * rows still hold), and their
 * units out of the unit budget rows they were counted in (`unit_counts`). Reads
 * the customers' campaign counters first (one batch): a customer whose last redemption in the
 * campaign goes is no longer a distinct customer of it.
 */
export async function uncountRedemptions(tx: Tx, children: readonly Redemption[]): Promise<void> {
  const counted = children.filter((c) => c.result === 'SUCCESS' && c.status !== 'ROLLED_BACK')
  const timeZone = tx.ctx.config.timezone
  const scoped = counted.map((child) => ({ child, scope: scopeOfRedemption(child), at: new Date(child.date) }))
  const ids = new Set(scoped.flatMap(({ scope }) => counterIds(scope)))
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
  // The units counted in unit budget rows, given back as they were counted.
  for (const child of counted) {
    for (const [id, units] of Object.entries(child.unit_counts ?? {}))
      tx.increment('counters', id, { count: -units }, { create: {} })
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
