import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Customer } from '../../model/customer'
import type { IdempotencyRecord } from '../../model/idempotency'
import type { CalculatedOrder, Order, OrderInput, OrderItemInput } from '../../model/order'
import { calculateOrder } from '../../rules/discounts/normalize-order'
import type * as v from '../../schema/valibot'
import type { Stored } from '../../storage/ports'

export { calculateOrder }

import { nonEmptyString } from '../../schema/common'
import { orderBody } from '../../schema/order'
import { parse } from '../../schema/parse'
import type { OrdersCreateParams, OrdersUpdateParams } from '../../schema/requests'
import { startEarly } from '../kernel/early-reads'
import { withIdempotency } from '../kernel/idempotency-keys'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import { type Context, must, mutate, type Tx } from '../kernel/unit-of-work'
import { loyaltyPrograms, prefetchMember } from '../loyalty/cascade'
import { earnOnOrderPaid } from '../loyalty/earn-points'
import { resolveCustomer } from './customer-records'
import { insertOrder, updateOrder } from './order-records'

/**
 * Orders (`engine.orders`): stored with their calculated fields; an order becoming PAID (created
 * PAID, or updated to PAID) fires the `order.paid` earning rules of the customer's programs, a
 * reaction the operation runs after writing the order (load → decide → write → react).
 */

export function orders(ctx: Context) {
  return {
    /** Creates an order (a known `source_id` updates that order instead, as the hosted API does). */
    async create(body: OrdersCreateParams, options?: CallOptions): Promise<Order> {
      const input = parse(orderBody, body)
      const call = {
        operation: 'orders.create',
        input,
        reference: (o: Order) => ({ ids: [o.id], status: o.status }),
        replay: async (record: IdempotencyRecord) =>
          (await must(ctx, 'orders', record.result_ids[0] ?? '', 'order')).value,
      }
      return withIdempotency(ctx, options, call, async (tx) => {
        const existing = input.source_id ? await tx.store.orders.findBy('source_id', input.source_id) : undefined
        const saved = await save(tx, existing, input)
        await reactToOrder(tx, saved.reactions)
        return saved.order
      })
    },

    /** Updates an order by id or source id; becoming PAID fires the order.paid earning rules. */
    async update(orderId: string, body: OrdersUpdateParams, _options?: CallOptions): Promise<Order> {
      const id = parse(nonEmptyString, orderId, 'orderId')
      const input = parse(orderBody, body)
      return mutate(ctx, async (tx) => {
        const existing = await findOrder(tx, id)
        if (!existing) throw EngineError.notFound('order', id, 'orderId')
        const saved = await save(tx, existing, input)
        await reactToOrder(tx, saved.reactions)
        return saved.order
      })
    },

    async get(orderId: string, _options?: CallOptions): Promise<Order> {
      const id = parse(nonEmptyString, orderId, 'orderId')
      const found = (await ctx.store.orders.get(id)) ?? (await ctx.store.orders.findBy('source_id', id))
      if (!found) throw EngineError.notFound('order', id, 'orderId')
      return found.value
    },
  }
}

async function findOrder(tx: Tx, id: string): Promise<Stored<Order> | undefined> {
  return (await tx.store.orders.get(id)) ?? (await tx.store.orders.findBy('source_id', id))
}

/** The event of entering a status; CREATED is announced by `customer.order.created` itself. */
const STATUS_EVENTS: Record<Order['status'], string | null> = {
  CREATED: null,
  PAID: 'customer.order.paid',
  PROCESSING: 'customer.order.processing',
  FULFILLED: 'customer.order.fulfilled',
  CANCELED: 'customer.order.canceled',
}

/** What writing an order sets off in another domain: a payment earns points. */
interface OrderReactions {
  paid?: { order: Order; customer: Customer }
}

/** Earning on a paid order, after the order's own writes and in the same commit. */
async function reactToOrder(tx: Tx, reactions: OrderReactions): Promise<void> {
  if (reactions.paid) await earnOnOrderPaid(tx, reactions.paid)
}

/** Writes the order as created or updated, and returns what it sets off. */
async function save(
  tx: Tx,
  existing: Stored<Order> | undefined,
  input: v.InferOutput<typeof orderBody>,
): Promise<{ order: Order; reactions: OrderReactions }> {
  const prev = existing?.value
  // A payment earns points: the loyalty reads start now, beside the customer's and the schema's.
  const earns = input.status === 'PAID' && prev?.status !== 'PAID'
  if (earns) loyaltyPrograms(tx)
  // Awaited below, after the customer's read, which fails first when the database does.
  const schema = startEarly(tx.store.metadata_schemas.findBy('related_object', 'order'))
  const customer: Stored<Customer> | undefined =
    (await resolveCustomer(tx, input.customer, { create: true })) ??
    (existing?.value.customer_id ? await tx.store.customers.get(existing.value.customer_id) : undefined)
  if (earns && customer) prefetchMember(tx, customer.value.id)
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
  const metadata = await enforceMetadata(
    tx,
    'order',
    { ...prev?.metadata, ...input.metadata },
    'metadata',
    (await schema) ?? null,
  )
  // A change of status or metadata keeps what redemptions calculated; new items or amounts recalculate.
  const keepsLines = prev !== undefined && input.items === undefined && input.amount === undefined
  const calculated: CalculatedOrder = keepsLines
    ? { ...prev, status: input.status ?? prev.status, metadata }
    : calculateOrder({ ...merged, metadata })
  const order: Order = {
    ...calculated,
    id: prev?.id ?? tx.id(ID_PREFIX.order),
    status: calculated.status ?? 'CREATED',
    created_at: prev?.created_at ?? tx.nowIso,
    updated_at: prev ? tx.nowIso : null,
    customer_id: customer?.value.id ?? null,
    ...(customer ? { customer: { id: customer.value.id, object: 'customer' as const } } : {}),
    ...(prev?.redemptions ? { redemptions: prev.redemptions } : {}),
    // The referrer a referral code's redemption named stays with the order (docs/behaviour.md#referrals).
    ...(prev?.referrer_id
      ? { referrer_id: prev.referrer_id, referrer: { id: prev.referrer_id, object: 'customer' as const } }
      : {}),
  }
  if (existing) updateOrder(tx, existing, order)
  else insertOrder(tx, order)
  const customerId = customer?.value.id ?? null
  tx.emit(existing ? 'customer.order.updated' : 'customer.order.created', customerId, {
    order: { id: order.id, source_id: order.source_id, status: order.status },
  })
  // A status transition is also its own event (spec Events: customer.order.processing|fulfilled|canceled|paid).
  if (order.status !== prev?.status) {
    const transition = STATUS_EVENTS[order.status]
    if (transition) {
      tx.emit(transition, customerId, {
        order: { id: order.id, source_id: order.source_id, amount: order.amount, total_amount: order.total_amount },
      })
    }
  }
  const paid = order.status === 'PAID' && prev?.status !== 'PAID' && customer
  return { order, reactions: paid ? { paid: { order, customer: customer.value } } : {} }
}
