import type { CalculatedOrderItem } from '../../model/order'
import { evaluateField, type FormulaUse, readsOrderItem, toMinorUnits } from '../formulas'
import type { StepContext } from './step-plan'

/**
 * A money value evaluated for one order line (`ORDER_ITEM_*` operands read `item`): an applicable_to
 * entry's `price_formula`, or a discount formula that reads the line. The formula works in major
 * units; the result is minor units, rounded once by the step's mode. When it cannot be evaluated the
 * static value is used and the use records why (docs/behaviour.md#formulas). Only called when a formula is present.
 */
export function lineMoney(
  ctx: StepContext,
  item: CalculatedOrderItem,
  index: number,
  field: string,
  formula: string,
  fallback: number,
): number {
  const use = evaluateField(
    `order.items[${index}].${field}`,
    formula,
    fallback,
    { ...ctx.formulas, order: ctx.order, item },
    (v) => toMinorUnits(v, ctx.rounding),
  )
  ctx.formulaUses ??= []
  ctx.formulaUses.push(use)
  return use.value
}

/** The discount's own formula when it is per line (it reads `ORDER_ITEM_*`); order-level ones the caller resolved. */
export function perLineFormula(formula: string | null | undefined): string | null {
  return typeof formula === 'string' && formula.trim() !== '' && readsOrderItem(formula) ? formula : null
}

export type { FormulaUse }
