import type { CalculatedOrder, CalculatedOrderItem } from '../../model/order'
import type { AppliedLine } from './discount-types'
import { withApplied, withNumbers } from './item'
import type { StepPlan } from './step-plan'

/**
 * Writes a step's plan onto the order: the cumulative fields grow, the `applied_*` fields become this
 * step's (docs/concepts.md#the-calculated-order). Items the step leaves alone, whose `applied_*` are already zero, are
 * shared with the previous snapshot instead of rebuilt: snapshots are never mutated, so sharing is
 * safe, and a 30-step sequence over 500 lines copies only what moves.
 */
export function applyPlan(order: CalculatedOrder, plan: StepPlan): CalculatedOrder {
  const prev = order.items
  const n = prev.length
  // An order-level step (APPLY_TO_ORDER, credits) touches no line: when no line carries an earlier
  // step's `applied_*` either, the snapshot keeps the same items array and the step is O(1) in lines.
  if (plan.lines.length === 0 && plan.newItems.length === 0 && !prev.some(hasApplied)) {
    return withOrderDiscount(order, plan.orderDiscount, prev)
  }
  const total = n + plan.newItems.length
  const effects: (AppliedLine | undefined)[] = new Array(total)
  for (const line of plan.lines) effects[line.index] = line

  const items: CalculatedOrderItem[] = new Array(total)
  let itemsApplied = 0
  let addedAmount = 0
  for (let i = 0; i < total; i++) {
    const item = (i < n ? prev[i] : plan.newItems[i - n]) as CalculatedOrderItem
    const e = effects[i]
    if (e === undefined) {
      items[i] = hasApplied(item) ? clearApplied(item) : item
      continue
    }
    const addedQuantity = e.added_quantity
    const addedValue = addedQuantity * item.price
    const quantity = item.quantity + addedQuantity
    const amount = item.amount + addedValue
    const discount = item.discount_amount + e.discount_amount
    const discountQuantity = item.discount_quantity + e.discount_quantity
    items[i] = withNumbers(
      item,
      quantity,
      amount,
      discount,
      Math.min(discountQuantity, quantity),
      e.discount_amount,
      Math.min(e.discount_quantity, quantity),
      addedQuantity,
      addedValue,
    )
    itemsApplied += e.discount_amount
    addedAmount += addedValue
  }

  return withTotals(order, order.amount + addedAmount, plan.orderDiscount, itemsApplied, items)
}

function withOrderDiscount(
  order: CalculatedOrder,
  orderDiscount: number,
  items: CalculatedOrderItem[],
): CalculatedOrder {
  return withTotals(order, order.amount, orderDiscount, 0, items)
}

function withTotals(
  order: CalculatedOrder,
  amount: number,
  orderDiscount: number,
  itemsApplied: number,
  items: CalculatedOrderItem[],
): CalculatedOrder {
  const discountAmount = order.discount_amount + orderDiscount
  const itemsDiscount = order.items_discount_amount + itemsApplied
  const totalDiscount = discountAmount + itemsDiscount
  // A plain copy, then assignments: V8 takes a slow path for a spread with additions, and this runs
  // once per redeemable per decision (the same fields in the same places as `{ ...order, amount, … }`).
  const out = { ...order }
  out.amount = amount
  out.discount_amount = discountAmount
  out.items_discount_amount = itemsDiscount
  out.total_discount_amount = totalDiscount
  out.total_amount = amount > totalDiscount ? amount - totalDiscount : 0
  out.applied_discount_amount = orderDiscount
  out.items_applied_discount_amount = itemsApplied
  out.total_applied_discount_amount = orderDiscount + itemsApplied
  out.items = items
  return out
}

/**
 * The order at the end of a request: the last snapshot with `applied_*` = everything the request
 * did since `start` (the order before its first step).
 */
export function finalizeOrder(start: CalculatedOrder, end: CalculatedOrder): CalculatedOrder {
  const before = start.items
  const items: CalculatedOrderItem[] = new Array(end.items.length)
  let itemsApplied = 0
  for (let i = 0; i < end.items.length; i++) {
    const item = end.items[i] as CalculatedOrderItem
    const first = before[i]
    const quantity0 = first?.quantity ?? 0
    const amount0 = first?.amount ?? 0
    const discount0 = first?.discount_amount ?? 0
    const discountQuantity0 = first?.discount_quantity ?? 0
    const applied = {
      applied_discount_amount: item.discount_amount - discount0,
      applied_discount_quantity: Math.max(0, item.discount_quantity - discountQuantity0),
      applied_quantity: item.quantity - quantity0,
      applied_quantity_amount: item.amount - amount0,
    }
    itemsApplied += applied.applied_discount_amount
    if (sameApplied(item, applied)) items[i] = item
    else {
      items[i] = withApplied(
        item,
        applied.applied_discount_amount,
        applied.applied_discount_quantity,
        applied.applied_quantity,
        applied.applied_quantity_amount,
      )
    }
  }
  const applied = end.discount_amount - start.discount_amount
  // As in `withTotals`: a plain copy, then assignments.
  const out = { ...end }
  out.applied_discount_amount = applied
  out.items_applied_discount_amount = itemsApplied
  out.total_applied_discount_amount = applied + itemsApplied
  out.items = items
  return out
}

function hasApplied(item: CalculatedOrderItem): boolean {
  return (
    item.applied_discount_amount !== 0 ||
    item.applied_discount_quantity !== 0 ||
    item.applied_quantity !== 0 ||
    item.applied_quantity_amount !== 0
  )
}

function clearApplied(item: CalculatedOrderItem): CalculatedOrderItem {
  return withApplied(item, 0, 0, 0, 0)
}

function sameApplied(
  item: CalculatedOrderItem,
  applied: Pick<
    CalculatedOrderItem,
    'applied_discount_amount' | 'applied_discount_quantity' | 'applied_quantity' | 'applied_quantity_amount'
  >,
): boolean {
  return (
    item.applied_discount_amount === applied.applied_discount_amount &&
    item.applied_discount_quantity === applied.applied_discount_quantity &&
    item.applied_quantity === applied.applied_quantity &&
    item.applied_quantity_amount === applied.applied_quantity_amount
  )
}
