import * as v from 'valibot'
import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { ListEnvelope, SimpleCustomer } from '../model/common'
import type { ActivityEvent, Customer, CustomerInput } from '../model/customer'
import type { MetadataSchema } from '../model/misc'
import type { FieldFilter, Stored } from '../ports'
import { nonEmptyString } from '../schema/common'
import { customerInput } from '../schema/customer'
import { activityQuery } from '../schema/loyalty'
import { parse } from '../schema/parse'
import { type Context, mutate, type Tx } from './context'
import { fireEarningRules } from './loyalty-earning'
import { enforceMetadata } from './metadata-schemas'

/** An activity item as the activity list returns it (spec: Customer activity item). */
export type ActivityItem = Pick<ActivityEvent, 'id' | 'type' | 'data' | 'created_at' | 'group_id'>

/** Finds a customer by id or `source_id` (the spec's `customerId` path parameter takes either). */
export async function findCustomer(ctx: Context, idOrSourceId: string): Promise<Stored<Customer> | undefined> {
  return (await ctx.store.customers.get(idOrSourceId)) ?? (await ctx.store.customers.findBy('source_id', idOrSourceId))
}

/**
 * Resolves a request's customer: by `id` (which wins), else by `source_id`; an unknown `source_id`
 * creates the customer in this transaction when `create` is set (redemptions, members, events).
 */
export async function resolveCustomer(
  tx: Tx,
  input: CustomerInput | undefined,
  options: {
    create: boolean
    /** The caller read already that no customer has this source_id, and the customers' schema. */
    known?: { schema: Stored<MetadataSchema> | undefined }
  },
): Promise<Stored<Customer> | undefined> {
  if (!input) return undefined
  if (input.id) {
    const found = await tx.store.customers.get(input.id)
    if (!found) throw EngineError.notFound('customer', input.id)
    return found
  }
  if (!input.source_id) return undefined
  const found = options.known ? undefined : await tx.store.customers.findBy('source_id', input.source_id)
  if (found || !options.create) return found
  await enforceMetadata(tx, 'customer', input.metadata, 'customer.metadata', options.known?.schema ?? null)
  const created = newCustomer(tx, input)
  return { value: created, version: 0 }
}

function newCustomer(tx: Tx, input: CustomerInput): Customer {
  const customer: Customer = {
    id: tx.id(ID_PREFIX.customer),
    source_id: input.source_id ?? null,
    name: input.name ?? null,
    email: input.email ?? null,
    phone: input.phone ?? null,
    birthdate: input.birthdate ?? null,
    address: input.address ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    segments: [],
    created_at: tx.nowIso,
    updated_at: null,
    object: 'customer',
  }
  tx.insert('customers', customer)
  tx.emit('customer.created', customer.id, { customer: { id: customer.id, source_id: customer.source_id } })
  return customer
}

export function customers(ctx: Context) {
  return {
    /** Creates a customer; a known `source_id` updates that customer instead (upsert, as the hosted API does). */
    async create(body: unknown): Promise<Customer> {
      const input = parse(customerInput, body)
      return mutate(ctx, async (tx) => {
        const existing = input.source_id ? await tx.store.customers.findBy('source_id', input.source_id) : undefined
        const metadata = await enforceMetadata(tx, 'customer', { ...existing?.value.metadata, ...input.metadata })
        if (!existing) return newCustomer(tx, { ...input, metadata })
        const { id: _ignored, ...fields } = input
        const next: Customer = {
          ...existing.value,
          ...fields,
          metadata,
          updated_at: tx.nowIso,
        }
        tx.update('customers', existing, next)
        tx.emit('customer.updated', next.id, { customer: { id: next.id, source_id: next.source_id } })
        return next
      })
    },

    async get(idOrSourceId: string): Promise<Customer> {
      const found = await findCustomer(ctx, parse(v.pipe(v.string(), v.minLength(1)), idOrSourceId, 'customerId'))
      if (!found) throw EngineError.notFound('customer', idOrSourceId, 'customerId')
      return found.value
    },

    /**
     * The customer's activity feed, newest first by default, with the spec's filters and cursor
     * pagination (`starting_after_id`, `has_more`, `more_starting_after`). Dates are inclusive.
     */
    async listActivity(idOrSourceId: string, query: unknown = {}): Promise<ListEnvelope<'data', ActivityItem>> {
      const id = parse(nonEmptyString, idOrSourceId, 'customerId')
      const q = parse(activityQuery, query, 'query')
      const customer = await findCustomer(ctx, id)
      if (!customer) throw EngineError.notFound('customer', id, 'customerId')
      const where: Record<string, FieldFilter> = { customer_id: customer.value.id }
      if (q.campaign_id !== undefined) where.campaign_id = q.campaign_id
      if (q.campaign_type !== undefined) where.campaign_type = q.campaign_type
      if (q.category !== undefined) where.category = q.category
      if (q.type !== undefined) where.type = q.type
      if (q.start_date !== undefined || q.end_date !== undefined) {
        // The store's date bounds are exclusive; the query's are inclusive.
        where.created_at = {
          ...(q.start_date === undefined ? {} : { after: new Date(Date.parse(q.start_date) - 1).toISOString() }),
          ...(q.end_date === undefined ? {} : { before: new Date(Date.parse(q.end_date) + 1).toISOString() }),
        }
      }
      const order = q.order ?? '-created_at'
      const page = await ctx.store.activities.list({
        where,
        order: { field: 'created_at', direction: order.startsWith('-') ? 'desc' : 'asc' },
        limit: q.limit ?? 10,
        ...(q.starting_after_id === undefined ? {} : { starting_after_id: q.starting_after_id }),
      })
      return {
        object: 'list',
        data_ref: 'data',
        data: page.data.map(({ value: a }) => ({
          id: a.id,
          type: a.type,
          data: a.data,
          created_at: a.created_at,
          group_id: a.group_id,
        })),
        has_more: page.has_more,
        more_starting_after: page.more_starting_after,
      }
    },

    /** Adds the customer to a segment: emits customer.segment.entered and fires that segment's earning rules. */
    async enterSegment(idOrSourceId: string, segmentId: string): Promise<Customer> {
      const id = parse(nonEmptyString, idOrSourceId, 'customerId')
      const segment = parse(nonEmptyString, segmentId, 'segmentId')
      return mutate(ctx, async (tx) => {
        const found = await findCustomer(tx.ctx, id)
        if (!found) throw EngineError.notFound('customer', id, 'customerId')
        const segments = found.value.segments ?? []
        if (segments.includes(segment)) return found.value
        const next: Customer = { ...found.value, segments: [...segments, segment], updated_at: tx.nowIso }
        tx.update('customers', found, next)
        tx.emit('customer.segment.entered', next.id, {
          segment: { id: segment },
          customer: { id: next.id, source_id: next.source_id },
        })
        await fireEarningRules(tx, { event: 'customer.segment.entered', customer: next, segmentId: segment })
        return next
      })
    },

    /** Removes the customer from a segment: emits customer.segment.left. */
    async leaveSegment(idOrSourceId: string, segmentId: string): Promise<Customer> {
      const id = parse(nonEmptyString, idOrSourceId, 'customerId')
      const segment = parse(nonEmptyString, segmentId, 'segmentId')
      return mutate(ctx, async (tx) => {
        const found = await findCustomer(tx.ctx, id)
        if (!found) throw EngineError.notFound('customer', id, 'customerId')
        const segments = found.value.segments ?? []
        if (!segments.includes(segment)) return found.value
        const next: Customer = {
          ...found.value,
          segments: segments.filter((s) => s !== segment),
          updated_at: tx.nowIso,
        }
        tx.update('customers', found, next)
        tx.emit('customer.segment.left', next.id, {
          segment: { id: segment },
          customer: { id: next.id, source_id: next.source_id },
        })
        return next
      })
    },
  }
}

/** The customer as results embed it (the spec's simple customer). */
export function simpleCustomer(c: Customer): SimpleCustomer {
  return {
    id: c.id,
    source_id: c.source_id,
    name: c.name ?? null,
    email: c.email ?? null,
    metadata: c.metadata,
    object: 'customer',
  }
}
