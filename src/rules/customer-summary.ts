import type { CustomerSummary } from '../model/customer'
import type { Order } from '../model/order'
import { divRound } from '../money'
import type { Counter } from '../storage/collections'

/*
 * A customer's `summary` (docs/behaviour.md#customer-summary): what the hosted customer object
 * shows of its redemptions and orders, kept in one counter row per customer (`cs:<customer id>`, in
 * `counters`, docs/storage.md#counters) that the commits recording a redemption, a rollback or an
 * order's status increment. Orders count only while PAID or FULFILLED. The fields of the row:
 */

/** The numbers of a summary row, each moved by increments. */
export const SUMMARY_FIELDS = [
  'redeemed',
  'failed',
  'succeeded',
  'rolled_back',
  'rollback_failed',
  'rollback_succeeded',
  'gift_redeemed',
  'points_redeemed',
  'orders',
  'orders_amount',
  'orders_discount',
] as const
export type SummaryField = (typeof SUMMARY_FIELDS)[number]
export type SummaryFigures = Partial<Record<SummaryField, number>>

/** The counter row holding a customer's summary. */
export const summaryRowId = (customerId: string): string => `cs:${customerId}`

/** Set on a row the backfill computed from the stored history; rows without it count only what came after. */
export const BACKFILLED = 'backfilled'

/** What a stored redemption or rollback record says, as far as the summary reads it. */
export interface SummaryRecord {
  result: 'SUCCESS' | 'FAILURE'
  related_object_type: string
  gift?: { amount: number } | undefined
  loyalty_card?: { points: number } | undefined
}

/** A stacked parent groups its children: the children (and single redemptions) are what count. */
const groups = (r: SummaryRecord) =>
  r.related_object_type === 'redemption' || r.related_object_type === 'promotion_stack'

/** What recording a redemption adds: a failed one counts as failed, a successful one with its credits and points. */
export function redemptionFigures(r: SummaryRecord): SummaryFigures {
  if (r.result === 'FAILURE') return groups(r) ? {} : { redeemed: 1, failed: 1 }
  if (groups(r)) return {}
  return {
    redeemed: 1,
    succeeded: 1,
    ...(r.gift ? { gift_redeemed: r.gift.amount } : {}),
    ...(r.loyalty_card ? { points_redeemed: r.loyalty_card.points } : {}),
  }
}

/**
 * What recording a rollback adds: every refused rollback counts as failed; a successful one of a code
 * or tier as succeeded, its (negated) credits and points taking the redeemed ones back.
 */
export function rollbackFigures(rb: SummaryRecord): SummaryFigures {
  if (rb.result === 'FAILURE') return { rolled_back: 1, rollback_failed: 1 }
  if (groups(rb)) return {}
  return {
    rolled_back: 1,
    rollback_succeeded: 1,
    ...(rb.gift ? { gift_redeemed: rb.gift.amount } : {}),
    ...(rb.loyalty_card ? { points_redeemed: rb.loyalty_card.points } : {}),
  }
}

/** Orders count in the summary only while PAID or FULFILLED (hosted `CustomerSummaryOrders`). */
export const countsInSummary = (o: Pick<Order, 'status' | 'customer_id'>): boolean =>
  o.customer_id != null && (o.status === 'PAID' || o.status === 'FULFILLED')

function orderFigures(o: Order): SummaryFigures {
  return { orders: 1, orders_amount: o.total_amount ?? 0, orders_discount: o.total_discount_amount ?? 0 }
}

/** One increment of a summary row. */
export interface SummaryWrite {
  customerId: string
  by: SummaryFigures
}

function minus(f: SummaryFigures): SummaryFigures {
  const out: SummaryFigures = {}
  for (const [k, n] of Object.entries(f)) out[k as SummaryField] = -(n as number)
  return out
}

/**
 * The summary increments of writing an order whose stored version was `prev` (none for a new order):
 * it leaves the figures of its former customer when it stops counting (or changes customer or
 * amounts), and enters its customer's when it starts. Run in the commit that writes the order at the
 * version it read, so a status change moves it exactly once. The last order is not kept here: it is
 * read from the customer's orders (`latestCountedOrder`), so an order leaving the figures brings back
 * the one before it.
 */
export function orderSummaryWrites(prev: Order | undefined, next: Order): SummaryWrite[] {
  const before = prev && countsInSummary(prev) ? prev : undefined
  const after = countsInSummary(next) ? next : undefined
  if (!before && !after) return []
  if (before && after && before.customer_id === after.customer_id) {
    const a = orderFigures(before)
    const b = orderFigures(after)
    const amount = (b.orders_amount ?? 0) - (a.orders_amount ?? 0)
    const discount = (b.orders_discount ?? 0) - (a.orders_discount ?? 0)
    if (amount === 0 && discount === 0) return []
    return [{ customerId: after.customer_id as string, by: { orders_amount: amount, orders_discount: discount } }]
  }
  const writes: SummaryWrite[] = []
  if (before) writes.push({ customerId: before.customer_id as string, by: minus(orderFigures(before)) })
  if (after) writes.push({ customerId: after.customer_id as string, by: orderFigures(after) })
  return writes
}

/** A summary row computed from a customer's stored history (the backfill). */
export function historyRow(
  orders: readonly Order[],
  redemptions: readonly SummaryRecord[],
  rollbacks: readonly SummaryRecord[],
): Record<string, number | string> {
  const row: Record<string, number | string> = {}
  const add = (f: SummaryFigures) => {
    for (const [k, n] of Object.entries(f)) row[k] = ((row[k] as number | undefined) ?? 0) + (n as number)
  }
  for (const r of redemptions) add(redemptionFigures(r))
  for (const rb of rollbacks) add(rollbackFigures(rb))
  for (const o of orders) if (countsInSummary(o)) add(orderFigures(o))
  row[BACKFILLED] = 1
  return row
}

/** The statuses whose orders count in a summary, as the orders index is queried for the last one. */
export const COUNTED_ORDER_STATUSES = ['PAID', 'FULFILLED'] as const

/**
 * The summary from its row (absent: all zero), what the customer's cards hold now (the balances "to
 * go" are read from the cards, not counted) and the customer's newest counted order (`last_order_*`:
 * read, not kept, so it is the newest one still PAID or FULFILLED whatever left the figures since).
 * Rows written before kept `last_order_*` fields themselves; they are not read.
 */
export function customerSummary(
  row: Counter | undefined,
  wallet: { gift_balance: number; points_balance: number },
  last: Pick<Order, 'total_amount' | 'created_at'> | undefined,
): CustomerSummary {
  const n = (f: SummaryField) => (typeof row?.[f] === 'number' ? (row[f] as number) : 0)
  const count = n('orders')
  const amount = n('orders_amount')
  return {
    redemptions: {
      total_redeemed: n('redeemed'),
      total_failed: n('failed'),
      total_succeeded: n('succeeded'),
      total_rolled_back: n('rolled_back'),
      total_rollback_failed: n('rollback_failed'),
      total_rollback_succeeded: n('rollback_succeeded'),
      gift: { redeemed_amount: n('gift_redeemed'), amount_to_go: wallet.gift_balance },
      loyalty_card: { redeemed_points: n('points_redeemed'), points_to_go: wallet.points_balance },
    },
    orders: {
      total_amount: amount,
      total_discount_amount: n('orders_discount'),
      total_count: count,
      // Integer minor units: the average rounds once, half-up.
      average_amount: count > 0 ? divRound(amount, count, 'half-up') : 0,
      last_order_amount: last ? (last.total_amount ?? 0) : null,
      last_order_date: last ? last.created_at : null,
    },
  }
}
