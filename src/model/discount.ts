import type { ApplicableToEntry } from './validation-rule'

export type AmountEffect =
  | 'APPLY_TO_ORDER'
  | 'APPLY_TO_ITEMS'
  | 'APPLY_TO_ITEMS_PROPORTIONALLY'
  | 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY'
  | 'APPLY_TO_ITEMS_BY_QUANTITY'
export type PercentEffect = 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS'
export type FixedEffect = 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS'
export type UnitEffect = 'ADD_MISSING_ITEMS' | 'ADD_NEW_ITEMS'

export interface DiscountBase {
  is_dynamic?: boolean
  /** AMOUNT, PERCENT: the maximum discount across all matched lines. */
  aggregated_amount_limit?: number | null
}

export interface AmountDiscount extends DiscountBase {
  type: 'AMOUNT'
  amount_off: number
  amount_off_formula?: string
  effect?: AmountEffect
}

export interface PercentDiscount extends DiscountBase {
  type: 'PERCENT'
  /** A plain percent number: 10 means 10%. */
  percent_off: number
  percent_off_formula?: string
  /** APPLY_TO_ORDER: cap on the order discount; APPLY_TO_ITEMS: cap per line. */
  amount_limit?: number | null
  effect?: PercentEffect
}

export interface FixedDiscount extends DiscountBase {
  type: 'FIXED'
  /** The new price: of the whole order (APPLY_TO_ORDER) or of each matched unit (APPLY_TO_ITEMS). */
  fixed_amount: number
  fixed_amount_formula?: string
  effect?: FixedEffect
}

export interface UnitProductRef {
  id: string
  source_id?: string | null
  name?: string | null
}

export interface UnitSpec {
  unit_off: number
  unit_off_formula?: string
  effect: UnitEffect
  /** The product or SKU id the free units are of (`prod_5h1pp1ng` for free shipping). */
  unit_type: string
  product?: UnitProductRef
  sku?: UnitProductRef
}

export interface UnitDiscount extends DiscountBase {
  type: 'UNIT'
  unit_off: number
  unit_off_formula?: string
  effect?: UnitEffect
  unit_type: string
  product?: UnitProductRef
  sku?: UnitProductRef
}

export interface UnitManyDiscount extends DiscountBase {
  type: 'UNIT'
  effect: 'ADD_MANY_ITEMS'
  units: UnitSpec[]
}

export type Discount = AmountDiscount | PercentDiscount | FixedDiscount | UnitDiscount | UnitManyDiscount

export type DiscountType = Discount['type']

/** The built-in shipping product: free shipping is a UNIT discount of it. */
export const SHIPPING_PRODUCT_ID = 'prod_5h1pp1ng'

/** Targeting resolved by the operation layer: what a discount may touch in one order. */
export interface DiscountTargeting {
  included?: ApplicableToEntry[]
  excluded?: ApplicableToEntry[]
  included_all?: boolean
}

export interface GiftInfo {
  /** Lifetime income of the card, in minor units. */
  amount: number
  subtracted_amount?: number
  balance: number
  effect?: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS'
}
