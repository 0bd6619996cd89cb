import type { PercentDiscount, PercentEffect } from '../../model/discount'
import { mulDivRound, mulMulDivRound, toFraction } from '../../money'
import { minCap, orderRoom } from './caps'
import { lineBase, orderPlan, perLinePlan, type StepContext, type StepPlan } from './step-plan'

/**
 * PERCENT: `percent_off` (× bundles: 5% × 5 bundles = 25%) of the order or of each chosen line, on
 * the running amount (DISCOUNTED_AMOUNT) or the amount before discounts (INITIAL_AMOUNT). Each amount
 * is rounded once. `amount_limit` caps the order discount, or each line's.
 */
export function percentPlan(discount: PercentDiscount, effect: PercentEffect, ctx: StepContext): StepPlan {
  const rate = toFraction(discount.percent_off, 'discount.percent_off')
  const num = rate.num * ctx.multiplier
  const den = rate.den * 100
  switch (effect) {
    case 'APPLY_TO_ORDER': {
      const order = ctx.order
      const base = ctx.mode === 'INITIAL_AMOUNT' ? order.amount : order.amount - order.total_discount_amount
      let d = base > 0 ? mulDivRound(base, num, den, ctx.rounding) : 0
      d = minCap(minCap(d, discount.amount_limit), discount.aggregated_amount_limit)
      return orderPlan(Math.min(d, orderRoom(order)))
    }
    case 'APPLY_TO_ITEMS':
      return perLinePlan(
        ctx,
        { line: discount.amount_limit, aggregated: discount.aggregated_amount_limit },
        (pick, item) => {
          const base = lineBase(item, ctx.mode)
          if (base <= 0) return 0
          return pick.units === item.quantity
            ? mulDivRound(base, num, den, ctx.rounding)
            : mulMulDivRound(base, pick.units, num, item.quantity, den, ctx.rounding)
        },
      )
    default: {
      const _never: never = effect
      return _never
    }
  }
}
