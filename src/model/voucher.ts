import type { VoucherType } from './campaign'
import type { Category, DateTime, Metadata, Validity } from './common'
import type { Discount, GiftInfo } from './discount'

export interface LoyaltyCardInfo {
  /** Lifetime points added. */
  points: number
  balance: number
  next_expiration_date?: string | null
  next_expiration_points?: number | null
  pending_points?: number
  expired_points?: number
  subtracted_points?: number
}

export interface VoucherAssets {
  qr: { id: string; url: string }
  barcode: { id: string; url: string }
}

export interface Voucher extends Validity {
  id: string
  code: string
  campaign: string | null
  campaign_id: string | null
  category: string | null
  category_id: string | null
  categories: Category[]
  type: VoucherType
  discount: Discount | null
  gift: GiftInfo | null
  loyalty_card: LoyaltyCardInfo | null
  additional_info?: string | null
  metadata: Metadata
  assets: VoucherAssets
  is_referral_code: boolean
  holder_id?: string | null
  referrer_id?: string | null
  redemption: {
    quantity: number | null
    redeemed_quantity: number
    redeemed_amount?: number
    redeemed_points?: number
    object: 'list'
    url: string
  }
  publish: { object: 'list'; count: number; url: string }
  created_at: DateTime
  updated_at: DateTime | null
  object: 'voucher'
  /**
   * Stored by the engine, not part of the service interface (results leave it out): what the code's
   * counted session locks hold, incremented when a lock is taken and decremented when it is released
   * (docs/storage.md#session-locks). Absent: none.
   */
  session_locks?: SessionLockCounts
  /**
   * Stored by the engine, not part of the service interface (results leave it out): a loyalty card's
   * tier moves, each adding the difference of the tiers' ranks times `TIER_MARK_UNIT`, so that one
   * guard on it plus the balance holds a tier decision and its answers exactly
   * (docs/storage.md#a-members-tier). Absent: 0.
   */
  tier_mark?: number
}

/**
 * What a code's counted session locks hold: uses, and the gift credits and loyalty points they
 * reserve, negated, so that a balance guard adds them (`balance + minus_credits ≥ 0`). An increment
 * writes only the fields it moves: an absent one is 0.
 */
export interface SessionLockCounts {
  /** Uses the code's counted locks reserve. */
  count?: number
  /** Gift credits they reserve, negated. */
  minus_credits?: number
  /** Loyalty points they reserve, negated. */
  minus_points?: number
}
