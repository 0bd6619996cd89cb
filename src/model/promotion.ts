import type { Campaign } from './campaign'
import type { Category, DateTime, ListEnvelope, Metadata, Validity } from './common'
import type { Discount } from './discount'
import type { ValidationRuleAssignment } from './validation-rule'

export interface PromotionTier extends Validity {
  id: string
  name: string
  banner?: string | null
  action: { discount: Discount }
  metadata: Metadata
  hierarchy: number
  promotion_id: string
  campaign_id: string
  campaign: {
    id: string
    start_date?: DateTime | null
    expiration_date?: DateTime | null
    validity_timeframe?: Validity['validity_timeframe']
    validity_day_of_week?: number[] | null
    validity_hours?: Validity['validity_hours']
    active: boolean
    category_id: string | null
    object: 'campaign'
  }
  active: boolean
  summary: {
    redemptions: { total_redeemed: number }
    orders: { total_amount: number; total_discount_amount: number }
  }
  /** Derived from the assignments collection when a tier is read; not stored on the tier. */
  validation_rule_assignments?: ListEnvelope<'data', ValidationRuleAssignment> | null
  /**
   * Bookkeeping, not on the wire: what the tier's validation rules target, as the keys a
   * qualification finds it by (docs/qualifications.md#candidates). Absent on tiers stored before it
   * existed: those are candidates of every cart.
   */
  targets?: string[]
  category_id: string | null
  categories: Category[]
  created_at: DateTime
  updated_at: DateTime | null
  object: 'promotion_tier'
}

export interface PromotionStack {
  id: string
  name: string
  campaign_id: string
  tiers: { ids: string[]; hierarchy_mode: 'MANUAL' }
  category_id: string | null
  categories: Category[]
  created_at: DateTime
  updated_at: DateTime | null
  object: 'promotion_stack'
}

/** A `PROMOTION` campaign as the promotion operations return it: its tiers expanded in a list envelope. */
export type PromotionCampaign = Omit<Campaign, 'promotion'> & {
  promotion: ListEnvelope<'tiers', PromotionTier> & { total: number; has_more: boolean }
}
