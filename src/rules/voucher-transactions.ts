import type { CardTransaction, CardTransactionType } from '../model/card-transaction'
import type { Redemption, RedemptionRollback } from '../model/redemption'
import type { Voucher } from '../model/voucher'

/**
 * The rows of a campaign transactions export: one per redemption of one of the campaign's vouchers,
 * one per rollback of such a redemption (successful or failed alike; filter on `result` or `status` to
 * narrow) and one per other movement of a card's credits or points (its card transactions:
 * accruals, expiries, additions, removals), newest first or oldest first (`created_at`, the order the
 * store keeps them in), each with the card's `balance` after it (docs/behaviour.md#exports).
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
  'balance',
  'created_at',
  'related_transaction_id',
  'details',
] as const

export type TransactionField = (typeof TRANSACTION_FIELDS)[number]

/** The columns when the request names none: the hosted `voucher_transactions` defaults (`POST /v1/exports`). */
export const DEFAULT_TRANSACTION_FIELDS: readonly TransactionField[] = [
  'id',
  'type',
  'source_id',
  'status',
  'reason',
  'source',
  'balance',
  'amount',
  'created_at',
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
  | CardTransactionType

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
    balance: null,
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
    balance: null,
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

/** The row of one card transaction of the voucher (a movement other than a redemption or rollback). */
export function cardTransactionRow(ct: CardTransaction, voucher: Voucher): TransactionRow {
  return {
    id: ct.id,
    type: ct.type,
    source_id: null,
    source: ct.source,
    status: null,
    result: null,
    reason: ct.reason,
    voucher_id: voucher.id,
    voucher_code: voucher.code,
    campaign_id: voucher.campaign_id,
    customer_id: voucher.holder_id ?? null,
    amount: ct.amount,
    balance: null,
    created_at: ct.created_at,
    related_transaction_id: null,
    details: ct.details,
  }
}

/** Anything a campaign's transactions export lists. */
export type CardMovement = Redemption | RedemptionRollback | CardTransaction

/** When a movement happened: redemptions and rollbacks are dated `date`, card transactions `created_at`. */
export const movementDate = (m: CardMovement): string => ('date' in m ? m.date : m.created_at)

/** Whether `a` comes before `b` in time (then by id): the order every transactions index keeps. */
export function earlier(a: CardMovement, b: CardMovement): boolean {
  const da = movementDate(a)
  const db = movementDate(b)
  return da === db ? a.id < b.id : da < db
}

/**
 * What a movement did to its card's balance (credits or points): a successful redemption took them,
 * a successful rollback gave them back, a card transaction is signed already; failures moved nothing.
 */
export function balanceMove(m: CardMovement): number {
  if (!('object' in m)) return m.amount
  if (m.result !== 'SUCCESS') return 0
  const moved = Math.abs(m.gift?.amount ?? m.loyalty_card?.points ?? 0)
  return m.object === 'redemption' ? -moved : moved
}

/** A card's balance now: a gift card's credits, a loyalty card's spendable points. */
export const cardBalance = (v: Voucher): number | null =>
  v.type === 'GIFT_VOUCHER' ? (v.gift?.balance ?? 0) : v.type === 'LOYALTY_CARD' ? (v.loyalty_card?.balance ?? 0) : null
