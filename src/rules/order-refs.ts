import type { CalculatedOrder, Order } from '../model/order'
import type { OrderRef } from '../model/redemption'
import { applyJsonDiff, jsonDiff } from './json-diff'

/*
 * Redemptions and rollbacks refer to the stored order instead of copying it
 * (docs/storage.md#what-a-redemption-stores). A record names the order's id and the version its own
 * commit left; a child of a stacked redemption adds the difference from that order to its own (the
 * order as it stood after its redeemable). A later write of the order keeps the version it replaces
 * under `<id>@<version>` when a record may refer to it, so every record reads as it was written.
 */

/** Where the order as it stood at `version` is kept once a later write replaces it. */
export function snapshotId(orderId: string, version: number): string {
  return `${orderId}@${version}`
}

/**
 * Whether a redemption or a rollback may refer to this version of the order: the commit that wrote it
 * recorded a redemption on it (`redemptions[…].date`) or a rollback (`rollback_date`) at the time of
 * its last write. Writers keep a snapshot of a version for which this holds before replacing it; a
 * record refers to a version only when it holds, so no version a record names is lost. A "yes" for a
 * version nobody refers to (a write in the same millisecond as a redemption) only costs a snapshot.
 */
export function mayBeReferred(order: Order): boolean {
  const written = order.updated_at ?? order.created_at
  for (const entry of Object.values(order.redemptions ?? {})) {
    if (entry.date === written || entry.rollback_date === written) return true
  }
  return false
}

/**
 * The reference a record stores for its order `own`, written in the same commit as version `version`
 * of the stored `order`: undefined (the record keeps its copy) when that version is not one records
 * may refer to.
 */
export function orderRefFor(order: Order, version: number, own: CalculatedOrder): OrderRef | undefined {
  if (!mayBeReferred(order)) return undefined
  const diff = own === order ? undefined : jsonDiff(order, own)
  return diff === undefined ? { id: order.id, version } : { id: order.id, version, diff }
}

/** The record's order, from the stored order at the version its reference names. */
export function orderOfRef(stored: Order, ref: OrderRef): CalculatedOrder {
  return ref.diff === undefined ? stored : (applyJsonDiff(stored, ref.diff) as CalculatedOrder)
}

/**
 * A record as it is stored: its order replaced by a reference to version `version` of the stored
 * `order` written in the same commit. A record without an order, or whose order cannot be referred to
 * (see `mayBeReferred`), is stored as it is.
 */
export function withOrderRef<R extends { order?: CalculatedOrder | null }>(
  record: R,
  order: Order,
  version: number,
): R & { order_ref?: OrderRef } {
  if (!record.order) return record
  const ref = orderRefFor(order, version, record.order)
  return ref ? (renamed(record, 'order', 'order_ref', ref) as R & { order_ref?: OrderRef }) : record
}

/**
 * A stored record with its order joined in (`order_ref` gives way to `order`): the wire shape.
 * `orderAt` finds the stored order a reference names.
 */
export function withOrderJoined<R extends { order?: CalculatedOrder | null }>(
  record: R & { order_ref?: OrderRef },
  orderAt: (ref: OrderRef) => Order | undefined,
): R {
  const ref = record.order_ref
  if (ref === undefined) return record
  const stored = orderAt(ref)
  if (stored === undefined) {
    throw new Error(
      `The stored order ${ref.id} at version ${ref.version} is missing (docs/storage.md#what-a-redemption-stores)`,
    )
  }
  return renamed(record, 'order_ref', 'order', orderOfRef(stored, ref)) as R
}

/** `record` with the field `from` replaced by `to` set to `value`, where `from` stood (the wire keeps its field order). */
function renamed(record: object, from: string, to: string, value: unknown): object {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(record)) {
    if (k === from) out[to] = value
    else out[k] = v
  }
  return out
}
