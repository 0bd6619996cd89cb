import type { CalculatedOrder, CalculatedOrderItem } from '../../model/order'
import type { ApplicableTo } from '../../model/validation-rule'
import { assertMoney, mulDivRound } from '../../money'
import { allocateCapped, itemsRoom, lineRoom, orderRoom } from './caps'
import type { AppliedLine, Collections, CreditStep } from './discount-types'
import { orderPlan, type StepPlan } from './step-plan'
import { type Pick, selectTargets, type TargetSelection } from './target-lines'

/**
 * Gift-card credits and pay-with-points value are order-level discounts (docs/concepts.md#gift-cards,
 * docs/concepts.md#pay-with-points), capped at what is left to pay: the caller asks for an amount, the step
 * reports what was applied.
 */
export function creditPlan(order: CalculatedOrder, step: CreditStep): StepPlan {
  const requested = assertMoney(step.amount, 'credit.amount')
  const room = orderRoom(order)
  return orderPlan(Math.min(requested, room))
}

/**
 * The lines credits that cover items may pay for (a gift card with `effect: APPLY_TO_ITEMS`,
 * docs/concepts.md#gift-cards): the matched lines of the card's `applicable_to`, every line when it has none.
 * Credits are payment, not a product discount, so `ONCE` mode and bundles do not narrow them.
 */
export function creditTargets(
  order: CalculatedOrder,
  applicableTo: ApplicableTo | undefined,
  collections: Collections | undefined,
): TargetSelection {
  return selectTargets(order.items, applicableTo, { collections, once: false, unitScale: 1 })
}

/** The amount (before any discount) of the matched lines: 0 means `missing_order_items_amount`. */
export function matchedItemsAmount(order: CalculatedOrder, targets: TargetSelection): number {
  let sum = 0
  for (const pick of targets.picks)
    sum += pickShare(
      order.items[pick.index] as CalculatedOrderItem,
      pick,
      (order.items[pick.index] as CalculatedOrderItem).amount,
    )
  return sum
}

/**
 * Credits that cover the matched lines only: what each line has left (its chosen units' share of it)
 * is both its cap and its weight, so the credits spread by largest remainder in proportion to what is
 * left to pay on each line and no line goes below zero. Applied as line discounts: the card pays for
 * those items, and the order-level total cannot go below zero either (`itemsRoom`).
 */
export function itemCreditPlan(order: CalculatedOrder, step: CreditStep, targets: TargetSelection): StepPlan {
  const requested = assertMoney(step.amount, 'credit.amount')
  const { picks } = targets
  const caps: number[] = new Array(picks.length)
  let capacity = 0
  for (let k = 0; k < picks.length; k++) {
    const pick = picks[k] as Pick
    const item = order.items[pick.index] as CalculatedOrderItem
    caps[k] = pickShare(item, pick, lineRoom(item))
    capacity += caps[k] as number
  }
  const total = Math.min(requested, capacity, itemsRoom(order))
  const parts = allocateCapped(total, caps, caps)
  const lines: AppliedLine[] = []
  for (let k = 0; k < picks.length; k++) {
    const part = parts[k] as number
    if (part > 0) {
      const pick = picks[k] as Pick
      lines.push({ index: pick.index, discount_amount: part, discount_quantity: pick.units, added_quantity: 0 })
    }
  }
  return { orderDiscount: 0, lines, newItems: [] }
}

/** `value` for a whole line, or the share of it the pick's units stand for (rounded down). */
function pickShare(item: CalculatedOrderItem, pick: Pick, value: number): number {
  if (pick.units >= item.quantity || item.quantity <= 0) return value
  return mulDivRound(value, pick.units, item.quantity, 'down')
}
