import { metadata, money, opt } from './common'
import { customerInput } from './customer'
import * as v from './valibot'

const quantity = v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/, 'must be a non-negative integer or a numeric string'))]),
  v.transform(Number),
  v.safeInteger('must be an integer'),
  v.minValue(0, 'must be ≥ 0'),
)

const itemProduct = v.object({
  id: opt(v.string()),
  source_id: opt(v.nullable(v.string())),
  override: opt(v.boolean()),
  name: opt(v.nullable(v.string())),
  metadata: opt(metadata),
  price: opt(v.nullable(money)),
})

const itemSku = v.object({
  id: opt(v.string()),
  source_id: opt(v.nullable(v.string())),
  override: opt(v.boolean()),
  sku: opt(v.nullable(v.string())),
  price: opt(v.nullable(money)),
  metadata: opt(metadata),
})

export const orderItemInput = v.object({
  sku_id: opt(v.nullable(v.string())),
  product_id: opt(v.nullable(v.string())),
  related_object: opt(v.picklist(['product', 'sku'])),
  source_id: opt(v.nullable(v.string())),
  quantity: opt(v.nullable(quantity)),
  amount: opt(v.nullable(money)),
  discount_amount: opt(v.nullable(money)),
  price: opt(v.nullable(money)),
  product: opt(itemProduct),
  sku: opt(itemSku),
  metadata: opt(metadata),
})

export const ORDER_STATUSES = ['CREATED', 'PAID', 'CANCELED', 'FULFILLED', 'PROCESSING'] as const

/** An order as requests send it (at most 500 items, docs/concepts.md#quantities-and-limits). */
export const orderInput = v.object({
  id: opt(v.string()),
  source_id: opt(v.nullable(v.string())),
  status: opt(v.picklist(ORDER_STATUSES)),
  amount: opt(v.nullable(money)),
  initial_amount: opt(v.nullable(money)),
  discount_amount: opt(v.nullable(money)),
  items: opt(v.pipe(v.array(orderItemInput), v.maxLength(500, 'must have at most 500 items'))),
  metadata: opt(metadata),
})

export const orderBody = v.object({ ...orderInput.entries, customer: opt(customerInput) })
