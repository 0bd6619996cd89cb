import type { Decimal } from 'decimal.js'
import type { Metadata } from '../../model/common'
import { decimal, type RoundingMode, roundToUnit } from '../../money'

/**
 * What a formula reads, as plain data. Money here is in minor units (the engine's integers); the
 * evaluator shows money operands to the formula in MAJOR units (÷ 100, exactly), as the hosted
 * examples write them (docs/behaviour.md#formulas: "ORDER_ITEM_PRICE × 0.01 + 1: price 6.00 → 1.06"). A money
 * result is turned back into minor units by `toMinorUnits`, rounded once. Metadata values are shown
 * as they are stored (no unit conversion): a formula that mixes them with money decides the units.
 */
export interface FormulaItem {
  /** Unit price, minor units. */
  price: number
  /** price × quantity, before any discount (ORDER_ITEM_AMOUNT). */
  amount: number
  /** What is left of the line after the discounts before this one (ORDER_ITEM_SUBTOTAL). */
  subtotal_amount: number
  quantity: number
  metadata?: Metadata | undefined
  product?: { metadata?: Metadata | undefined } | undefined
  sku?: { metadata?: Metadata | undefined } | undefined
}

export interface FormulaContext {
  order?:
    | {
        /** Minor units. */
        amount: number
        items: readonly FormulaItem[]
        metadata?: Metadata | null | undefined
      }
    | null
    | undefined
  /** The line a per-item formula is evaluated for (`ORDER_ITEM_*`). */
  item?: FormulaItem | null | undefined
  customer?:
    | {
        metadata?: Metadata | null | undefined
        /** `CUSTOMER_BIRTHDATE`: its `YYYY-MM-DD` part is the calendar date. */
        birthdate?: string | null | undefined
      }
    | null
    | undefined
  /** The voucher or promotion tier the formula belongs to. */
  redeemable?:
    | {
        metadata?: Metadata | null | undefined
        /** The voucher's redemption limit (`redemption.quantity`); null is unlimited. */
        redemption_quantity?: number | null | undefined
        redeemed_quantity?: number | undefined
        publish_count?: number | undefined
      }
    | null
    | undefined
  redemption?: { metadata?: Metadata | null | undefined } | null | undefined
  /** `VOUCHER_START_DATE` / `VOUCHER_EXPIRATION_DATE`: ISO date-times, when the formula belongs to a voucher. */
  voucher?: FormulaValidityDates | null | undefined
  /** `PROMOTION_TIER_START_DATE` / `PROMOTION_TIER_EXPIRATION_DATE`, when it belongs to a promotion tier. */
  promotion_tier?: FormulaValidityDates | null | undefined
  /**
   * The evaluation's "now" (`NOW`; `TODAY` is its calendar date in `timeZone`). Rules never read a
   * clock: without it every date operand fails and the static value applies.
   */
  now?: Date | undefined
  /** The engine's IANA time zone: calendar dates are read there. UTC when absent. */
  timeZone?: string | undefined
}

export interface FormulaValidityDates {
  start_date?: string | null | undefined
  expiration_date?: string | null | undefined
}

/** The currency-agnostic engine assumes two decimal places (cents) between formula and money. */
export const MINOR_UNITS_PER_MAJOR = 100

export function toMajorUnits(minor: number): Decimal {
  return decimal(minor).dividedBy(MINOR_UNITS_PER_MAJOR)
}

/** A money result of a formula (major units) as minor units, rounded once by the engine's mode; never below 0. */
export function toMinorUnits(value: Decimal, rounding: RoundingMode): number {
  if (value.isNegative()) return 0
  return roundToUnit(value.times(MINOR_UNITS_PER_MAJOR), rounding)
}
