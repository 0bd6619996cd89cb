import type { DateTime, Metadata } from './common'

export type ApplicableToObject = 'product' | 'sku' | 'products_collection'
export type ApplicableToEffect =
  | 'APPLY_TO_EVERY'
  | 'APPLY_TO_CHEAPEST'
  | 'APPLY_FROM_CHEAPEST'
  | 'APPLY_TO_MOST_EXPENSIVE'
  | 'APPLY_FROM_MOST_EXPENSIVE'

/** One entry of a validation rule's `applicable_to.included` / `excluded`. */
export interface ApplicableToEntry {
  object: ApplicableToObject
  id: string
  source_id?: string | null
  product_id?: string | null
  product_source_id?: string | null
  strict?: boolean
  /** FIXED per-item new price for this target. */
  price?: number | null
  price_formula?: string | null
  effect?: ApplicableToEffect
  quantity_limit?: number | null
  aggregated_quantity_limit?: number | null
  amount_limit?: number | null
  aggregated_amount_limit?: number | null
  repeat?: number | null
  skip_initially?: number | null
  target?: 'ITEM' | 'UNIT'
  /**
   * Unit budgets (docs/concepts.md#targeting): how many units the entry may discount in all, counted over the
   * successful, not rolled back redemptions of the campaign (per customer: of this customer) or of the
   * promotion tier. `product_in_collection_*` count per product (or SKU) inside a collection entry.
   * Each has a `_formula` variant; the static value is its fallback.
   */
  product_campaign_quantity_limit?: number | null
  product_campaign_quantity_limit_formula?: string | null
  product_customer_campaign_quantity_limit?: number | null
  product_customer_campaign_quantity_limit_formula?: string | null
  product_in_collection_campaign_quantity_limit?: number | null
  product_in_collection_campaign_quantity_limit_formula?: string | null
  product_in_collection_customer_campaign_quantity_limit?: number | null
  product_in_collection_customer_campaign_quantity_limit_formula?: string | null
  product_promotion_tier_quantity_limit?: number | null
  product_promotion_tier_quantity_limit_formula?: string | null
  product_customer_promotion_tier_quantity_limit?: number | null
  product_customer_promotion_tier_quantity_limit_formula?: string | null
}

/** The unit budget fields of an entry, each with a `_formula` variant. */
export const UNIT_BUDGET_FIELDS = [
  'product_campaign_quantity_limit',
  'product_customer_campaign_quantity_limit',
  'product_in_collection_campaign_quantity_limit',
  'product_in_collection_customer_campaign_quantity_limit',
  'product_promotion_tier_quantity_limit',
  'product_customer_promotion_tier_quantity_limit',
] as const

export type UnitBudgetField = (typeof UNIT_BUDGET_FIELDS)[number]

export interface ApplicableTo {
  included?: ApplicableToEntry[]
  excluded?: ApplicableToEntry[]
  included_all?: boolean
}

/** `{"$more_than": [10000]}`: operators map to arrays of values. */
export type Conditions = Record<string, unknown[]>

export interface RuleDefinition {
  name: string
  property?: string | null
  conditions: Conditions
  /** Nested sub-rules (e.g. conditions on matched items), numbered like the top level, with `logic`. */
  rules?: RuleSet
  error?: { message: string }
}

/** `{"1": {...}, "2": {...}, "logic": "(1 and 2) or 3"}` */
export type RuleSet = { logic?: string } & { [n: string]: RuleDefinition | string | undefined }

export interface BundleRules {
  limit?: number
  [n: string]: RuleDefinition | number | undefined
}

export interface ValidationRule {
  id: string
  name: string
  error?: { message: string } | null
  type?: 'expression' | 'basic' | 'advanced' | 'complex'
  context_type?: string
  rules: RuleSet
  bundle_rules?: BundleRules | null
  applicable_to?: ApplicableTo
  metadata?: Metadata
  created_at: DateTime
  updated_at: DateTime | null
  assignments_count?: number
  object: 'validation_rules'
}

export type ValidationRuleRelatedObject =
  | 'voucher'
  | 'campaign'
  | 'promotion_tier'
  | 'earning_rule'
  | 'reward_assignment'
  | 'distribution'

export interface ValidationRuleAssignment {
  id: string
  rule_id: string
  related_object_id: string
  related_object_type: ValidationRuleRelatedObject
  created_at: DateTime
  object: 'validation_rules_assignment'
}

/** Which units of one order line a targeting entry covered (`units` are 1-based, listed up to 1000 units). */
export interface OrderItemUnits {
  index: number
  units?: number[]
  units_limit_exceeded: boolean
}

/** A targeting entry as a result reports it: the entry plus the order lines it covered. */
export interface ApplicableToResultItem extends ApplicableToEntry {
  effect: ApplicableToEffect
  target: 'ITEM' | 'UNIT'
  order_item_indices: number[]
  order_item_units: OrderItemUnits[]
  /** Engine extension, present when a unit budget applies to the entry: what it allowed and refused. */
  unit_budget?: UnitBudgetReport
}

/**
 * What the unit budgets allowed an entry in this request (engine extension, "explain every no"):
 * the units still allowed before it (the tightest budget), per collection member where those count,
 * and the units the targeting chose but the budgets refused.
 */
export interface UnitBudgetReport {
  /** Units the entry-wide budgets still allowed; absent when only per-member budgets apply. */
  remaining_units?: number
  /** Per product (or SKU) id of a collection entry: units its budget still allowed. */
  members?: Record<string, number>
  refused_units: number
}

/** `applicable_to` / `inapplicable_to` on a redeemable result: the service interface's list envelope over `data`. */
export interface ApplicableToResultList {
  object: 'list'
  data_ref: 'data'
  data: ApplicableToResultItem[]
  total: number
}
