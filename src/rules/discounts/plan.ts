import type { CalculatedOrder, CalculatedOrderItem } from '../../model/order'
import type { RoundingMode } from '../../money'
import type { FormulaContext, FormulaUse } from '../formulas'
import { capLines, itemsRoom } from './caps'
import type { TargetSelection } from './targeting'
import type { AppliedLine, CalculationMode, CatalogPrices } from './types'

/** Everything a discount type needs to decide one step, resolved once by the step. */
export interface StepContext {
  order: CalculatedOrder
  mode: CalculationMode
  rounding: RoundingMode
  /** Bundle multiplier (1 without bundles). */
  multiplier: number
  targets: TargetSelection
  prices: CatalogPrices | undefined
  once: boolean
  /** What per-line formulas read besides the order and the line (customer, redeemable, redemption). */
  formulas: FormulaContext | undefined
  /** Per-line formula evaluations of this step, in order (created only when a formula is evaluated). */
  formulaUses: FormulaUse[] | undefined
}

/** What a step decided, before it is written onto the order (see totals.ts). */
export interface StepPlan {
  orderDiscount: number
  /** Touched lines; indices ≥ the order's item count refer to `newItems`. */
  lines: AppliedLine[]
  /** Lines the step adds (UNIT discounts), with quantity 0: their `lines` entry adds the units. */
  newItems: CalculatedOrderItem[]
}

export function orderPlan(orderDiscount: number): StepPlan {
  return { orderDiscount, lines: [], newItems: [] }
}

/** A line's base for a ratio: what is left of it, or its amount before discounts (INITIAL_AMOUNT). */
export function lineBase(item: CalculatedOrderItem, mode: CalculationMode): number {
  return mode === 'INITIAL_AMOUNT' ? item.amount : item.amount - item.discount_amount
}

/** Takes the caps spanning lines and drops lines left with nothing. */
export function itemPlan(
  ctx: StepContext,
  lines: AppliedLine[],
  lineGroups: number[],
  aggregatedLimit: number | null | undefined,
): StepPlan {
  capLines(lines, lineGroups, ctx.targets.groups, aggregatedLimit, itemsRoom(ctx.order))
  let kept = 0
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k] as AppliedLine
    if (line.discount_amount > 0) lines[kept++] = line
  }
  lines.length = kept
  return { orderDiscount: 0, lines, newItems: [] }
}
