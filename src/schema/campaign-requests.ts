import type {
  RequestApplicableTargets,
  RequestCampaignSettings,
  RequestCampaignVoucher,
  RequestDiscount,
  RequestMetadata,
  RequestTimeframe,
  RequestValidity,
  RequestValidityHours,
} from './request-shapes'

export interface CampaignsCreateParams extends RequestCampaignSettings {
  campaign_type: 'DISCOUNT_COUPONS' | 'GIFT_VOUCHERS' | 'REFERRAL_PROGRAM' | 'LOYALTY_PROGRAM' | 'PROMOTION'
  voucher: RequestCampaignVoucher
  vouchers_count?: number | undefined
  referral_program?:
    | {
        [x: string]: unknown
        conversion_event_type?: 'redemption' | 'custom_event' | undefined
        custom_event?:
          | {
              [x: string]: unknown
              id?: string | undefined
              name: string
            }
          | undefined
        referee_reward?:
          | {
              [x: string]: unknown
              related_object_parent: {
                [x: string]: unknown
                id: string
                name?: string | undefined
                object?: 'CAMPAIGN' | undefined
              }
              type: 'GIFT_VOUCHER' | 'LOYALTY_CARD'
              amount: string | number
            }
          | undefined
      }
    | null
    | undefined
}
export interface CategoriesCreateParams {
  name: string
  hierarchy?: number | undefined
}
export interface PromotionsCreateParams extends RequestCampaignSettings {
  campaign_type?: 'PROMOTION' | undefined
  promotion: {
    tiers: {
      category_id?: string | null | undefined
      validation_rules?: string[] | undefined
      start_date?: string | null | undefined
      expiration_date?: string | null | undefined
      validity_timeframe?: RequestTimeframe | null | undefined
      validity_day_of_week?: number[] | null | undefined
      validity_hours?: RequestValidityHours | null | undefined
      active?: boolean | null | undefined
      name: string
      banner?: string | null | undefined
      action: {
        discount: RequestDiscount
      }
      hierarchy?: number | undefined
      metadata?: RequestMetadata | undefined
    }[]
  }
}
export interface PromotionsTiersCreateParams extends RequestValidity {
  category_id?: string | null | undefined
  validation_rules?: string[] | undefined
  active?: boolean | null | undefined
  name: string
  banner?: string | null | undefined
  action: {
    discount: RequestDiscount
  }
  hierarchy?: number | undefined
  metadata?: RequestMetadata | undefined
}
export interface PromotionsStacksCreateParams {
  name: string
  tiers: {
    ids: string[]
    hierarchy_mode?: 'MANUAL' | undefined
  }
  category_id?: string | null | undefined
}
export interface PromotionsStacksListParams {
  limit?: string | number | undefined
  page?: string | number | undefined
  order?: string | undefined
  created_at?:
    | {
        before?: string | undefined
        after?: string | undefined
      }
    | undefined
  updated_at?:
    | {
        before?: string | undefined
        after?: string | undefined
      }
    | undefined
}

export interface ValidationRulesCreateParams {
  name: string
  type?: 'expression' | 'basic' | 'advanced' | 'complex' | undefined
  context_type?: string | undefined
  rules: RequestMetadata
  error?:
    | {
        message: string
      }
    | null
    | undefined
  bundle_rules?: RequestMetadata | null | undefined
  applicable_to?:
    | {
        included?: RequestApplicableTargets | undefined
        excluded?: RequestApplicableTargets | undefined
        included_all?: boolean | undefined
      }
    | undefined
  metadata?: RequestMetadata | undefined
}
/** Both body forms: `related_object_type` + `related_object_id`, or the SDK's `{voucher: id}`. */
export type ValidationRulesCreateAssignmentParams =
  | {
      related_object_type: 'voucher' | 'promotion_tier' | 'campaign' | 'earning_rule' | 'reward_assignment'
      related_object_id: string
    }
  | {
      [x: string]: string | undefined
      [x: number]: string | undefined
    }
export interface StackingRulesCreateParams {
  redeemables_limit?: number | undefined
  applicable_redeemables_limit?: number | undefined
  applicable_redeemables_per_category_limit?: number | undefined
  applicable_redeemables_category_limits?:
    | {
        [x: string]: number | undefined
      }
    | undefined
  applicable_exclusive_redeemables_limit?: number | undefined
  applicable_exclusive_redeemables_per_category_limit?: number | undefined
  exclusive_categories?: string[] | undefined
  joint_categories?: string[] | undefined
  redeemables_application_mode?: 'ALL' | 'PARTIAL' | undefined
  redeemables_sorting_rule?: 'REQUESTED_ORDER' | 'CATEGORY_HIERARCHY' | undefined
  redeemables_products_application_mode?: 'STACK' | 'ONCE' | undefined
  redeemables_no_effect_rule?: 'REDEEM_ANYWAY' | 'SKIP' | undefined
  no_effect_skip_categories?: string[] | undefined
  no_effect_redeem_anyway_categories?: string[] | undefined
  redeemables_rollback_order_mode?: 'WITH_ORDER' | 'WITHOUT_ORDER' | undefined
  discount_calculation_mode?: 'DISCOUNTED_AMOUNT' | 'INITIAL_AMOUNT' | undefined
  initial_amount_mode_categories?: string[] | undefined
  discounted_amount_mode_categories?: string[] | undefined
  grouped_redeemables_sorting_rule?: 'JOINT_ALWAYS_LAST' | null | undefined
}
export type StackingRulesUpdateParams = StackingRulesCreateParams

export interface TemplatesCreateCampaignTemplateParams {
  campaign_id: string
  name: string
  description?: string | null | undefined
}
export interface TemplatesListCampaignTemplatesParams {
  limit?: string | number | undefined
  starting_after_id?: string | undefined
  order?: string | undefined
  include_total?: boolean | 'true' | 'false' | undefined
  filters?: unknown
}
export interface TemplatesCreateCampaignFromTemplateParams {
  [x: string]: unknown
  name: string
}
