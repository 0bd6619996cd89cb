import type { CalculatedOrder, CalculatedOrderItem } from '../../model/order'

/**
 * The order with one redemption's effects taken back (`WITH_ORDER` rollback, reference §7.2): the
 * discounts it applied and the units it added, line by line, using the `applied_*` fields of the
 * order the redemption recorded. Lines that only the redemption had added disappear.
 */
export function revertOrder(order: CalculatedOrder, redeemed: CalculatedOrder): CalculatedOrder {
  const items: CalculatedOrderItem[] = []
  let added = 0
  let itemsDiscount = 0
  for (const [i, item] of order.items.entries()) {
    const applied = redeemed.items[i]
    const quantity = item.quantity - (applied?.applied_quantity ?? 0)
    if (quantity <= 0 && item.initial_quantity === 0) continue
    added += applied?.applied_quantity_amount ?? 0
    const lineAmount = item.amount - (applied?.applied_quantity_amount ?? 0)
    const discount = Math.max(0, item.discount_amount - (applied?.applied_discount_amount ?? 0))
    items.push({
      ...item,
      quantity,
      amount: lineAmount,
      discount_amount: discount,
      discount_quantity: Math.max(0, item.discount_quantity - (applied?.applied_discount_quantity ?? 0)),
      subtotal_amount: lineAmount - discount,
      applied_discount_amount: 0,
      applied_discount_quantity: 0,
      applied_quantity: 0,
      applied_quantity_amount: 0,
    })
    itemsDiscount += discount
  }
  const orderAmount = order.amount - added
  const discount = Math.max(0, order.discount_amount - redeemed.applied_discount_amount)
  const total = discount + itemsDiscount
  return {
    ...order,
    amount: orderAmount,
    discount_amount: discount,
    items_discount_amount: itemsDiscount,
    total_discount_amount: total,
    total_amount: Math.max(0, orderAmount - total),
    applied_discount_amount: 0,
    items_applied_discount_amount: 0,
    total_applied_discount_amount: 0,
    items,
  }
}
