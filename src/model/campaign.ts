import type { Category, DateTime, Metadata, Validity } from './common'
import type { Discount, GiftInfo } from './discount'
import type { LoyaltyTiersExpiration, PointsExpirationRules } from './loyalty'
import type { ValidationRuleAssignment } from './validation-rule'

export type CampaignType = 'DISCOUNT_COUPONS' | 'GIFT_VOUCHERS' | 'REFERRAL_PROGRAM' | 'LOYALTY_PROGRAM' | 'PROMOTION'
export type CreationStatus = 'DONE' | 'IN_PROGRESS' | 'FAILED' | 'DRAFT' | 'MODIFYING'
export type VoucherType = 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD'

export interface CodeConfig {
  /** Each `#` stands for one generated character. */
  pattern?: string
  length?: number
  charset?: string
  prefix?: string
  postfix?: string
}

/** The template every code of a campaign is made from. */
export interface CampaignVoucher {
  type: VoucherType
  discount?: Discount | null
  gift?: Pick<GiftInfo, 'amount' | 'effect'> | null
  loyalty_card?: { points: number; expiration_rules?: PointsExpirationRules | null } | null
  redemption?: { quantity: number | null }
  code_config?: CodeConfig
  is_referral_code?: boolean
  start_date?: DateTime | null
  expiration_date?: DateTime | null
  validity_timeframe?: Validity['validity_timeframe']
}

/** A double-sided referral program's reward to the referee: a credit on their card of another campaign. */
export interface RefereeReward {
  /** The loyalty program or gift campaign whose card is credited. */
  related_object_parent: { id: string; name?: string; object?: 'CAMPAIGN' }
  type: 'LOYALTY_CARD' | 'GIFT_VOUCHER'
  /** Points, or gift credits in minor units (10.00 is "1000"), as a string like the hosted API. */
  amount: string
}

export interface ReferralProgram {
  conversion_event_type?: 'redemption' | 'custom_event'
  custom_event?: { id?: string; name: string }
  referee_reward?: RefereeReward
}

export interface Campaign extends Validity {
  id: string
  name: string
  description?: string | null
  campaign_type: CampaignType
  type: 'AUTO_UPDATE' | 'STATIC'
  voucher?: CampaignVoucher
  auto_join: boolean
  join_once: boolean
  use_voucher_metadata_schema: boolean
  vouchers_count: number
  activity_duration_after_publishing?: string | null
  category: string | null
  category_id: string | null
  categories: Category[]
  metadata: Metadata
  creation_status: CreationStatus
  vouchers_generation_status: CreationStatus
  protected: boolean
  loyalty_tiers_expiration?: LoyaltyTiersExpiration | null
  referral_program?: ReferralProgram | null
  promotion?: { tiers: string[] } | null
  /** Computed on read from the assignments collection (not stored): the rules assigned to the campaign. */
  validation_rules_assignments?: {
    object: 'list'
    data_ref: 'data'
    data: ValidationRuleAssignment[]
    total: number
  }
  created_at: DateTime
  updated_at: DateTime | null
  object: 'campaign'
}
