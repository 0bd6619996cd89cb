import type { Redemption, RedemptionRollback } from '../model/redemption'
import type { Voucher } from '../model/voucher'
import { type Filters, matchesFilters } from './filters'

/**
 * The rows of a campaign transactions export: one per redemption of one of the campaign's vouchers
 * and one per rollback of such a redemption (successful or failed alike; filter on `result` or
 * `status` to narrow).
 */
export const TRANSACTION_FIELDS = [
  'id',
  'type',
  'source_id',
  'source',
  'status',
  'result',
  'reason',
  'voucher_id',
  'voucher_code',
  'campaign_id',
  'customer_id',
  'amount',
  'created_at',
  'related_transaction_id',
  'details',
] as const

export type TransactionField = (typeof TRANSACTION_FIELDS)[number]

/** The columns when the request names none. */
export const DEFAULT_TRANSACTION_FIELDS: readonly TransactionField[] = [
  'id',
  'type',
  'source_id',
  'status',
  'reason',
  'result',
  'voucher_id',
  'campaign_id',
  'amount',
  'created_at',
  'related_transaction_id',
  'details',
]

/** Newest first, as the hosted service's export examples order them. */
export const DEFAULT_TRANSACTION_ORDER = '-created_at'

export type TransactionType =
  | 'REDEMPTION'
  | 'REDEMPTION_ROLLBACK'
  | 'CREDITS_REDEMPTION'
  | 'CREDITS_REFUND'
  | 'POINTS_REDEMPTION'
  | 'POINTS_REFUND'

export type TransactionRow = { [F in TransactionField]: unknown } & {
  id: string
  type: TransactionType
  created_at: string
}

export function isTransactionField(value: string): value is TransactionField {
  return (TRANSACTION_FIELDS as readonly string[]).includes(value)
}

/**
 * Builds the rows. `type` says what moved: credits on a gift card, points on a loyalty card, a plain
 * use of any other voucher; `amount` is the credits or points as the redemption recorded them
 * (non-negative; `type` gives the direction); `related_transaction_id` links a rollback to its
 * redemption and a redemption to its first rollback; `details` is a JSON object with the order,
 * customer and redemption (and rollback) ids.
 */
export function transactionRows(
  vouchers: readonly Voucher[],
  redemptions: readonly Redemption[],
  rollbacks: readonly RedemptionRollback[],
): TransactionRow[] {
  const byId = new Map(vouchers.map((v) => [v.id, v]))
  const redeemed = new Map<string, { redemption: Redemption; voucher: Voucher }>()
  const rows: TransactionRow[] = []
  for (const r of redemptions) {
    const voucher = r.related_object_type === 'voucher' ? byId.get(r.related_object_id) : undefined
    if (!voucher) continue
    redeemed.set(r.id, { redemption: r, voucher })
    rows.push({
      id: r.id,
      type:
        voucher.type === 'GIFT_VOUCHER'
          ? 'CREDITS_REDEMPTION'
          : voucher.type === 'LOYALTY_CARD'
            ? 'POINTS_REDEMPTION'
            : 'REDEMPTION',
      source_id: null,
      source: r.channel.channel_type,
      status: r.status,
      result: r.result,
      reason: r.result === 'FAILURE' ? r.failure_message : null,
      voucher_id: voucher.id,
      voucher_code: voucher.code,
      campaign_id: voucher.campaign_id,
      customer_id: r.customer_id,
      amount: r.amount ?? r.gift?.amount ?? r.loyalty_card?.points ?? null,
      created_at: r.date,
      related_transaction_id: r.related_redemptions?.rollbacks[0]?.id ?? null,
      details: {
        order: r.order ? { id: r.order.id ?? null, source_id: r.order.source_id ?? null } : null,
        customer: r.customer_id === null ? null : { id: r.customer_id },
        redemption: { id: r.id },
      },
    })
  }
  for (const rb of rollbacks) {
    const parent = redeemed.get(rb.redemption)
    if (!parent) continue
    const { voucher } = parent
    rows.push({
      id: rb.id,
      type:
        voucher.type === 'GIFT_VOUCHER'
          ? 'CREDITS_REFUND'
          : voucher.type === 'LOYALTY_CARD'
            ? 'POINTS_REFUND'
            : 'REDEMPTION_ROLLBACK',
      source_id: null,
      source: rb.channel.channel_type,
      status: rb.status,
      result: rb.result,
      reason: rb.reason ?? rb.failure_message ?? null,
      voucher_id: voucher.id,
      voucher_code: voucher.code,
      campaign_id: voucher.campaign_id,
      customer_id: rb.customer_id,
      amount: rb.amount ?? rb.gift?.amount ?? rb.loyalty_card?.points ?? null,
      created_at: rb.date,
      related_transaction_id: rb.redemption,
      details: {
        order: rb.order ? { id: rb.order.id ?? null, source_id: rb.order.source_id ?? null } : null,
        customer: rb.customer_id === null ? null : { id: rb.customer_id },
        redemption: { id: rb.redemption },
        rollback: { id: rb.id },
      },
    })
  }
  return rows
}

/** Filters, then sorts by `order` (`field` or `-field`; ties by id ascending). */
export function selectTransactions(rows: readonly TransactionRow[], filters: Filters, order: string): TransactionRow[] {
  const desc = order.startsWith('-')
  const field = (desc ? order.slice(1) : order) as TransactionField
  const sign = desc ? -1 : 1
  return rows
    .filter((row) => matchesFilters(row, filters))
    .sort((a, b) => compare(a[field], b[field]) * sign || compare(a.id, b.id))
}

/** Absent values sort first; numbers by value; everything else by its text. */
function compare(a: unknown, b: unknown): number {
  const aUnknown = a === null || a === undefined
  const bUnknown = b === null || b === undefined
  if (aUnknown || bUnknown) return aUnknown === bUnknown ? 0 : aUnknown ? -1 : 1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  const x = typeof a === 'string' ? a : JSON.stringify(a)
  const y = typeof b === 'string' ? b : JSON.stringify(b)
  return x < y ? -1 : x > y ? 1 : 0
}
