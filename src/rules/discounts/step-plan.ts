import type { CalculatedOrder, CalculatedOrderItem } from '../../model/order'
import type { ApplicableToEntry } from '../../model/validation-rule'
import type { RoundingMode } from '../../money'
import type { FormulaContext, FormulaUse } from '../formulas'
import { capLines, entryLineCap, itemsRoom, lineRoom, minCap } from './caps'
import type { AppliedLine, CalculationMode, CatalogPrices } from './discount-types'
import type { Pick, TargetSelection } from './target-lines'

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

/**
 * One applied line per chosen line (`k`-th pick): `discountOf` gives its discount, capped by what is left of the line,
 * its targeting entry's `amount_limit` and the discount's own per-line `lineLimit`; then the caps
 * spanning lines (see `itemPlan`). The one loop the AMOUNT, PERCENT and FIXED types share.
 */
export function perLinePlan(
  ctx: StepContext,
  limits: { line?: number | null | undefined; aggregated: number | null | undefined },
  discountOf: (pick: Pick, item: CalculatedOrderItem, entry: ApplicableToEntry | null, k: number) => number,
): StepPlan {
  const { picks, groups } = ctx.targets
  const items = ctx.order.items
  const lines: AppliedLine[] = new Array(picks.length)
  const lineGroups: number[] = new Array(picks.length)
  for (let k = 0; k < picks.length; k++) {
    const pick = picks[k] as Pick
    const item = items[pick.index] as CalculatedOrderItem
    const entry = groups[pick.group]?.entry ?? null
    const cap = minCap(entryLineCap(entry, lineRoom(item)), limits.line)
    lines[k] = {
      index: pick.index,
      discount_amount: Math.min(discountOf(pick, item, entry, k), cap),
      discount_quantity: pick.units,
      added_quantity: 0,
    }
    lineGroups[k] = pick.group
  }
  return itemPlan(ctx, lines, lineGroups, limits.aggregated)
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
