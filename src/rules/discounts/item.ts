import type { CalculatedOrderItem } from '../../model/order'

/**
 * A new version of an order line with its numbers replaced. Built as one object literal with a fixed
 * key order, not `{ ...item, … }`: V8 clones a spread line an order of magnitude slower (≈180 ns
 * against ≈15 ns per line, measured on Node 20), and a step rebuilds every line it touches.
 * Known optional fields are carried over; fields outside the model are not.
 */
export function withNumbers(
  item: CalculatedOrderItem,
  quantity: number,
  amount: number,
  discountAmount: number,
  discountQuantity: number,
  appliedDiscountAmount: number,
  appliedDiscountQuantity: number,
  appliedQuantity: number,
  appliedQuantityAmount: number,
): CalculatedOrderItem {
  const next: CalculatedOrderItem = {
    object: 'order_item',
    quantity,
    discount_quantity: discountQuantity,
    initial_quantity: item.initial_quantity,
    amount,
    discount_amount: discountAmount,
    applied_discount_amount: appliedDiscountAmount,
    applied_discount_quantity: appliedDiscountQuantity,
    applied_quantity: appliedQuantity,
    applied_quantity_amount: appliedQuantityAmount,
    initial_amount: item.initial_amount,
    price: item.price,
    subtotal_amount: amount - discountAmount,
  }
  if (item.id !== undefined) next.id = item.id
  if (item.sku_id !== undefined) next.sku_id = item.sku_id
  if (item.product_id !== undefined) next.product_id = item.product_id
  if (item.related_object !== undefined) next.related_object = item.related_object
  if (item.source_id !== undefined) next.source_id = item.source_id
  if (item.product !== undefined) next.product = item.product
  if (item.sku !== undefined) next.sku = item.sku
  if (item.metadata !== undefined) next.metadata = item.metadata
  if (item.application_details !== undefined) next.application_details = item.application_details
  return next
}

/** The same line with this step's `applied_*` fields set. */
export function withApplied(
  item: CalculatedOrderItem,
  appliedDiscountAmount: number,
  appliedDiscountQuantity: number,
  appliedQuantity: number,
  appliedQuantityAmount: number,
): CalculatedOrderItem {
  return withNumbers(
    item,
    item.quantity,
    item.amount,
    item.discount_amount,
    item.discount_quantity,
    appliedDiscountAmount,
    appliedDiscountQuantity,
    appliedQuantity,
    appliedQuantityAmount,
  )
}
