import * as v from 'valibot'
import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { Customer } from '../model/customer'
import type { CalculatedOrder, CalculatedOrderItem, Order, OrderInput, OrderItemInput } from '../model/order'
import type { Stored } from '../ports'
import { nonEmptyString, opt } from '../schema/common'
import { customerInput } from '../schema/customer'
import { orderInput } from '../schema/order'
import { parse } from '../schema/parse'
import { type Context, mutate, type Tx } from './context'
import { resolveCustomer } from './customers'
import { fireEarningRules } from './loyalty-earning'
import { enforceMetadata } from './metadata-schemas'

/**
 * Orders (`engine.orders`): stored with their calculated fields; an order becoming PAID (created
 * PAID, or updated to PAID) fires the `order.paid` earning rules of the customer's programs.
 *
 * NOTE: the discount module's `normalizeOrder` (src/rules/discounts) was not merged when this was
 * written, so `calculateOrder` below is a plain stand-in: line amount = `amount` or price × quantity,
 * order amount = `amount` or the sum of the lines, no discounts beyond a given `discount_amount`.
 * Swap it for `normalizeOrder` once that lands.
 */

const orderBody = v.object({ ...orderInput.entries, customer: opt(customerInput) })

/** The calculated order for a request's order (see the module note). */
export function calculateOrder(input: OrderInput): CalculatedOrder {
  const items: CalculatedOrderItem[] = (input.items ?? []).map((item) => {
    const quantity = Number(item.quantity ?? 1)
    const price = item.price ?? item.sku?.price ?? item.product?.price ?? 0
    const amount = item.amount ?? price * quantity
    const discount = item.discount_amount ?? 0
    const line: CalculatedOrderItem = {
      object: 'order_item',
      quantity,
      discount_quantity: 0,
      initial_quantity: quantity,
      amount,
      discount_amount: discount,
      applied_discount_amount: 0,
      applied_discount_quantity: 0,
      applied_quantity: 0,
      applied_quantity_amount: 0,
      initial_amount: amount,
      price,
      subtotal_amount: amount - discount,
    }
    if (item.product_id != null) line.product_id = item.product_id
    if (item.sku_id != null) line.sku_id = item.sku_id
    if (item.related_object !== undefined) line.related_object = item.related_object
    if (item.source_id != null) line.source_id = item.source_id
    if (item.product) line.product = item.product
    if (item.sku) line.sku = item.sku
    if (item.metadata) line.metadata = item.metadata
    return line
  })
  const amount = input.amount ?? items.reduce((sum, i) => sum + i.amount, 0)
  const itemsDiscount = items.reduce((sum, i) => sum + i.discount_amount, 0)
  const discount = input.discount_amount ?? 0
  const total = Math.max(0, amount - discount - itemsDiscount)
  return {
    object: 'order',
    ...(input.id === undefined ? {} : { id: input.id }),
    source_id: input.source_id ?? null,
    status: input.status ?? 'CREATED',
    amount,
    initial_amount: input.initial_amount ?? amount,
    discount_amount: discount,
    items_discount_amount: itemsDiscount,
    total_discount_amount: discount + itemsDiscount,
    total_amount: total,
    applied_discount_amount: 0,
    items_applied_discount_amount: 0,
    total_applied_discount_amount: 0,
    items,
    metadata: input.metadata ?? {},
  }
}

export function orders(ctx: Context) {
  return {
    /** Creates an order (a known `source_id` updates that order instead, as the hosted API does). */
    async create(body: unknown): Promise<Order> {
      const input = parse(orderBody, body)
      return mutate(ctx, async (tx) => {
        const existing = input.source_id ? await tx.store.orders.findBy('source_id', input.source_id) : undefined
        return save(tx, existing, input)
      })
    },

    /** Updates an order by id or source id; becoming PAID fires the order.paid earning rules. */
    async update(orderId: string, body: unknown): Promise<Order> {
      const id = parse(nonEmptyString, orderId, 'orderId')
      const input = parse(orderBody, body)
      return mutate(ctx, async (tx) => {
        const existing = await findOrder(tx, id)
        if (!existing) throw EngineError.notFound('order', id)
        return save(tx, existing, input)
      })
    },

    async get(orderId: string): Promise<Order> {
      const id = parse(nonEmptyString, orderId, 'orderId')
      const found = (await ctx.store.orders.get(id)) ?? (await ctx.store.orders.findBy('source_id', id))
      if (!found) throw EngineError.notFound('order', id)
      return found.value
    },
  }
}

async function findOrder(tx: Tx, id: string): Promise<Stored<Order> | undefined> {
  return (await tx.store.orders.get(id)) ?? (await tx.store.orders.findBy('source_id', id))
}

async function save(
  tx: Tx,
  existing: Stored<Order> | undefined,
  input: v.InferOutput<typeof orderBody>,
): Promise<Order> {
  const customer: Stored<Customer> | undefined =
    (await resolveCustomer(tx, input.customer, { create: true })) ??
    (existing?.value.customer_id ? await tx.store.customers.get(existing.value.customer_id) : undefined)
  const prev = existing?.value
  const { customer: _c, ...orderFields } = input
  const merged: OrderInput = prev
    ? {
        source_id: prev.source_id ?? null,
        status: prev.status,
        ...(input.items === undefined ? { items: prev.items as OrderItemInput[] } : {}),
        ...(input.amount === undefined && input.items === undefined ? { amount: prev.amount } : {}),
        discount_amount: prev.discount_amount,
        metadata: prev.metadata,
        ...orderFields,
      }
    : orderFields
  const metadata = await enforceMetadata(tx, 'order', { ...prev?.metadata, ...input.metadata })
  const calculated = calculateOrder({ ...merged, metadata })
  const order: Order = {
    ...calculated,
    id: prev?.id ?? tx.id(ID_PREFIX.order),
    status: calculated.status ?? 'CREATED',
    created_at: prev?.created_at ?? tx.nowIso,
    updated_at: prev ? tx.nowIso : null,
    customer_id: customer?.value.id ?? null,
    ...(customer ? { customer: { id: customer.value.id, object: 'customer' as const } } : {}),
    ...(prev?.redemptions ? { redemptions: prev.redemptions } : {}),
  }
  if (existing) tx.update('orders', existing, order)
  else tx.insert('orders', order)
  const customerId = customer?.value.id ?? null
  tx.emit(existing ? 'customer.order.updated' : 'customer.order.created', customerId, {
    order: { id: order.id, source_id: order.source_id, status: order.status },
  })
  if (order.status === 'PAID' && prev?.status !== 'PAID' && customer) {
    tx.emit('customer.order.paid', customerId, {
      order: { id: order.id, source_id: order.source_id, amount: order.amount, total_amount: order.total_amount },
    })
    await fireEarningRules(tx, { event: 'order.paid', customer: customer.value, order })
  }
  return order
}
