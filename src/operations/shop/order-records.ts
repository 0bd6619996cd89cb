import type { Order } from '../../model/order'
import type { OrderRef, Redemption, RedemptionRollback, StoredRedemption, StoredRollback } from '../../model/redemption'
import { mayBeReferred, snapshotId, withOrderJoined } from '../../rules/order-refs'
import type { Store, Stored } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'
import { countOrderInSummary } from './summary-counters'

/*
 * The orders of stored redemptions and rollbacks (docs/storage.md#what-a-redemption-stores): joined in
 * when they are read, kept when a write replaces the version they refer to.
 */

/** Snapshots written by each attempt, so a second write of one order in it keeps the first version once. */
const kept = new WeakMap<Tx, Set<string>>()

/**
 * Writes the next version of a stored order. The version it replaces is kept in `order_snapshots`
 * first when a redemption or rollback may refer to it (`mayBeReferred`).
 */
export function updateOrder(tx: Tx, stored: Stored<Order>, next: Order): Order {
  if (mayBeReferred(stored.value)) {
    const id = snapshotId(stored.value.id, stored.version)
    let ids = kept.get(tx)
    if (!ids) {
      ids = new Set()
      kept.set(tx, ids)
    }
    if (!ids.has(id)) {
      ids.add(id)
      tx.insert('order_snapshots', { id, order: stored.value })
    }
  }
  // The order is written at the version it read: its move into or out of the summary counts once.
  countOrderInSummary(tx, stored.value, next)
  return tx.update('orders', stored, next)
}

/** Writes a new order (and counts it in its customer's summary when it is paid). */
export function insertOrder(tx: Tx, order: Order): Order {
  countOrderInSummary(tx, undefined, order)
  return tx.insert('orders', order)
}

/** The version of an order after the commit that writes it once more (an insert gives 1, each put adds one). */
export function versionAfterWrite(stored: Stored<Order> | undefined): number {
  return (stored?.version ?? 0) + 1
}

/** Stored orders by version (`<id>@<version>`, `snapshotId`): what references name. */
export type OrdersByVersion = ReadonlyMap<string, Order>

/**
 * The stored orders `refs` name, at the versions they name, beside those in `known`: one batched read
 * of the orders, and one of the kept versions for the orders that moved on since.
 */
export async function ordersByVersion(
  store: Store,
  refs: readonly OrderRef[],
  known: OrdersByVersion = new Map(),
): Promise<OrdersByVersion> {
  const wanted = refs.filter((r) => !known.has(snapshotId(r.id, r.version)))
  if (wanted.length === 0) return known
  const found = new Map(known)
  const live = new Map<string, Stored<Order>>()
  for (const s of await store.orders.getMany([...new Set(wanted.map((r) => r.id))])) live.set(s.value.id, s)
  const older = new Set<string>()
  for (const r of wanted) {
    const current = live.get(r.id)
    if (current?.version === r.version) found.set(snapshotId(r.id, r.version), current.value)
    else older.add(snapshotId(r.id, r.version))
  }
  if (older.size > 0) {
    for (const s of await store.order_snapshots.getMany([...older])) found.set(s.value.id, s.value.order)
  }
  return found
}

/**
 * Stored redemptions or rollbacks as the interface shows them, their orders joined in
 * (`ordersByVersion`: the orders `known` holds are not read again). A list of any length costs at
 * most two reads more, never one per record.
 */
export async function withOrders(
  store: Store,
  records: readonly StoredRedemption[],
  known?: OrdersByVersion,
): Promise<Redemption[]>
export async function withOrders(
  store: Store,
  records: readonly StoredRollback[],
  known?: OrdersByVersion,
): Promise<RedemptionRollback[]>
export async function withOrders(
  store: Store,
  records: readonly (StoredRedemption | StoredRollback)[],
  known?: OrdersByVersion,
): Promise<(Redemption | RedemptionRollback)[]> {
  const refs: OrderRef[] = []
  for (const r of records) if (r.order_ref) refs.push(r.order_ref)
  if (refs.length === 0) return [...records]
  const orders = await ordersByVersion(store, refs, known)
  const orderAt = (ref: OrderRef): Order | undefined => orders.get(snapshotId(ref.id, ref.version))
  return records.map((r) => withOrderJoined<Redemption | RedemptionRollback>(r, orderAt))
}

/** One stored redemption with its order joined in. */
export async function withOrder(store: Store, record: StoredRedemption): Promise<Redemption> {
  return (await withOrders(store, [record]))[0] as Redemption
}
