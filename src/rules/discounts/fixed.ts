import type { FixedDiscount, FixedEffect } from '../../model/discount'
import { divRound, divRoundBig } from '../../money'
import { lineRoom, minCap, orderRoom } from './caps'
import { lineMoney, perLineFormula } from './line-formulas'
import { orderPlan, perLinePlan, type StepContext, type StepPlan } from './step-plan'

/**
 * FIXED ("new price"): the order, or each chosen unit, ends up costing `fixed_amount` (a targeting
 * entry's own `price` wins for its lines). Never multiplied by bundles in value; the number of units
 * is (the targeting scales its unit limits). A new price is a target, not a ratio, so it always
 * starts from what is left to pay, whatever the calculation mode; nothing already cheaper is raised.
 * A per-line price comes from the entry's `price_formula` (its `price`, then `fixed_amount`, the
 * fallback), or from a `fixed_amount_formula` that reads `ORDER_ITEM_*`, evaluated per matched line.
 */
export function fixedPlan(discount: FixedDiscount, effect: FixedEffect, ctx: StepContext): StepPlan {
  switch (effect) {
    case 'APPLY_TO_ORDER': {
      const room = orderRoom(ctx.order)
      const d = room > discount.fixed_amount ? room - discount.fixed_amount : 0
      return orderPlan(minCap(d, discount.aggregated_amount_limit))
    }
    case 'APPLY_TO_ITEMS': {
      const ownFormula = perLineFormula(discount.fixed_amount_formula)
      return perLinePlan(ctx, { aggregated: discount.aggregated_amount_limit }, (pick, item, entry) => {
        let newPrice = entry?.price ?? discount.fixed_amount
        const formula = entry?.price_formula ?? (entry?.price == null ? ownFormula : null)
        if (formula != null && formula !== '') {
          newPrice = lineMoney(
            ctx,
            item,
            pick.index,
            entry?.price_formula ? 'price' : 'fixed_amount',
            formula,
            newPrice,
          )
        }
        return unitsAbove(lineRoom(item), item.quantity, pick.units, newPrice, ctx)
      })
    }
    default: {
      const _never: never = effect
      return _never
    }
  }
}

/** `units` units worth `room ÷ quantity` each, brought down to `newPrice` each: Σ max(0, value − new). */
function unitsAbove(room: number, quantity: number, units: number, newPrice: number, ctx: StepContext): number {
  if (units === quantity) return room > newPrice * units ? room - newPrice * units : 0
  // (room × units − newPrice × units × quantity) ÷ quantity, rounded once.
  const a = room * units
  const b = newPrice * units * quantity
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) return a > b ? divRound(a - b, quantity, ctx.rounding) : 0
  const big = BigInt(room) * BigInt(units) - BigInt(newPrice) * BigInt(units) * BigInt(quantity)
  return big > 0n ? Number(divRoundBig(big, BigInt(quantity), ctx.rounding)) : 0
}
