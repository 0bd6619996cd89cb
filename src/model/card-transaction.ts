import type { DateTime } from './common'

/**
 * A movement of credits or points on a gift or loyalty card that is not a redemption or a rollback
 * (those are their own records): points earned, added by a reward or expiring; credits added by a
 * reward; credits or points taken back (docs/behaviour.md#card-transactions). Written once, in the
 * commit that moves the balance, and never changed: a card's transactions are these rows together
 * with its redemptions and rollbacks.
 */
export interface CardTransaction {
  id: string
  voucher_id: string
  campaign_id: string | null
  type: CardTransactionType
  /** Signed: what the card gained (positive) or lost (negative). */
  amount: number
  /** `API` when a request moved the balance, `AUTOMATION` when scheduled work did (expiry, activation). */
  source: 'API' | 'AUTOMATION'
  reason: string | null
  /** What the movement came from (an earning rule, an order, a reward, a referral). */
  details: Record<string, unknown>
  created_at: DateTime
}

/** The hosted transaction types of the movements recorded as card transactions. */
export type CardTransactionType =
  | 'CREDITS_ADDITION'
  | 'CREDITS_REMOVAL'
  | 'POINTS_ACCRUAL'
  | 'POINTS_REMOVAL'
  | 'POINTS_EXPIRATION'
