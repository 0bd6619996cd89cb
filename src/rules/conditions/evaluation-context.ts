/**
 * The plain data a validation rule is evaluated against. The operation layer builds it (loads the
 * customer, segments, counters, collections); the evaluator only reads it. Shapes are loose enough
 * that a `CalculatedOrder` / `CalculatedOrderItem` fits as is.
 */
import type { Metadata } from '../../model/common'
import type { CounterBound } from './counter-bounds'

export interface EvalOrderItem {
  product_id?: string | null
  sku_id?: string | null
  source_id?: string | null
  related_object?: 'product' | 'sku'
  /** Unit price in minor units. */
  price?: number | null
  quantity?: number | null
  /** price × quantity */
  amount?: number | null
  subtotal_amount?: number | null
  metadata?: Metadata
  product?: { id?: string; source_id?: string | null; metadata?: Metadata; price?: number | null }
  sku?: { id?: string; source_id?: string | null; metadata?: Metadata; price?: number | null }
}

export interface EvalOrder {
  /** The running amount before this redeemable (after the earlier stacked discounts). */
  amount?: number | null
  /** The amount after this redeemable's discount, when the engine has computed it. */
  total_amount?: number | null
  /** The original cart value, constant through stacking. */
  initial_amount?: number | null
  items?: readonly EvalOrderItem[]
  metadata?: Metadata
}

export interface EvalCustomer {
  id: string
  source_id?: string | null
  metadata?: Metadata
  /** Ids of the segments the customer belongs to now. */
  segments: readonly string[]
  /** Ids of the loyalty tiers the customer holds now. */
  loyalty_tiers?: readonly string[]
  /** Read by formulas (`CUSTOMER_BIRTHDATE`). */
  birthdate?: string | null
}

/** Counts per calendar period (the week start is the project's; the engine computes them). */
export interface PeriodCounts {
  total?: number
  daily?: number
  weekly?: number
  monthly?: number
}

/**
 * Stored totals BEFORE this redemption. The evaluator adds the current redemption itself (one
 * more use, this order's amount, this discount), so a budget rule such as
 * `redemption.count.per_customer $less_than_or_equal [1]` means "at most one redemption each".
 */
export interface EvalCounters {
  /** Sum of order amounts redeemed in the campaign. */
  campaign_orders_amount?: number
  /** Sum of discounts given by the campaign. */
  campaign_orders_amount_discounted?: number
  campaign_redemptions?: PeriodCounts
  /** Distinct customers who redeemed in the campaign. */
  campaign_customers?: PeriodCounts
  /** This customer's redemptions in the campaign: decides whether they add a new distinct customer. */
  customer_campaign_redemptions?: PeriodCounts
  /** Redemptions of this incentive (voucher / promotion tier). */
  redemptions?: PeriodCounts
  /** This customer's redemptions of this incentive. */
  customer_redemptions?: PeriodCounts
}

export interface EvalRedemption {
  metadata?: Metadata
  /** Gift credits requested now. */
  gift_credits?: number | null
  /** Loyalty points requested now (pay with points). */
  points_used?: number | null
  /** This redeemable's discount, when known: counted into `campaign.orders.amount_discounted`. */
  discount_amount?: number | null
}

export interface EvalCollection {
  products: readonly string[]
  skus: readonly string[]
}

export interface EvaluationContext {
  order: EvalOrder
  customer: EvalCustomer | null
  redemption?: EvalRedemption
  counters?: EvalCounters
  /**
   * Where the evaluator records the bounds of every budget comparison it makes (an output: the
   * caller passes an empty list and reads it afterwards; see `CounterBound`).
   */
  bounds?: CounterBound[]
  /** The code's holder: `publication.redeemable_by_linked_customer` compares against it. */
  publication?: { holder_id?: string | null; holder_source_id?: string | null }
  custom_event?: { metadata?: Metadata }
  now: Date
  timeZone: string
  /** Members of the product collections rules refer to, resolved by the operation layer. */
  collections?: Readonly<Record<string, EvalCollection>>
  /**
   * Decide on the customer's profile alone (the `AUDIENCE_ONLY` qualification): rules about the cart
   * (`order.*`, `product.*`, `sku.*`) are not evaluated, neither passed nor failed, so they never
   * decide the answer (docs/qualifications.md#scenarios).
   */
  audienceOnly?: boolean
}
