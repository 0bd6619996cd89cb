import type {
  RequestCampaignSettings,
  RequestCampaignVoucher,
  RequestCustomer,
  RequestExpirationRules,
  RequestMetadata,
  RequestMetadataPoints,
  RequestOrder,
  RequestPointsMapping,
  RequestProportionalPoints,
  RequestRewardParameters,
  RequestTimeframe,
  RequestValidityHours,
} from './request-shapes'

export interface LoyaltiesCreateParams extends RequestCampaignSettings {
  campaign_type?: 'LOYALTY_PROGRAM' | undefined
  vouchers_count?: number | undefined
  voucher?: RequestCampaignVoucher | undefined
  loyalty_tiers_expiration?:
    | {
        qualification_type: 'BALANCE' | 'POINTS_IN_PERIOD'
        qualification_period?: 'MONTH' | 'QUARTER' | 'HALF_YEAR' | 'YEAR' | undefined
        start_date?:
          | {
              type: 'IMMEDIATE' | 'NEXT_PERIOD'
            }
          | undefined
        expiration_date?:
          | {
              type: 'END_OF_PERIOD' | 'END_OF_NEXT_PERIOD' | 'BALANCE_DROP' | 'CUSTOM'
              extend?: string | undefined
              rounding?:
                | {
                    type: 'MONTH' | 'QUARTER' | 'HALF_YEAR' | 'YEAR' | 'CUSTOM'
                    strategy: 'START' | 'END'
                    unit?: 'MONTH' | undefined
                    value?: number | undefined
                  }
                | undefined
            }
          | undefined
      }
    | null
    | undefined
  access_settings?: RequestMetadata | undefined
}
export interface LoyaltiesListParams {
  limit?: string | number | undefined
  page?: string | number | undefined
  order?: string | undefined
}
export interface LoyaltiesCreateMemberParams {
  customer: RequestCustomer
  voucher?: string | undefined
  source_id?: string | undefined
  metadata?: RequestMetadata | undefined
  channel?: string | undefined
}
export type LoyaltiesCreateRewardAssignmentsParams = {
  reward: string
  parameters?: RequestRewardParameters | undefined
}[]
/** The earning rules to create, together. */
export type LoyaltiesCreateEarningRuleParams = {
  metadata?: RequestMetadata | undefined
  start_date?: string | null | undefined
  expiration_date?: string | null | undefined
  validity_timeframe?: RequestTimeframe | null | undefined
  validity_day_of_week?: number[] | null | undefined
  validity_hours?: RequestValidityHours | null | undefined
  active?: boolean | null | undefined
  event: string
  validation_rule_id?: string | null | undefined
  loyalty:
    | {
        type: 'FIXED'
        points: string | number
        points_formula?: string | undefined
      }
    | {
        type: 'PROPORTIONAL'
        calculation_type:
          | 'ORDER_AMOUNT'
          | 'ORDER_TOTAL_AMOUNT'
          | 'ORDER_METADATA'
          | 'ORDER_ITEMS_AMOUNT'
          | 'ORDER_ITEMS_SUBTOTAL_AMOUNT'
          | 'ORDER_ITEMS_QUANTITY'
          | 'CUSTOMER_METADATA'
          | 'CUSTOM_EVENT_METADATA'
        order?:
          | {
              amount?: RequestProportionalPoints | undefined
              total_amount?: RequestProportionalPoints | undefined
              metadata?: RequestProportionalPoints | undefined
            }
          | undefined
        order_items?:
          | {
              amount?: RequestProportionalPoints | undefined
              subtotal_amount?: RequestProportionalPoints | undefined
              quantity?: RequestProportionalPoints | undefined
            }
          | undefined
        customer?: RequestMetadataPoints | undefined
        custom_event?: RequestMetadataPoints | undefined
      }
  source?:
    | {
        banner?: string | undefined
      }
    | undefined
  segment?:
    | {
        id: string
      }
    | undefined
  custom_event?:
    | {
        schema_id: string
      }
    | undefined
  loyalty_tier?:
    | {
        id: string
      }
    | undefined
  expiration_rules?: RequestExpirationRules | null | undefined
  pending_points?:
    | {
        period_type: 'DAY'
        period_value: number
      }
    | null
    | undefined
}[]
export type LoyaltiesListEarningRulesParams = LoyaltiesListParams
export type LoyaltiesCreateTiersParams = {
  name: string
  points: {
    from: number
    to?: number | null | undefined
  }
  earning_rules?: RequestPointsMapping | undefined
  rewards?: RequestPointsMapping | undefined
  metadata?: RequestMetadata | undefined
}[]
export type LoyaltiesListTiersParams = LoyaltiesListParams
export interface LoyaltiesRedeemRewardParams {
  reward: {
    id: string
    points?: number | undefined
  }
  order?: RequestOrder | undefined
  metadata?: RequestMetadata | undefined
}

export interface RewardsCreateParams {
  name: string
  type: 'CAMPAIGN' | 'COIN' | 'MATERIAL'
  parameters: {
    campaign?:
      | {
          id: string
          balance?: number | undefined
          type?: 'DISCOUNT_COUPONS' | 'GIFT_VOUCHERS' | 'LOYALTY_PROGRAM' | undefined
        }
      | undefined
    coin?:
      | {
          exchange_ratio: number
          points_ratio: number
        }
      | undefined
    product?:
      | {
          id: string
          sku_id?: string | null | undefined
        }
      | undefined
  }
  stock?: number | null | undefined
  attributes?:
    | {
        image_url?: string | undefined
        description?: string | undefined
      }
    | undefined
  metadata?: RequestMetadata | undefined
}
export interface RewardsCreateAssignmentParams {
  campaign: string
  parameters?: RequestRewardParameters | undefined
}
