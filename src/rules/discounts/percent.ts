import type { PercentDiscount, PercentEffect } from '../../model/discount'
import type { CalculatedOrderItem } from '../../model/order'
import { mulDivRound, mulMulDivRound, toFraction } from '../../money'
import { entryLineCap, lineRoom, minCap, orderRoom } from './caps'
import { itemPlan, lineBase, orderPlan, type StepContext, type StepPlan } from './plan'
import type { Pick } from './targeting'
import type { AppliedLine } from './types'

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
    case 'APPLY_TO_ITEMS': {
      const { picks, groups } = ctx.targets
      const items = ctx.order.items
      const lines: AppliedLine[] = new Array(picks.length)
      const lineGroups: number[] = new Array(picks.length)
      for (let k = 0; k < picks.length; k++) {
        const pick = picks[k] as Pick
        const item = items[pick.index] as CalculatedOrderItem
        const base = lineBase(item, ctx.mode)
        let d = 0
        if (base > 0) {
          d =
            pick.units === item.quantity
              ? mulDivRound(base, num, den, ctx.rounding)
              : mulMulDivRound(base, pick.units, num, item.quantity, den, ctx.rounding)
        }
        const cap = minCap(entryLineCap(groups[pick.group]?.entry ?? null, lineRoom(item)), discount.amount_limit)
        lines[k] = {
          index: pick.index,
          discount_amount: Math.min(d, cap),
          discount_quantity: pick.units,
          added_quantity: 0,
        }
        lineGroups[k] = pick.group
      }
      return itemPlan(ctx, lines, lineGroups, discount.aggregated_amount_limit)
    }
    default: {
      const _never: never = effect
      return _never
    }
  }
}
