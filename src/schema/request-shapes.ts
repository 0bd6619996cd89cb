/** Free-form metadata as requests carry it (checked against metadata schemas where defined). */
export type RequestMetadata = { [x: string]: unknown }

/** An order as requests carry it (validations, redemptions, qualifications, orders). */
export type RequestOrder = {
  id?: string | undefined
  source_id?: string | null | undefined
  status?: 'CREATED' | 'PAID' | 'CANCELED' | 'FULFILLED' | 'PROCESSING' | undefined
  amount?: number | null | undefined
  initial_amount?: number | null | undefined
  discount_amount?: number | null | undefined
  items?: RequestItems | undefined
  metadata?: RequestMetadata | undefined
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
        metadata?: RequestMetadata | undefined
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
        metadata?: RequestMetadata | undefined
      }
    | undefined
  metadata?: RequestMetadata | undefined
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
  address?: RequestAddress | null | undefined
  description?: string | null | undefined
  metadata?: RequestMetadata | undefined
}

/** When points expire (a loyalty card's, a pending points' or an earning's). */
export type RequestExpirationRules = {
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

/** A loyalty card definition (points and their expiration rules). */
export type RequestLoyaltyCard = {
  points: number
  expiration_rules?: RequestExpirationRules | null | undefined
}

/** Points given per amount of a metadata property (earning rules). */
export type RequestMetadataPoints = {
  metadata?: RequestProportionalPoints | undefined
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
/** A recurring window of validity (`validity_timeframe`): `duration` active every `interval` (ISO 8601). */
export type RequestTimeframe = { duration: string; interval: string }

/** Hours of validity on given days of the week (`validity_hours`). */
export type RequestValidityHours = {
  daily: { start_time: string; expiration_time: string; days_of_week: number[] }[]
}

/** When a campaign, tier or code is valid, as requests that create one carry it. */
export interface RequestValidity {
  start_date?: string | null | undefined
  expiration_date?: string | null | undefined
  validity_timeframe?: RequestTimeframe | null | undefined
  validity_day_of_week?: number[] | null | undefined
  validity_hours?: RequestValidityHours | null | undefined
}
/** The settings every kind of campaign takes at creation (discount, promotion, loyalty). */
export interface RequestCampaignSettings extends RequestValidity {
  category?: string | null | undefined
  category_id?: string | null | undefined
  metadata?: RequestMetadata | undefined
  activity_duration_after_publishing?: string | null | undefined
  auto_join?: boolean | undefined
  join_once?: boolean | undefined
  use_voucher_metadata_schema?: boolean | undefined
  active?: boolean | null | undefined
  name: string
  description?: string | null | undefined
  type?: 'AUTO_UPDATE' | 'STATIC' | undefined
}

/** A gift card's credits as requests set them. */
export type RequestGift = {
  amount: number
  effect?: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS' | undefined
}

/** How many times a code may be redeemed. */
export type RequestRedemptionLimit = {
  quantity?: number | null | undefined
}

/** How codes are generated. */
export type RequestCodeConfig = {
  pattern?: string | undefined
  length?: number | undefined
  charset?: string | undefined
  prefix?: string | undefined
  postfix?: string | undefined
}

/** The template of a campaign's codes (`campaign.voucher`). */
export type RequestCampaignVoucher = {
  start_date?: string | null | undefined
  expiration_date?: string | null | undefined
  validity_timeframe?: RequestTimeframe | null | undefined
  type?: 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD' | undefined
  discount?: RequestDiscount | null | undefined
  gift?: RequestGift | null | undefined
  loyalty_card?: RequestLoyaltyCard | null | undefined
  redemption?: RequestRedemptionLimit | undefined
  code_config?: RequestCodeConfig | undefined
  is_referral_code?: boolean | undefined
}
