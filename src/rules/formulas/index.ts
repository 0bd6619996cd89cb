/**
 * Dynamic formulas (docs/behaviour.md#formulas): parse, evaluate over a plain context, resolve discount
 * fields. Pure.
 */

export type { FormulaDate, FormulaValue } from './dates'
export {
  checkFormulaSyntax,
  evaluateFormula,
  type FormulaOutcome,
  readsOrderItem,
} from './evaluate-formula'
export type { FormulaFailureCode, FormulaFailureReason } from './failure'
export {
  type FormulaContext,
  type FormulaItem,
  type FormulaValidityDates,
  MINOR_UNITS_PER_MAJOR,
  toMajorUnits,
  toMinorUnits,
} from './formula-context'
export {
  evaluateField,
  type FormulaUse,
  hasDiscountFormula,
  type ResolvedDiscount,
  resolveDiscountFormulas,
} from './resolve'
