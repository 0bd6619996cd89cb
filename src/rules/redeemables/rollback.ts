import type { CalculatedOrder, CalculatedOrderItem } from '../../model/order'

/**
 * The order with one redemption's effects taken back (`WITH_ORDER` rollback, docs/concepts.md#rollbacks): the
 * discounts it applied and the units it added, line by line, using the `applied_*` fields of the
 * order the redemption recorded. Lines are matched by what they are (SKU, product, source id), not by
 * position, because a later redemption may have added lines and an earlier rollback removed some.
 * Lines that only the redemption had added disappear, and their amount leaves the order's.
 */
export function revertOrder(order: CalculatedOrder, redeemed: CalculatedOrder): CalculatedOrder {
  const applied = byIdentity(redeemed.items)
  const seen = new Map<string, number>()
  const items: CalculatedOrderItem[] = []
  let added = 0
  let itemsDiscount = 0
  for (const item of order.items) {
    const key = identity(item)
    const occurrence = seen.get(key) ?? 0
    seen.set(key, occurrence + 1)
    const own = applied.get(key)?.[occurrence]
    added += own?.applied_quantity_amount ?? 0
    const quantity = item.quantity - (own?.applied_quantity ?? 0)
    if (quantity <= 0 && item.initial_quantity === 0) continue
    const lineAmount = item.amount - (own?.applied_quantity_amount ?? 0)
    const discount = Math.max(0, item.discount_amount - (own?.applied_discount_amount ?? 0))
    items.push({
      ...item,
      quantity,
      amount: lineAmount,
      discount_amount: discount,
      discount_quantity: Math.max(0, item.discount_quantity - (own?.applied_discount_quantity ?? 0)),
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

/** What a line is: its SKU, product and source id (lines of the same thing are told apart by order). */
function identity(item: CalculatedOrderItem): string {
  return `${item.sku_id ?? ''}|${item.product_id ?? ''}|${item.source_id ?? ''}`
}

function byIdentity(items: readonly CalculatedOrderItem[]): Map<string, CalculatedOrderItem[]> {
  const out = new Map<string, CalculatedOrderItem[]>()
  for (const item of items) {
    const key = identity(item)
    const list = out.get(key)
    if (list) list.push(item)
    else out.set(key, [item])
  }
  return out
}
