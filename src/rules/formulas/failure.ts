/**
 * Why a formula gave no value. Any of these sends the caller to the field's static value
 * (docs/behaviour.md#formulas: the static value is the fallback when the formula can't be evaluated).
 * - `syntax`: the text does not parse (position of the offending token);
 * - `unknown_operand` / `unknown_function`: a word the language does not have;
 * - `missing_value`: metadata (or another operand) the context does not hold;
 * - `item_required`: an `ORDER_ITEM_*` operand outside a per-item evaluation;
 * - `division_by_zero`, `type` (e.g. a string where a number is needed), `arity`;
 * - `not_a_number`: the whole formula came out as a string or a yes/no.
 */
export type FormulaFailureCode =
  | 'syntax'
  | 'unknown_operand'
  | 'unknown_function'
  | 'missing_value'
  | 'item_required'
  | 'division_by_zero'
  | 'type'
  | 'arity'
  | 'not_a_number'

export interface FormulaFailureReason {
  code: FormulaFailureCode
  message: string
  /** 0-based offset into the formula text. */
  position: number
}

/** Thrown inside the parser and evaluator only; `evaluateFormula` turns it into a plain reason. */
export class FormulaFailure extends Error {
  readonly code: FormulaFailureCode
  readonly position: number
  constructor(code: FormulaFailureCode, message: string, position: number) {
    super(`${message} (at ${position})`)
    this.code = code
    this.position = position
  }

  toReason(): FormulaFailureReason {
    return { code: this.code, message: this.message, position: this.position }
  }
}
