import type { Decimal } from 'decimal.js'
import type { Discount, UnitSpec } from '../../model/discount'
import type { RoundingMode } from '../../money'
import { evaluateFormula, readsOrderItem } from './evaluate-formula'
import type { FormulaFailureReason } from './failure'
import { type FormulaContext, toMinorUnits } from './formula-context'

/**
 * How a formula-backed field came out: the value used and, when the formula could not be evaluated,
 * why the static value was used instead (docs/behaviour.md#formulas).
 */
export interface FormulaUse {
  /** The field the formula sets: `amount_off`, `percent_off`, `fixed_amount`, `unit_off`, `units[i].unit_off`. */
  field: string
  formula: string
  /** The value applied, in the field's own units (minor units for money, a plain percent, whole units). */
  value: number
  /** Present when the static value was used. */
  fallback?: FormulaFailureReason
}

export interface ResolvedDiscount {
  /** A copy with each resolved value in place and `is_dynamic: true`; the formula texts are kept. */
  discount: Discount
  uses: FormulaUse[]
}

/** True when the discount carries any formula; lets the caller skip all formula work otherwise. */
export function hasDiscountFormula(discount: Discount): boolean {
  switch (discount.type) {
    case 'AMOUNT':
      return present(discount.amount_off_formula)
    case 'PERCENT':
      return present(discount.percent_off_formula)
    case 'FIXED':
      return present(discount.fixed_amount_formula)
    case 'UNIT':
      return 'units' in discount
        ? discount.units.some((u) => present(u.unit_off_formula))
        : present(discount.unit_off_formula)
    default: {
      const _never: never = discount
      return _never
    }
  }
}

/**
 * Evaluates a discount's order-level formula against `context` (the running order, customer,
 * redemption and redeemable metadata). Money fields: the formula works in major units and the result
 * is turned into minor units, rounded once with `rounding`; `percent_off` is a plain percent, kept
 * exact; `unit_off` is floored to whole units. Negative results count as 0. A formula that reads
 * `ORDER_ITEM_*` is left for the discount module, which evaluates it once per matched line.
 * Returns null when the discount has no formula to resolve here.
 */
export function resolveDiscountFormulas(
  discount: Discount,
  context: FormulaContext,
  rounding: RoundingMode,
): ResolvedDiscount | null {
  if (!hasDiscountFormula(discount)) return null
  const uses: FormulaUse[] = []
  switch (discount.type) {
    case 'AMOUNT': {
      const value = field('amount_off', discount.amount_off_formula, discount.amount_off, context, uses, (v) =>
        toMinorUnits(v, rounding),
      )
      return value === null ? null : { discount: { ...discount, amount_off: value, is_dynamic: true }, uses }
    }
    case 'PERCENT': {
      const value = field('percent_off', discount.percent_off_formula, discount.percent_off, context, uses, percent)
      return value === null ? null : { discount: { ...discount, percent_off: value, is_dynamic: true }, uses }
    }
    case 'FIXED': {
      const value = field('fixed_amount', discount.fixed_amount_formula, discount.fixed_amount, context, uses, (v) =>
        toMinorUnits(v, rounding),
      )
      return value === null ? null : { discount: { ...discount, fixed_amount: value, is_dynamic: true }, uses }
    }
    case 'UNIT': {
      if ('units' in discount) {
        let changed = false
        const units = discount.units.map((u: UnitSpec, i): UnitSpec => {
          const value = field(`units[${i}].unit_off`, u.unit_off_formula, u.unit_off, context, uses, wholeUnits)
          if (value === null) return u
          changed = true
          return { ...u, unit_off: value }
        })
        return changed ? { discount: { ...discount, units, is_dynamic: true }, uses } : null
      }
      const value = field('unit_off', discount.unit_off_formula, discount.unit_off, context, uses, wholeUnits)
      return value === null ? null : { discount: { ...discount, unit_off: value, is_dynamic: true }, uses }
    }
    default: {
      const _never: never = discount
      return _never
    }
  }
}

/** The value of one field, recording how it was found; null when there is nothing to resolve here. */
function field(
  name: string,
  formula: string | undefined,
  fallback: number,
  context: FormulaContext,
  uses: FormulaUse[],
  convert: (v: Decimal) => number,
): number | null {
  if (!present(formula) || readsOrderItem(formula)) return null
  const use = evaluateField(name, formula, fallback, context, convert)
  uses.push(use)
  return use.value
}

/** One field's formula evaluated, or its static value with the reason. */
export function evaluateField(
  name: string,
  formula: string,
  fallback: number,
  context: FormulaContext,
  convert: (v: Decimal) => number,
): FormulaUse {
  const outcome = evaluateFormula(formula, context)
  if (outcome.ok) {
    // A result too large for a safe integer (roundToUnit throws RangeError) falls back like any failure.
    let value = Number.NaN
    try {
      value = convert(outcome.value)
    } catch (e) {
      if (!(e instanceof RangeError)) throw e
    }
    if (Number.isSafeInteger(value) || (Number.isFinite(value) && !Number.isInteger(value)))
      return { field: name, formula, value }
  }
  const reason: FormulaFailureReason = outcome.ok
    ? { code: 'not_a_number', message: 'the result is out of range', position: 0 }
    : outcome.reason
  return { field: name, formula, value: fallback, fallback: reason }
}

function percent(v: Decimal): number {
  // A plain percent; the discount module reads it as the decimal it prints as (toFraction).
  return v.isNegative() ? 0 : v.toNumber()
}

function wholeUnits(v: Decimal): number {
  return v.isNegative() ? 0 : v.floor().toNumber()
}

function present(formula: string | null | undefined): formula is string {
  return typeof formula === 'string' && formula.trim() !== ''
}
