/**
 * The request types of every operation, named so the API report (etc/promo-engine.api.md) shows
 * every field: a request field added, renamed or retyped changes the report. Each is exactly what its
 * schema accepts (valibot's \`InferInput\`: what a caller may pass, before defaults and transforms, an
 * optional field also taking \`undefined\`), which test/schema/request-types.test.ts checks at compile
 * time, so the types and the checks cannot drift apart. Named \`<Namespace><Operation>Params\` like the
 * official client's (docs/design.md#public-surface).
 */

export interface AuthCreateApplicationParams {
  name?: string | null | undefined
  family: 'server' | 'client' | 'management'
  allowed_origins?: string[] | undefined
  scopes?:
    | (
        | 'api'
        | 'assets'
        | 'async-actions'
        | 'campaigns'
        | 'categories'
        | 'client_api'
        | 'client_consents'
        | 'client_customers'
        | 'client_events'
        | 'client_promotions'
        | 'client_publish'
        | 'client_qualifications'
        | 'client_redeem'
        | 'client_redemptions'
        | 'client_validate'
        | 'client_validations'
        | 'client_vouchers'
        | 'consents'
        | 'customers'
        | 'events'
        | 'exports'
        | 'locations'
        | 'loyalties'
        | 'metadata-schemas'
        | 'orders'
        | 'product-collections'
        | 'products'
        | 'promotions'
        | 'publications'
        | 'qualifications'
        | 'redemptions'
        | 'referrals'
        | 'rewards'
        | 'segments'
        | 'SKUs'
        | 'task-results'
        | 'templates'
        | 'trash-bin'
        | 'validation-rules-assignments'
        | 'validation-rules'
        | 'validations'
        | 'vouchers'
      )[]
    | undefined
  app_id?: string | undefined
  secret?: string | undefined
}
export interface AuthRotateSecretParams {
  secret?: string | undefined
}
/** The token endpoint's form fields, parsed or as `URLSearchParams`. */
export type AuthIssueTokenParams =
  | {
      grant_type: string
      scope: string
    }
  | URLSearchParams
export type AuthRevokeTokenParams =
  | URLSearchParams
  | {
      access_token: string
    }
export interface AuthAuthenticateParams {
  family: 'server' | 'client' | 'management' | 'token'
  headers: {
    [x: string]: string | string[] | undefined
  }
  operation: string
}

export interface CampaignsCreateParams {
  campaign_type: 'DISCOUNT_COUPONS' | 'GIFT_VOUCHERS' | 'REFERRAL_PROGRAM' | 'LOYALTY_PROGRAM' | 'PROMOTION'
  voucher: {
    start_date?: string | null | undefined
    expiration_date?: string | null | undefined
    validity_timeframe?:
      | {
          duration: string
          interval: string
        }
      | null
      | undefined
    type?: 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD' | undefined
    discount?: RequestDiscount | null | undefined
    gift?:
      | {
          amount: number
          effect?: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS' | undefined
        }
      | null
      | undefined
    loyalty_card?: RequestLoyaltyCard | null | undefined
    redemption?:
      | {
          quantity?: number | null | undefined
        }
      | undefined
    code_config?:
      | {
          pattern?: string | undefined
          length?: number | undefined
          charset?: string | undefined
          prefix?: string | undefined
          postfix?: string | undefined
        }
      | undefined
    is_referral_code?: boolean | undefined
  }
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
  category?: string | null | undefined
  category_id?: string | null | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
  activity_duration_after_publishing?: string | null | undefined
  auto_join?: boolean | undefined
  join_once?: boolean | undefined
  use_voucher_metadata_schema?: boolean | undefined
  start_date?: string | null | undefined
  expiration_date?: string | null | undefined
  validity_timeframe?:
    | {
        duration: string
        interval: string
      }
    | null
    | undefined
  validity_day_of_week?: number[] | null | undefined
  validity_hours?:
    | {
        daily: {
          start_time: string
          expiration_time: string
          days_of_week: number[]
        }[]
      }
    | null
    | undefined
  active?: boolean | null | undefined
  name: string
  description?: string | null | undefined
  type?: 'AUTO_UPDATE' | 'STATIC' | undefined
}
export interface CategoriesCreateParams {
  name: string
  hierarchy?: number | undefined
}
export interface CustomersCreateParams {
  id?: string | undefined
  source_id?: string | null | undefined
  name?: string | null | undefined
  email?: string | null | undefined
  phone?: string | null | undefined
  birthdate?: string | null | undefined
  address?: RequestAddress | null | undefined
  description?: string | null | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}
export interface CustomersListActivityParams {
  limit?: string | number | undefined
  order?: 'created_at' | '-created_at' | undefined
  starting_after_id?: string | undefined
  start_date?: string | undefined
  end_date?: string | undefined
  campaign_id?: string | undefined
  campaign_type?:
    | 'DISCOUNT_COUPONS'
    | 'GIFT_VOUCHERS'
    | 'REFERRAL_PROGRAM'
    | 'LOYALTY_PROGRAM'
    | 'PROMOTION'
    | undefined
  category?: 'ACTION' | 'EFFECT' | undefined
  type?: string | undefined
}

export interface ValidationsValidateStackableParams {
  redeemables: (
    | {
        object: 'voucher'
        id: string
        gift?:
          | {
              credits?: number | undefined
            }
          | undefined
        reward?:
          | {
              id: string
              points?: number | undefined
            }
          | undefined
      }
    | {
        object: 'promotion_tier'
        id: string
      }
    | {
        object: 'promotion_stack'
        id: string
      }
  )[]
  order?: RequestOrder | undefined
  customer?: RequestCustomer | undefined
  session?:
    | {
        type: 'LOCK'
        key?: string | undefined
        ttl?: number | undefined
        ttl_unit?:
          | 'DAYS'
          | 'HOURS'
          | 'MINUTES'
          | 'SECONDS'
          | 'MILLISECONDS'
          | 'MICROSECONDS'
          | 'NANOSECONDS'
          | undefined
      }
    | undefined
  tracking_id?: string | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
  options?:
    | {
        expand?: ('redemption' | 'category' | 'order' | 'redeemable')[] | undefined
      }
    | undefined
  channel?: string | undefined
}
export type RedemptionsRedeemStackableParams = ValidationsValidateStackableParams
export interface RedemptionsRollbackParams {
  reason?: string | undefined
  tracking_id?: string | undefined
  customer?: RequestCustomer | undefined
  order?:
    | {
        id?: string | undefined
        source_id?: string | null | undefined
      }
    | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}
export type RedemptionsRollbackStackableParams = RedemptionsRollbackParams

export interface PromotionsCreateParams {
  campaign_type?: 'PROMOTION' | undefined
  promotion: {
    tiers: {
      category_id?: string | null | undefined
      validation_rules?: string[] | undefined
      start_date?: string | null | undefined
      expiration_date?: string | null | undefined
      validity_timeframe?:
        | {
            duration: string
            interval: string
          }
        | null
        | undefined
      validity_day_of_week?: number[] | null | undefined
      validity_hours?:
        | {
            daily: {
              start_time: string
              expiration_time: string
              days_of_week: number[]
            }[]
          }
        | null
        | undefined
      active?: boolean | null | undefined
      name: string
      banner?: string | null | undefined
      action: {
        discount: RequestDiscount
      }
      hierarchy?: number | undefined
      metadata?:
        | {
            [x: string]: unknown
          }
        | undefined
    }[]
  }
  category?: string | null | undefined
  category_id?: string | null | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
  activity_duration_after_publishing?: string | null | undefined
  auto_join?: boolean | undefined
  join_once?: boolean | undefined
  use_voucher_metadata_schema?: boolean | undefined
  start_date?: string | null | undefined
  expiration_date?: string | null | undefined
  validity_timeframe?:
    | {
        duration: string
        interval: string
      }
    | null
    | undefined
  validity_day_of_week?: number[] | null | undefined
  validity_hours?:
    | {
        daily: {
          start_time: string
          expiration_time: string
          days_of_week: number[]
        }[]
      }
    | null
    | undefined
  active?: boolean | null | undefined
  name: string
  description?: string | null | undefined
  type?: 'AUTO_UPDATE' | 'STATIC' | undefined
}
export interface PromotionsTiersCreateParams {
  category_id?: string | null | undefined
  validation_rules?: string[] | undefined
  start_date?: string | null | undefined
  expiration_date?: string | null | undefined
  validity_timeframe?:
    | {
        duration: string
        interval: string
      }
    | null
    | undefined
  validity_day_of_week?: number[] | null | undefined
  validity_hours?:
    | {
        daily: {
          start_time: string
          expiration_time: string
          days_of_week: number[]
        }[]
      }
    | null
    | undefined
  active?: boolean | null | undefined
  name: string
  banner?: string | null | undefined
  action: {
    discount: RequestDiscount
  }
  hierarchy?: number | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
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
  rules: {
    [x: string]: unknown
  }
  error?:
    | {
        message: string
      }
    | null
    | undefined
  bundle_rules?:
    | {
        [x: string]: unknown
      }
    | null
    | undefined
  applicable_to?:
    | {
        included?: RequestApplicableTargets | undefined
        excluded?: RequestApplicableTargets | undefined
        included_all?: boolean | undefined
      }
    | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
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

export interface VouchersCreateParams {
  start_date?: string | null | undefined
  expiration_date?: string | null | undefined
  validity_timeframe?:
    | {
        duration: string
        interval: string
      }
    | null
    | undefined
  validity_day_of_week?: number[] | null | undefined
  validity_hours?:
    | {
        daily: {
          start_time: string
          expiration_time: string
          days_of_week: number[]
        }[]
      }
    | null
    | undefined
  active?: boolean | null | undefined
  additional_info?: string | null | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
  type?: 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD' | undefined
  discount?: RequestDiscount | null | undefined
  gift?:
    | {
        amount: number
        effect?: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS' | undefined
      }
    | null
    | undefined
  loyalty_card?: RequestLoyaltyCard | null | undefined
  redemption?:
    | {
        quantity?: number | null | undefined
      }
    | undefined
  code_config?:
    | {
        pattern?: string | undefined
        length?: number | undefined
        charset?: string | undefined
        prefix?: string | undefined
        postfix?: string | undefined
      }
    | undefined
  is_referral_code?: boolean | undefined
  code?: string | undefined
  campaign?: string | null | undefined
  campaign_id?: string | null | undefined
  category?: string | null | undefined
  category_id?: string | null | undefined
}
export type VouchersBulkUpdateParams = {
  code: string
  metadata: {
    [x: string]: unknown
  }
}[]

export interface ProductsCreateParams {
  source_id?: string | null | undefined
  name?: string | null | undefined
  price?: number | null | undefined
  attributes?: string[] | undefined
  image_url?: string | null | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}
export interface ProductsCreateSkuParams {
  sku?: string | null | undefined
  source_id?: string | null | undefined
  price?: number | null | undefined
  currency?: string | null | undefined
  attributes?:
    | {
        [x: string]: string | undefined
      }
    | undefined
  image_url?: string | null | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}
export interface ProductsListSkusParams {
  limit?: string | number | undefined
  page?: string | number | undefined
  order?: string | undefined
  start_date?: string | undefined
  end_date?: string | undefined
}
export interface ProductsCreateCollectionParams {
  name: string
  type: 'STATIC'
  products: {
    id: string
    product_id?: string | undefined
    object: 'product' | 'sku'
  }[]
}

export interface MetadataSchemasCreateParams {
  related_object: string
  properties: {
    [x: string]:
      | {
          type: 'string' | 'number' | 'boolean' | 'object' | 'image_url' | 'date' | 'datetime' | 'geopoint'
          array?: boolean | undefined
          optional?: boolean | undefined
          objectType?: string | null | undefined
          eq?: unknown[] | undefined
          exactLength?: number | undefined
        }
      | undefined
  }
  allow_defined_only?: boolean | null | undefined
}
export interface ExportsCreateCampaignTransactionsExportParams {
  order?: 'created_at' | '-created_at' | undefined
  parameters?:
    | {
        fields?: string[] | undefined
        filters?:
          | {
              [x: string]: unknown
            }
          | undefined
      }
    | undefined
}
export interface PublicationsCreateParams {
  customer: {
    id?: string | undefined
    source_id?: string | null | undefined
    name?: string | null | undefined
    email?: string | null | undefined
    phone?: string | null | undefined
    birthdate?: string | null | undefined
    address?: RequestAddress | null | undefined
    description?: string | null | undefined
    metadata?:
      | {
          [x: string]: unknown
        }
      | undefined
  }
  voucher?: string | undefined
  campaign?:
    | string
    | {
        name: string
        count?: number | undefined
      }
    | undefined
  source_id?: string | undefined
  channel?: string | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}
export interface ReferralsPublishParams {
  count?: number | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
  source_id?: string | undefined
  voucher?: string | undefined
  customer: {
    id?: string | undefined
    source_id?: string | null | undefined
    name?: string | null | undefined
    email?: string | null | undefined
    phone?: string | null | undefined
    birthdate?: string | null | undefined
    address?: RequestAddress | null | undefined
    description?: string | null | undefined
    metadata?:
      | {
          [x: string]: unknown
        }
      | undefined
  }
  channel?: string | undefined
}
export interface ReferralsListHoldersParams {
  limit?: string | number | undefined
  order?: string | undefined
  starting_after_id?: string | undefined
  filters?: unknown
}

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

export interface LoyaltiesCreateParams {
  campaign_type?: 'LOYALTY_PROGRAM' | undefined
  vouchers_count?: number | undefined
  voucher?:
    | {
        start_date?: string | null | undefined
        expiration_date?: string | null | undefined
        validity_timeframe?:
          | {
              duration: string
              interval: string
            }
          | null
          | undefined
        type?: 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD' | undefined
        discount?: RequestDiscount | null | undefined
        gift?:
          | {
              amount: number
              effect?: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS' | undefined
            }
          | null
          | undefined
        loyalty_card?: RequestLoyaltyCard | null | undefined
        redemption?:
          | {
              quantity?: number | null | undefined
            }
          | undefined
        code_config?:
          | {
              pattern?: string | undefined
              length?: number | undefined
              charset?: string | undefined
              prefix?: string | undefined
              postfix?: string | undefined
            }
          | undefined
        is_referral_code?: boolean | undefined
      }
    | undefined
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
  access_settings?:
    | {
        [x: string]: unknown
      }
    | undefined
  category?: string | null | undefined
  category_id?: string | null | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
  activity_duration_after_publishing?: string | null | undefined
  auto_join?: boolean | undefined
  join_once?: boolean | undefined
  use_voucher_metadata_schema?: boolean | undefined
  start_date?: string | null | undefined
  expiration_date?: string | null | undefined
  validity_timeframe?:
    | {
        duration: string
        interval: string
      }
    | null
    | undefined
  validity_day_of_week?: number[] | null | undefined
  validity_hours?:
    | {
        daily: {
          start_time: string
          expiration_time: string
          days_of_week: number[]
        }[]
      }
    | null
    | undefined
  active?: boolean | null | undefined
  name: string
  description?: string | null | undefined
  type?: 'AUTO_UPDATE' | 'STATIC' | undefined
}
export interface LoyaltiesListParams {
  limit?: string | number | undefined
  page?: string | number | undefined
  order?: string | undefined
}
export interface LoyaltiesCreateMemberParams {
  customer: {
    id?: string | undefined
    source_id?: string | null | undefined
    name?: string | null | undefined
    email?: string | null | undefined
    phone?: string | null | undefined
    birthdate?: string | null | undefined
    address?: RequestAddress | null | undefined
    description?: string | null | undefined
    metadata?:
      | {
          [x: string]: unknown
        }
      | undefined
  }
  voucher?: string | undefined
  source_id?: string | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
  channel?: string | undefined
}
export type LoyaltiesCreateRewardAssignmentsParams = {
  reward: string
  parameters?: RequestRewardParameters | undefined
}[]
/** The earning rules to create, together. */
export type LoyaltiesCreateEarningRuleParams = {
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
  start_date?: string | null | undefined
  expiration_date?: string | null | undefined
  validity_timeframe?:
    | {
        duration: string
        interval: string
      }
    | null
    | undefined
  validity_day_of_week?: number[] | null | undefined
  validity_hours?:
    | {
        daily: {
          start_time: string
          expiration_time: string
          days_of_week: number[]
        }[]
      }
    | null
    | undefined
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
  expiration_rules?:
    | {
        period_type: 'MONTH' | 'FIXED_DAY_OF_YEAR'
        period_value?: number | undefined
        rounding_type?:
          | 'END_OF_MONTH'
          | 'END_OF_QUARTER'
          | 'END_OF_HALF_YEAR'
          | 'END_OF_YEAR'
          | 'PARTICULAR_MONTH'
          | undefined
        rounding_value?: number | undefined
        fixed_month?: number | undefined
        fixed_day?: number | undefined
      }
    | null
    | undefined
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
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}[]
export type LoyaltiesListTiersParams = LoyaltiesListParams
export interface LoyaltiesRedeemRewardParams {
  reward: {
    id: string
    points?: number | undefined
  }
  order?: RequestOrder | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
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
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}
export interface RewardsCreateAssignmentParams {
  campaign: string
  parameters?: RequestRewardParameters | undefined
}

/** A custom event's body; `event` names it unless the name is passed first (`create(name, body)`). */
export type EventsCreateParams = {
  customer: {
    id?: string | undefined
    source_id?: string | null | undefined
    name?: string | null | undefined
    email?: string | null | undefined
    phone?: string | null | undefined
    birthdate?: string | null | undefined
    address?: RequestAddress | null | undefined
    description?: string | null | undefined
    metadata?:
      | {
          [x: string]: unknown
        }
      | undefined
  }
  referral?:
    | {
        code?: string | undefined
        referrer_id?: string | undefined
      }
    | null
    | undefined
  loyalty?:
    | {
        code: string
      }
    | null
    | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
} & {
  event?: string
}

export interface OrdersCreateParams {
  customer?: RequestCustomer | undefined
  id?: string | undefined
  source_id?: string | null | undefined
  status?: 'CREATED' | 'PAID' | 'CANCELED' | 'FULFILLED' | 'PROCESSING' | undefined
  amount?: number | null | undefined
  initial_amount?: number | null | undefined
  discount_amount?: number | null | undefined
  items?: RequestItems | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}
export type OrdersUpdateParams = OrdersCreateParams

export interface QualificationsCheckEligibilityParams {
  customer?: RequestCustomer | undefined
  order?: RequestOrder | undefined
  scenario?: RequestQualificationScenario | undefined
  options?:
    | {
        limit?: number | undefined
        starting_after?: string | undefined
        filters?: unknown
        expand?: ('category' | 'redeemable' | 'validation_rules')[] | undefined
        sorting_rule?: 'BEST_DEAL' | 'LEAST_DEAL' | 'DEFAULT' | undefined
        check_limits?: boolean | undefined
      }
    | undefined
  tracking_id?: string | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}
export interface QualificationsBestStackParams {
  customer?: RequestCustomer | undefined
  order: {
    id?: string | undefined
    source_id?: string | null | undefined
    status?: 'CREATED' | 'PAID' | 'CANCELED' | 'FULFILLED' | 'PROCESSING' | undefined
    amount?: number | null | undefined
    initial_amount?: number | null | undefined
    discount_amount?: number | null | undefined
    items?: RequestItems | undefined
    metadata?:
      | {
          [x: string]: unknown
        }
      | undefined
  }
  redeemables?:
    | (
        | {
            object: 'voucher'
            id: string
          }
        | {
            object: 'promotion_tier'
            id: string
          }
      )[]
    | undefined
  scenario?: RequestQualificationScenario | undefined
  options?:
    | {
        check_limits?: boolean | undefined
        filters?: unknown
      }
    | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}
export interface LoyaltiesQualificationsParams {
  customer: {
    id?: string | undefined
    source_id?: string | null | undefined
    name?: string | null | undefined
    email?: string | null | undefined
    phone?: string | null | undefined
    birthdate?: string | null | undefined
    address?: RequestAddress | null | undefined
    description?: string | null | undefined
    metadata?:
      | {
          [x: string]: unknown
        }
      | undefined
  }
  order: {
    id?: string | undefined
    source_id?: string | null | undefined
    status?: 'CREATED' | 'PAID' | 'CANCELED' | 'FULFILLED' | 'PROCESSING' | undefined
    amount?: number | null | undefined
    initial_amount?: number | null | undefined
    discount_amount?: number | null | undefined
    items?: RequestItems | undefined
    metadata?:
      | {
          [x: string]: unknown
        }
      | undefined
  }
}

export interface ExportsCreateParams {
  exported_object: 'voucher' | 'redemption' | 'customer' | 'order' | 'publication' | 'voucher_transactions'
  parameters?:
    | {
        order?: 'created_at' | 'id' | '-created_at' | '-id' | undefined
        fields?: string[] | undefined
        filters?:
          | {
              [x: string]: unknown
            }
          | undefined
      }
    | undefined
}

export interface MaintenancePurgeExpiredParams {
  limit?: number | undefined
}

/**
 * `maintenance.backfillCustomerSummaries` and `maintenance.backfillSessionLocks`: a page of customers
 * (or session locks), and where it starts.
 */
export interface MaintenanceBackfillParams {
  /** Rows per call (one commit): 1 to 1,000, 100 by default. */
  limit?: number | undefined
  /** Resume after this id (the previous call's `next_starting_after`). */
  starting_after?: string | undefined
}

/** An order as requests carry it (validations, redemptions, qualifications, orders). */
export type RequestOrder = {
  id?: string | undefined
  source_id?: string | null | undefined
  status?: 'CREATED' | 'PAID' | 'CANCELED' | 'FULFILLED' | 'PROCESSING' | undefined
  amount?: number | null | undefined
  initial_amount?: number | null | undefined
  discount_amount?: number | null | undefined
  items?:
    | {
        sku_id?: string | null | undefined
        product_id?: string | null | undefined
        related_object?: 'product' | 'sku' | undefined
        source_id?: string | null | undefined
        quantity?: string | number | null | undefined
        amount?: number | null | undefined
        discount_amount?: number | null | undefined
        price?: number | null | undefined
        product?:
          | {
              id?: string | undefined
              source_id?: string | null | undefined
              override?: boolean | undefined
              name?: string | null | undefined
              metadata?:
                | {
                    [x: string]: unknown
                  }
                | undefined
              price?: number | null | undefined
            }
          | undefined
        sku?:
          | {
              id?: string | undefined
              source_id?: string | null | undefined
              override?: boolean | undefined
              sku?: string | null | undefined
              price?: number | null | undefined
              metadata?:
                | {
                    [x: string]: unknown
                  }
                | undefined
            }
          | undefined
        metadata?:
          | {
              [x: string]: unknown
            }
          | undefined
      }[]
    | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}

/** The lines of an order as requests carry them. */
export type RequestItems = {
  sku_id?: string | null | undefined
  product_id?: string | null | undefined
  related_object?: 'product' | 'sku' | undefined
  source_id?: string | null | undefined
  quantity?: string | number | null | undefined
  amount?: number | null | undefined
  discount_amount?: number | null | undefined
  price?: number | null | undefined
  product?:
    | {
        id?: string | undefined
        source_id?: string | null | undefined
        override?: boolean | undefined
        name?: string | null | undefined
        metadata?:
          | {
              [x: string]: unknown
            }
          | undefined
        price?: number | null | undefined
      }
    | undefined
  sku?:
    | {
        id?: string | undefined
        source_id?: string | null | undefined
        override?: boolean | undefined
        sku?: string | null | undefined
        price?: number | null | undefined
        metadata?:
          | {
              [x: string]: unknown
            }
          | undefined
      }
    | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}[]

/** What a discount applies to (`applicable_to.included`, `.excluded`). */
export type RequestApplicableTargets = {
  product_campaign_quantity_limit?: number | null | undefined
  product_campaign_quantity_limit_formula?: string | null | undefined
  product_customer_campaign_quantity_limit?: number | null | undefined
  product_customer_campaign_quantity_limit_formula?: string | null | undefined
  product_in_collection_campaign_quantity_limit?: number | null | undefined
  product_in_collection_campaign_quantity_limit_formula?: string | null | undefined
  product_in_collection_customer_campaign_quantity_limit?: number | null | undefined
  product_in_collection_customer_campaign_quantity_limit_formula?: string | null | undefined
  product_promotion_tier_quantity_limit?: number | null | undefined
  product_promotion_tier_quantity_limit_formula?: string | null | undefined
  product_customer_promotion_tier_quantity_limit?: number | null | undefined
  product_customer_promotion_tier_quantity_limit_formula?: string | null | undefined
  object: 'product' | 'sku' | 'products_collection'
  id: string
  source_id?: string | null | undefined
  product_id?: string | null | undefined
  product_source_id?: string | null | undefined
  strict?: boolean | undefined
  price?: number | null | undefined
  price_formula?: string | null | undefined
  effect?:
    | 'APPLY_TO_EVERY'
    | 'APPLY_TO_CHEAPEST'
    | 'APPLY_FROM_CHEAPEST'
    | 'APPLY_TO_MOST_EXPENSIVE'
    | 'APPLY_FROM_MOST_EXPENSIVE'
    | undefined
  quantity_limit?: number | null | undefined
  aggregated_quantity_limit?: number | null | undefined
  amount_limit?: number | null | undefined
  aggregated_amount_limit?: number | null | undefined
  repeat?: number | null | undefined
  skip_initially?: number | null | undefined
  target?: 'UNIT' | 'ITEM' | undefined
}[]

/** A discount as campaigns, vouchers, promotion tiers and rewards define it. */
export type RequestDiscount =
  | {
      is_dynamic?: boolean | undefined
      aggregated_amount_limit?: number | null | undefined
      type: 'AMOUNT'
      amount_off: number
      amount_off_formula?: string | undefined
      effect?:
        | 'APPLY_TO_ORDER'
        | 'APPLY_TO_ITEMS'
        | 'APPLY_TO_ITEMS_PROPORTIONALLY'
        | 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY'
        | 'APPLY_TO_ITEMS_BY_QUANTITY'
        | undefined
    }
  | {
      is_dynamic?: boolean | undefined
      aggregated_amount_limit?: number | null | undefined
      type: 'PERCENT'
      percent_off: number
      percent_off_formula?: string | undefined
      amount_limit?: number | null | undefined
      effect?: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS' | undefined
    }
  | {
      is_dynamic?: boolean | undefined
      aggregated_amount_limit?: number | null | undefined
      type: 'FIXED'
      fixed_amount: number
      fixed_amount_formula?: string | undefined
      effect?: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS' | undefined
    }
  | {
      [x: string]: unknown
      type: 'UNIT'
    }

/** A customer as requests carry it (by id, source id or in full). */
export type RequestCustomer = {
  id?: string | undefined
  source_id?: string | null | undefined
  name?: string | null | undefined
  email?: string | null | undefined
  phone?: string | null | undefined
  birthdate?: string | null | undefined
  address?:
    | {
        city?: string | null | undefined
        state?: string | null | undefined
        line_1?: string | null | undefined
        line_2?: string | null | undefined
        country?: string | null | undefined
        postal_code?: string | null | undefined
      }
    | null
    | undefined
  description?: string | null | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}

/** A loyalty card definition (points and their expiration rules). */
export type RequestLoyaltyCard = {
  points: number
  expiration_rules?:
    | {
        period_type: 'MONTH' | 'FIXED_DAY_OF_YEAR'
        period_value?: number | undefined
        rounding_type?:
          | 'END_OF_MONTH'
          | 'END_OF_QUARTER'
          | 'END_OF_HALF_YEAR'
          | 'END_OF_YEAR'
          | 'PARTICULAR_MONTH'
          | undefined
        rounding_value?: number | undefined
        fixed_month?: number | undefined
        fixed_day?: number | undefined
      }
    | null
    | undefined
}

/** Points given per amount of a metadata property (earning rules). */
export type RequestMetadataPoints = {
  metadata?:
    | {
        every: number
        points: string | number
        points_formula?: string | undefined
        property?: string | undefined
        object?: 'product' | 'sku' | 'products_collection' | undefined
        id?: string | undefined
        applicable_to?:
          | {
              object: 'product' | 'sku' | 'products_collection'
              id: string
            }[]
          | undefined
      }
    | undefined
}

/** Points given per `every` units of an amount, quantity or property (earning rules). */
export type RequestProportionalPoints = {
  every: number
  points: string | number
  points_formula?: string | undefined
  property?: string | undefined
  object?: 'product' | 'sku' | 'products_collection' | undefined
  id?: string | undefined
  applicable_to?:
    | {
        object: 'product' | 'sku' | 'products_collection'
        id: string
      }[]
    | undefined
}

/** Points mapped per tier (multiply or custom), as tiers take them. */
export type RequestPointsMapping = {
  [x: string]:
    | {
        type: 'MULTIPLY'
        multiplier: number
      }
    | {
        type: 'CUSTOM'
        points: number
      }
    | undefined
}

/** A postal address. */
export type RequestAddress = {
  city?: string | null | undefined
  state?: string | null | undefined
  line_1?: string | null | undefined
  line_2?: string | null | undefined
  country?: string | null | undefined
  postal_code?: string | null | undefined
}

/** The parameters of a reward assignment (points cost, auto-redeem). */
export type RequestRewardParameters = {
  loyalty?:
    | {
        points?: number | undefined
        auto_redeem?: boolean | undefined
      }
    | undefined
}

/** A qualification scenario. */
export type RequestQualificationScenario =
  | 'ALL'
  | 'CUSTOMER_WALLET'
  | 'AUDIENCE_ONLY'
  | 'PRODUCTS'
  | 'PRODUCTS_DISCOUNT'
  | 'PROMOTION_STACKS'
  | 'PRODUCTS_BY_CUSTOMER'
  | 'PRODUCTS_DISCOUNT_BY_CUSTOMER'
