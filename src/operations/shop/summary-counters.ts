import type { CustomerSummary } from '../../model/customer'
import type { Order } from '../../model/order'
import type { Voucher } from '../../model/voucher'
import {
  COUNTED_ORDER_STATUSES,
  customerSummary,
  orderSummaryWrites,
  redemptionFigures,
  rollbackFigures,
  type SummaryFigures,
  type SummaryRecord,
  summaryRowId,
} from '../../rules/customer-summary'
import type { Store } from '../../storage/ports'
import { listAll } from '../kernel/list-all'
import type { Tx } from '../kernel/unit-of-work'

/*
 * A customer's `summary` (docs/behaviour.md#customer-summary): increments of the customer's summary
 * row in the commits that record what it counts. Plain increments (no guard, created on first use):
 * concurrent requests of one customer add up and never conflict on the row.
 */

function add(tx: Tx, customerId: string, by: SummaryFigures): void {
  const nonZero = Object.fromEntries(Object.entries(by).filter(([, n]) => n !== 0)) as Record<string, number>
  if (Object.keys(nonZero).length === 0) return
  tx.increment('counters', summaryRowId(customerId), nonZero, { create: {} })
}

/** A stored redemption (a child, a single redemption, or a failed one) enters its customer's summary. */
export function countRedemptionInSummary(tx: Tx, r: SummaryRecord & { customer_id: string | null }): void {
  if (r.customer_id) add(tx, r.customer_id, redemptionFigures(r))
}

/** A rollback (succeeded or refused) enters its customer's summary. */
export function countRollbackInSummary(tx: Tx, rb: SummaryRecord & { customer_id: string | null }): void {
  if (rb.customer_id) add(tx, rb.customer_id, rollbackFigures(rb))
}

/** An order written over the version `prev` moves into or out of its customers' order figures. */
export function countOrderInSummary(tx: Tx, prev: Order | undefined, next: Order): void {
  for (const w of orderSummaryWrites(prev, next)) add(tx, w.customerId, w.by)
}

/**
 * The customer's summary: its row, the balances of the cards it holds and its newest counted order
 * (reads of declared indexes, together).
 */
export async function readCustomerSummary(
  store: Store,
  customerId: string,
  held: Promise<Voucher[]> = readWallet(store, customerId),
): Promise<CustomerSummary> {
  const [row, wallet, last] = await Promise.all([
    store.counters.get(summaryRowId(customerId)),
    held.then(balancesOf),
    latestCountedOrder(store, customerId),
  ])
  return customerSummary(row?.value, wallet, last)
}

/** A customer created just now has no history: its summary is all zero without a read. */
export const emptyCustomerSummary = (): CustomerSummary =>
  customerSummary(undefined, { gift_balance: 0, points_balance: 0 }, undefined)

/**
 * The customer's newest PAID or FULFILLED order, from the orders index by customer and status: read
 * at every summary rather than kept on the summary row, so it is right whatever order left the
 * figures, and concurrent orders of one customer write nothing for it (docs/behaviour.md#customer-summary).
 */
async function latestCountedOrder(store: Store, customerId: string): Promise<Order | undefined> {
  const page = await store.orders.list({
    where: { customer_id: customerId, status: { in: [...COUNTED_ORDER_STATUSES] } },
    order: { field: 'created_at', direction: 'desc' },
    limit: 1,
    count: false,
  })
  return page.data[0]?.value
}

function balancesOf(wallet: readonly Voucher[]): { gift_balance: number; points_balance: number } {
  let gift = 0
  let points = 0
  for (const v of wallet) {
    if (v.type === 'GIFT_VOUCHER') gift += v.gift?.balance ?? 0
    if (v.type === 'LOYALTY_CARD') points += v.loyalty_card?.balance ?? 0
  }
  return { gift_balance: gift, points_balance: points }
}

/** The codes a customer holds, from the holder index. */
export function readWallet(store: Store, holderId: string): Promise<Voucher[]> {
  return listAll(store, 'vouchers', {
    where: { holder_id: holderId },
    order: { field: 'created_at', direction: 'asc' },
  })
}
