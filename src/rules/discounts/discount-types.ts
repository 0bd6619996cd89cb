import type { Discount } from '../../model/discount'
import type { CalculatedOrder } from '../../model/order'
import type { ApplicableTo, ApplicableToResultList } from '../../model/validation-rule'
import type { RoundingMode } from '../../money'
import type { FormulaContext, FormulaUse } from '../formulas'

/** How a percentage finds its base: the running total, or the amount before any discount. */
export type CalculationMode = 'DISCOUNTED_AMOUNT' | 'INITIAL_AMOUNT'

/** `STACK`: several steps may discount one line. `ONCE`: a line discounted by an earlier step is left alone. */
export type ProductsApplicationMode = 'STACK' | 'ONCE'

/** Catalogue unit prices resolved by the caller (minor units), by product id and by SKU id. */
export interface CatalogPrices {
  product?: Readonly<Record<string, number>>
  sku?: Readonly<Record<string, number>>
}

/** The members of one product collection, resolved by the caller. */
export interface CollectionMembers {
  products?: readonly string[]
  skus?: readonly string[]
}

export type Collections = Readonly<Record<string, CollectionMembers>>

export interface NormalizeOptions {
  /** Used for items that reference a product or SKU but send no price. */
  prices?: CatalogPrices
  /** Field path prefix in error messages; `order` by default. */
  path?: string
}

export interface CalculationOptions {
  /** How every computed amount is rounded to a minor unit; `half-up` by default. */
  rounding?: RoundingMode
  /** The mode of a step that does not choose its own; `DISCOUNTED_AMOUNT` by default. */
  calculationMode?: CalculationMode
  /** `STACK` by default. */
  productsApplicationMode?: ProductsApplicationMode
  /** Product collections named by `applicable_to` entries. */
  collections?: Collections
  /** Unit prices for UNIT discounts whose product is not in the order yet. */
  prices?: CatalogPrices
}

/**
 * What the unit budgets (docs/concepts.md#targeting: `product_*_quantity_limit`) still allow one included
 * targeting entry, computed by the caller from past redemptions. Absent fields mean no budget.
 */
export interface UnitRoom {
  /** Units the entry may still discount across all its lines: the tightest entry-wide budget left. */
  units?: number
  /** Collection entries: units each member may still discount, by product id (SKU id for a SKU member). */
  members?: Readonly<Record<string, number>>
  /** Collection entries: the room of a member `members` does not list (none of its units used yet). */
  member_default?: number
}

/** A discount to apply: the discount object, its targeting (the validation rule's `applicable_to`) and the bundles found. */
export interface DiscountStep {
  kind: 'discount'
  discount: Discount
  applicable_to?: ApplicableTo
  /** Bundles identified for this discount (docs/concepts.md#bundles); the value multiplier. 1 when absent. */
  bundleMultiplier?: number
  /** Unit budgets left, by position in `applicable_to.included`; never scaled by bundles. */
  unitRoom?: readonly (UnitRoom | undefined)[]
  /** This step's mode, after the caller resolved per-category overrides. Falls back to the options. */
  calculationMode?: CalculationMode
  /**
   * What per-line formulas (`price_formula`, a discount formula reading `ORDER_ITEM_*`) read besides
   * the running order and the line: customer, redeemable and redemption metadata. Order-level formulas
   * are resolved by the caller before the step (see `resolveDiscountFormulas`).
   */
  formulas?: FormulaContext
}

/** An order-level credit: gift-card credits or the money value of points paid with. */
export interface CreditStep {
  kind: 'credit'
  /** The credit requested, in minor units; what is applied is capped at what is left to pay. */
  amount: number
  source?: 'gift_card' | 'loyalty_points'
  /**
   * `APPLY_TO_ORDER` (default): an order-level discount. `APPLY_TO_ITEMS` (a gift card's `gift.effect`,
   * docs/concepts.md#gift-cards): line discounts on the lines `applicable_to` matches (every line without it).
   */
  effect?: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS'
  applicable_to?: ApplicableTo
}

export type Step = DiscountStep | CreditStep

/** What one step changed on one order line. */
export interface AppliedLine {
  index: number
  discount_amount: number
  discount_quantity: number
  /** Units the step added to the line (UNIT discounts). */
  added_quantity: number
}

export interface AppliedAmounts {
  /** The order-level discount of this step (credits, APPLY_TO_ORDER effects). */
  discount_amount: number
  /** The sum of this step's line discounts. */
  items_discount_amount: number
  total_discount_amount: number
  /** The value of units this step added to the order (UNIT effects): the order `amount` grew by it. */
  added_amount: number
  /** Credit steps: the amount asked for, before the cap. */
  requested_amount?: number
  /** Credit steps: the credits applied, at order level or on the matched lines. */
  credited_amount?: number
  /** Lines the step touched, by index, in application order. */
  lines: AppliedLine[]
  /** Per-line formulas evaluated by this step, with the static fallbacks used; absent when none. */
  formulas?: FormulaUse[]
}

export interface StepResult {
  /** The cumulative order after this step; its `applied_*` fields are this step's amounts. */
  order: CalculatedOrder
  applied: AppliedAmounts
  applicable_to: ApplicableToResultList
  inapplicable_to: ApplicableToResultList
  /** `no_effect` when the step neither discounted nor added anything. */
  effect: 'applied' | 'no_effect'
}

export interface SequenceResult {
  steps: StepResult[]
  /** The final order; its `applied_*` fields are the totals of the whole sequence. */
  order: CalculatedOrder
}
