import type { DateTime, Metadata, Validity } from './common'

export interface PointsExpirationRules {
  period_type: 'MONTH' | 'FIXED_DAY_OF_YEAR'
  period_value?: number
  rounding_type?: 'END_OF_MONTH' | 'END_OF_QUARTER' | 'END_OF_HALF_YEAR' | 'END_OF_YEAR' | 'PARTICULAR_MONTH'
  rounding_value?: number
  fixed_month?: number
  fixed_day?: number
}

export type TierPeriod = 'MONTH' | 'QUARTER' | 'HALF_YEAR' | 'YEAR'

export interface LoyaltyTiersExpiration {
  qualification_type: 'BALANCE' | 'POINTS_IN_PERIOD'
  qualification_period?: TierPeriod
  start_date?: { type: 'IMMEDIATE' | 'NEXT_PERIOD' }
  expiration_date?: {
    type: 'END_OF_PERIOD' | 'END_OF_NEXT_PERIOD' | 'BALANCE_DROP' | 'CUSTOM'
    extend?: string
    rounding?: { type: TierPeriod | 'CUSTOM'; strategy: 'START' | 'END'; unit?: 'MONTH'; value?: number }
  }
}

export interface ProportionalSpec {
  every: number
  points: number
  points_formula?: string
  /** Metadata-based types name the property. */
  property?: string
  /** Item-scoped types name what they match. */
  object?: 'product' | 'sku' | 'products_collection'
  id?: string
  /** Several item targets (docs/concepts.md#earning-rules: `object`+`id` or `applicable_to[]`); a line counts once. */
  applicable_to?: { object: 'product' | 'sku' | 'products_collection'; id: string }[]
}

export type ProportionalCalculationType =
  | 'ORDER_AMOUNT'
  | 'ORDER_TOTAL_AMOUNT'
  | 'ORDER_METADATA'
  | 'ORDER_ITEMS_AMOUNT'
  | 'ORDER_ITEMS_SUBTOTAL_AMOUNT'
  | 'ORDER_ITEMS_QUANTITY'
  | 'CUSTOMER_METADATA'
  | 'CUSTOM_EVENT_METADATA'

export type EarningLoyalty =
  | { type: 'FIXED'; points: number; points_formula?: string }
  | {
      type: 'PROPORTIONAL'
      calculation_type: ProportionalCalculationType
      order?: { amount?: ProportionalSpec; total_amount?: ProportionalSpec; metadata?: ProportionalSpec }
      order_items?: { amount?: ProportionalSpec; subtotal_amount?: ProportionalSpec; quantity?: ProportionalSpec }
      customer?: { metadata?: ProportionalSpec }
      custom_event?: { metadata?: ProportionalSpec }
    }

export interface EarningRule extends Validity {
  id: string
  campaign_id: string
  validation_rule_id: string | null
  loyalty: EarningLoyalty
  event: string
  segment?: { id: string }
  custom_event?: { schema_id: string }
  loyalty_tier?: { id: string }
  source: { banner?: string; object_id: string; object_type: 'campaign' }
  expiration_rules?: PointsExpirationRules | null
  /**
   * `order.paid` rules only: the points wait this many days before they can be spent
   * (docs/concepts.md#earning-rules).
   */
  pending_points?: PendingPointsRule | null
  active: boolean
  automation_id?: string
  metadata: Metadata
  created_at: DateTime
  updated_at: DateTime | null
  object: 'earning_rule'
}

export interface PendingPointsRule {
  period_type: 'DAY'
  period_value: number
}

export type MappingPoints = { type: 'MULTIPLY'; multiplier: number } | { type: 'CUSTOM'; points: number }

export interface LoyaltyTier {
  id: string
  name: string
  campaign_id: string
  points: { from: number; to?: number | null }
  config: { points: { from: number; to?: number | null } }
  earning_rules: Record<string, MappingPoints>
  rewards: Record<string, MappingPoints>
  metadata: Metadata
  created_at: DateTime
  updated_at: DateTime | null
  expiration?: MemberTierExpiration | null
  object: 'loyalty_tier'
}

export interface MemberTierExpiration {
  customer_id: string
  campaign_id: string
  tier_id: string
  created_at: DateTime
  /** `YYYY-MM-DD` in the engine's time zone: the first day the tier is in force. */
  start_date: string | null
  /** `YYYY-MM-DD` in the engine's time zone: the last day the tier is held (through its end). */
  expiration_date: string | null
  updated_at: DateTime | null
}

/** One credit of points with its own expiry: the ledger spends the soonest-expiring first. */
export interface PointsBucket {
  id: string
  voucher_id: string
  campaign_id: string
  customer_id: string | null
  points: number
  /** Points still spendable in this bucket. */
  remaining: number
  /** Points of this bucket that expired; what was spent is `points − remaining − expired`. */
  expired: number
  /** The instant at which the remaining points expire, or null for never. */
  expires_at: DateTime | null
  /**
   * When the bucket was credited, or (for pending points) activated: expiry, spending order and
   * points-in-period tiers count from it.
   */
  created_at: DateTime
  /** Pending points: the instant they become spendable (`status` PENDING until then). */
  activates_at?: DateTime | null
  source: { type: 'earning_rule' | 'manual' | 'reward' | 'referral' | 'rollback' | 'initial'; id?: string | null }
  /** PENDING buckets hold `points` not yet spendable (`remaining` 0) and count only as `pending_points`. */
  status: 'PENDING' | 'ACTIVE' | 'EXPIRED' | 'SPENT'
}

export type RewardType = 'CAMPAIGN' | 'COIN' | 'MATERIAL'

export interface Reward {
  id: string
  name: string
  type: RewardType
  parameters: {
    /** `balance`: credits (GIFT_VOUCHERS) or points (LOYALTY_PROGRAM); null for DISCOUNT_COUPONS. */
    campaign?: {
      id: string
      balance?: number | null
      type?: 'DISCOUNT_COUPONS' | 'GIFT_VOUCHERS' | 'LOYALTY_PROGRAM'
    }
    coin?: { exchange_ratio: number; points_ratio: number }
    product?: { id: string; sku_id?: string | null }
  }
  stock: number | null
  redeemed: number | null
  /** Always on MATERIAL rewards (null values when not sent). */
  attributes?: { image_url?: string | null; description?: string | null }
  metadata: Metadata
  created_at: DateTime
  updated_at: DateTime | null
  object: 'reward'
}

export interface RewardAssignment {
  id: string
  reward_id: string
  related_object_id: string
  related_object_type: 'campaign'
  parameters?: { loyalty?: { points?: number; auto_redeem?: boolean } }
  created_at: DateTime
  updated_at: DateTime | null
  object: 'reward_assignment'
}

/** The member's standing in a program's tiers (stored per card). */
export interface MemberTierState {
  id: string
  voucher_id: string
  campaign_id: string
  customer_id: string | null
  tier_id: string | null
  /** With a `NEXT_PERIOD` start: the tier still in force until `expiration.start_date`. */
  previous_tier_id?: string | null
  expiration: MemberTierExpiration | null
  updated_at: DateTime
  /**
   * The card's tier mark (`Voucher.tier_mark`) this standing was written with, so that a card and a
   * standing read apart are known to agree (docs/storage.md#a-members-tier). Absent: written before marks.
   */
  mark?: number
}
