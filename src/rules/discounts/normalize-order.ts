import { EngineError } from '../../errors'
import type { CalculatedOrder, CalculatedOrderItem, OrderInput, OrderItemInput } from '../../model/order'
import { assertMoney, divRound, isMoney } from '../../money'
import type { CatalogPrices, NormalizeOptions } from './discount-types'

/** The hosted service refuses larger orders; so do we, before any work is done on them. */
export const MAX_ORDER_ITEMS = 500

/**
 * An order as a request sends it → the calculated order before any discount. The caller resolves
 * catalogue prices; this only decides which price wins (the item's own, then its embedded SKU or
 * product price, then the catalogue's SKU price, then the product's) and derives the amounts.
 */
export function normalizeOrder(input: OrderInput, options: NormalizeOptions = {}): CalculatedOrder {
  const path = options.path ?? 'order'
  const inputs = input.items ?? []
  if (inputs.length > MAX_ORDER_ITEMS) {
    throw EngineError.invalid(`${path}.items`, `must contain at most ${MAX_ORDER_ITEMS} items, got ${inputs.length}`)
  }
  const items: CalculatedOrderItem[] = new Array(inputs.length)
  let itemsAmount = 0
  // A line's path is spelled only for an error: every request's every line passes here.
  const line: Line = { items: `${path}.items`, index: 0 }
  for (let i = 0; i < inputs.length; i++) {
    line.index = i
    const item = normalizeItem(inputs[i] as OrderItemInput, line, options.prices)
    items[i] = item
    itemsAmount += item.amount
  }
  if (!Number.isSafeInteger(itemsAmount))
    throw EngineError.invalid(`${path}.items`, 'amounts sum beyond a safe integer')
  // A declared amount wins over the items (docs/behaviour.md#declared-amounts).
  const amount = input.amount == null ? itemsAmount : assertMoney(input.amount, `${path}.amount`)
  const initialAmount =
    input.initial_amount == null ? amount : assertMoney(input.initial_amount, `${path}.initial_amount`)

  const order: CalculatedOrder = {
    object: 'order',
    amount,
    initial_amount: initialAmount,
    discount_amount: 0,
    items_discount_amount: 0,
    total_discount_amount: 0,
    total_amount: amount,
    applied_discount_amount: 0,
    items_applied_discount_amount: 0,
    total_applied_discount_amount: 0,
    items,
    metadata: input.metadata ?? {},
  }
  if (input.id !== undefined) order.id = input.id
  if (input.source_id !== undefined) order.source_id = input.source_id
  if (input.status !== undefined) order.status = input.status
  return order
}

/** Where a line sits, for the path of an error in it (`order.items[3].price`). */
interface Line {
  items: string
  index: number
}

const pathOf = (line: Line, field: string) => `${line.items}[${line.index}].${field}`

/** `assertMoney`, with the path spelled only when the value is refused. */
function lineMoney(value: unknown, line: Line, field: string): number {
  return isMoney(value) ? value : assertMoney(value, pathOf(line, field))
}

function normalizeItem(input: OrderItemInput, line: Line, prices: CatalogPrices | undefined): CalculatedOrderItem {
  const quantity = parseQuantity(input.quantity, line)
  let price: number | undefined
  if (input.price != null) price = lineMoney(input.price, line, 'price')
  else price = embeddedOrCataloguePrice(input, line, prices)

  let amount: number
  if (input.amount != null) amount = lineMoney(input.amount, line, 'amount')
  else if (price !== undefined) {
    amount = price * quantity
    if (!Number.isSafeInteger(amount))
      throw EngineError.invalid(pathOf(line, 'amount'), 'price × quantity is beyond a safe integer')
  } else amount = 0 // neither price nor amount: the line is listed and adds nothing

  // Targeting sorts by unit price; a line sent with an amount only gets its mean unit price.
  if (price === undefined) price = quantity > 0 ? divRound(amount, quantity, 'half-up') : amount

  const item: CalculatedOrderItem = {
    object: 'order_item',
    quantity,
    discount_quantity: 0,
    initial_quantity: quantity,
    amount,
    discount_amount: 0,
    applied_discount_amount: 0,
    applied_discount_quantity: 0,
    applied_quantity: 0,
    applied_quantity_amount: 0,
    initial_amount: amount,
    price,
    subtotal_amount: amount,
    // The service interface lists `metadata` on every line; `{}` when the request sent none.
    metadata: input.metadata ?? {},
  }
  if (input.sku_id !== undefined) item.sku_id = input.sku_id
  else if (input.sku?.id !== undefined) item.sku_id = input.sku.id
  if (input.product_id !== undefined) item.product_id = input.product_id
  else if (input.product?.id !== undefined) item.product_id = input.product.id
  if (input.related_object !== undefined) item.related_object = input.related_object
  if (input.source_id !== undefined) item.source_id = input.source_id
  if (input.product !== undefined) item.product = input.product
  if (input.sku !== undefined) item.sku = input.sku
  return item
}

function embeddedOrCataloguePrice(
  input: OrderItemInput,
  line: Line,
  prices: CatalogPrices | undefined,
): number | undefined {
  if (input.sku?.price != null) return lineMoney(input.sku.price, line, 'sku.price')
  if (input.product?.price != null) return lineMoney(input.product.price, line, 'product.price')
  const skuId = input.sku_id ?? input.sku?.id
  const productId = input.product_id ?? input.product?.id
  const skuPrice = skuId == null ? undefined : prices?.sku?.[skuId]
  if (skuPrice != null) return lineMoney(skuPrice, line, 'sku.price')
  const productPrice = productId == null ? undefined : prices?.product?.[productId]
  if (productPrice != null) return lineMoney(productPrice, line, 'product.price')
  return undefined
}

/** Quantities arrive as numbers or numeric strings ("3"); absent means one unit. */
function parseQuantity(value: number | string | null | undefined, line: Line): number {
  if (value == null) return 1
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw EngineError.invalid(pathOf(line, 'quantity'), `must be a non-negative integer, got ${JSON.stringify(value)}`)
  }
  return n
}

/** The calculated order for a request's order: the discount module's normalisation, with a status. */
export function calculateOrder(input: OrderInput): CalculatedOrder {
  return { ...normalizeOrder(input), source_id: input.source_id ?? null, status: input.status ?? 'CREATED' }
}
