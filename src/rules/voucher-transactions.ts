import type { Redemption, RedemptionRollback } from '../model/redemption'
import type { Voucher } from '../model/voucher'

/**
 * The rows of a campaign transactions export: one per redemption of one of the campaign's vouchers
 * and one per rollback of such a redemption (successful or failed alike; filter on `result` or
 * `status` to narrow), newest first or oldest first (`created_at`, the order the store keeps them in).
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

/**
 * The orders a transactions export can be written in: by date, the order of the declared indexes the
 * export pages through. Another column would need every row in memory to sort.
 */
export const TRANSACTION_ORDERS = ['created_at', '-created_at'] as const

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

/** How a voucher's transactions are typed: credits on a gift card, points on a loyalty card, a plain use otherwise. */
function movement(voucher: Voucher, redemption: TransactionType, gift: TransactionType, points: TransactionType) {
  return voucher.type === 'GIFT_VOUCHER' ? gift : voucher.type === 'LOYALTY_CARD' ? points : redemption
}

/**
 * Credits and points are signed as the hosted voucher transactions are: taken off the card negative
 * (a redemption), given back positive (a refund) (docs/behaviour.md#exports). A plain code's use keeps
 * the amount its redemption recorded.
 */
function signed(voucher: Voucher, amount: number | null | undefined, direction: 1 | -1): number | null {
  if (amount === null || amount === undefined) return null
  return voucher.type === 'GIFT_VOUCHER' || voucher.type === 'LOYALTY_CARD' ? direction * Math.abs(amount) : amount
}

/**
 * The row of one redemption of the voucher. `type` says what moved; `amount` is the credits or points
 * taken (negative on a gift or loyalty card); `related_transaction_id` links it to its
 * first rollback; `details` is a JSON object with the order, customer and redemption ids.
 */
export function redemptionRow(r: Redemption, voucher: Voucher): TransactionRow {
  return {
    id: r.id,
    type: movement(voucher, 'REDEMPTION', 'CREDITS_REDEMPTION', 'POINTS_REDEMPTION'),
    source_id: null,
    source: r.channel.channel_type,
    status: r.status,
    result: r.result,
    reason: r.result === 'FAILURE' ? r.failure_message : null,
    voucher_id: voucher.id,
    voucher_code: voucher.code,
    campaign_id: voucher.campaign_id,
    customer_id: r.customer_id,
    amount: signed(voucher, r.amount ?? r.gift?.amount ?? r.loyalty_card?.points, -1),
    created_at: r.date,
    related_transaction_id: r.related_redemptions?.rollbacks[0]?.id ?? null,
    details: {
      order: r.order ? { id: r.order.id ?? null, source_id: r.order.source_id ?? null } : null,
      customer: r.customer_id === null ? null : { id: r.customer_id },
      redemption: { id: r.id },
    },
  }
}

/** The row of one rollback (successful or failed) of a redemption of the voucher; it links to the redemption. */
export function rollbackRow(rb: RedemptionRollback, voucher: Voucher): TransactionRow {
  return {
    id: rb.id,
    type: movement(voucher, 'REDEMPTION_ROLLBACK', 'CREDITS_REFUND', 'POINTS_REFUND'),
    source_id: null,
    source: rb.channel.channel_type,
    status: rb.status,
    result: rb.result,
    reason: rb.reason ?? rb.failure_message ?? null,
    voucher_id: voucher.id,
    voucher_code: voucher.code,
    campaign_id: voucher.campaign_id,
    customer_id: rb.customer_id,
    // A failed rollback gave nothing back.
    amount:
      rb.result === 'FAILURE' ? null : signed(voucher, rb.amount ?? rb.gift?.amount ?? rb.loyalty_card?.points, 1),
    created_at: rb.date,
    related_transaction_id: rb.redemption,
    details: {
      order: rb.order ? { id: rb.order.id ?? null, source_id: rb.order.source_id ?? null } : null,
      customer: rb.customer_id === null ? null : { id: rb.customer_id },
      redemption: { id: rb.redemption },
      rollback: { id: rb.id },
    },
  }
}
