import type { AmountDiscount, AmountEffect } from '../../model/discount'
import type { CalculatedOrderItem } from '../../model/order'
import { mulDivRound } from '../../money'
import { allocateCapped, entryLineCap, lineRoom, minCap, orderRoom } from './caps'
import { lineMoney, perLineFormula } from './line-formulas'
import { lineBase, orderPlan, perLinePlan, type StepContext, type StepPlan } from './step-plan'
import type { Pick } from './target-lines'

/**
 * AMOUNT: `amount_off` (× bundles, except per unit) off the order, each line, each unit, or split over
 * lines. An `amount_off_formula` that reads `ORDER_ITEM_*` gives each line (or each unit of it) its
 * own value for APPLY_TO_ITEMS and APPLY_TO_ITEMS_BY_QUANTITY; elsewhere it has no line to read and
 * the static `amount_off` applies.
 */
export function amountPlan(discount: AmountDiscount, effect: AmountEffect, ctx: StepContext): StepPlan {
  const value = discount.amount_off * ctx.multiplier
  const formula = discount.amount_off_formula === undefined ? null : perLineFormula(discount.amount_off_formula)
  const limits = { aggregated: discount.aggregated_amount_limit }
  switch (effect) {
    case 'APPLY_TO_ORDER':
      return orderPlan(Math.min(minCap(value, discount.aggregated_amount_limit), orderRoom(ctx.order)))
    case 'APPLY_TO_ITEMS':
      if (formula !== null)
        return perLinePlan(ctx, limits, (pick) => lineAmountOff(ctx, pick, formula, discount) * ctx.multiplier)
      return perLinePlan(ctx, limits, () => value)
    case 'APPLY_TO_ITEMS_BY_QUANTITY':
      // Per unit: bundles multiply the units (the targeting's unit limits), not the value per unit
      // (docs/concepts.md#bundles: 2 bundles, limit 1 per line, 3 mice → 2 mice at $20 = $40).
      if (formula !== null)
        return perLinePlan(ctx, limits, (pick) => lineAmountOff(ctx, pick, formula, discount) * pick.units)
      return perLinePlan(ctx, limits, (pick) => discount.amount_off * pick.units)
    case 'APPLY_TO_ITEMS_PROPORTIONALLY':
      return split(ctx, discount, value, (pick, item) => amountWeight(pick, item, ctx))
    case 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY':
      return split(ctx, discount, value, (pick) => pick.units)
    default: {
      const _never: never = effect
      return _never
    }
  }
}

function lineAmountOff(ctx: StepContext, pick: Pick, formula: string, discount: AmountDiscount): number {
  const item = ctx.order.items[pick.index] as CalculatedOrderItem
  return lineMoney(ctx, item, pick.index, 'amount_off', formula, discount.amount_off)
}

function split(
  ctx: StepContext,
  discount: AmountDiscount,
  value: number,
  weightOf: (pick: Pick, item: CalculatedOrderItem) => number,
): StepPlan {
  const { picks, groups } = ctx.targets
  const items = ctx.order.items
  const weights: number[] = new Array(picks.length)
  const caps: number[] = new Array(picks.length)
  for (let k = 0; k < picks.length; k++) {
    const pick = picks[k] as Pick
    const item = items[pick.index] as CalculatedOrderItem
    caps[k] = entryLineCap(groups[pick.group]?.entry ?? null, lineRoom(item))
    weights[k] = weightOf(pick, item)
  }
  const parts = allocateCapped(minCap(value, discount.aggregated_amount_limit), weights, caps)
  // The parts already respect every cap; the shared loop only shapes the lines.
  return perLinePlan(ctx, { aggregated: undefined }, (_pick, _item, _entry, k) => parts[k] as number)
}

/** A line weighs what is left of it; a partly chosen line only its chosen units' share (an integer weight). */
function amountWeight(pick: Pick, item: CalculatedOrderItem, ctx: StepContext): number {
  const base = lineBase(item, ctx.mode)
  return pick.units === item.quantity ? base : mulDivRound(base, pick.units, item.quantity, 'down')
}
