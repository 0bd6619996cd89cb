import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import type { ListEnvelope } from '../../model/common'
import type { ActivityEvent, Customer, CustomerWithSummary } from '../../model/customer'
import { nonEmptyString } from '../../schema/common'
import { customerInput } from '../../schema/customer'
import { activityQuery } from '../../schema/loyalty'
import { parse } from '../../schema/parse'
import type { CustomersCreateParams, CustomersListActivityParams } from '../../schema/requests'
import type { FieldFilter } from '../../storage/ports'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import { type Context, mutate } from '../kernel/unit-of-work'
import { fireEarningRules } from '../loyalty/earn-points'
import { readCustomerRelations } from '../referrals/customer-relations'
import { findCustomer, newCustomer } from './customer-records'
import { emptyCustomerSummary, readCustomerSummary, readWallet } from './summary-counters'

/** The summary, loyalty and referrals of a customer, sharing one read of the codes it holds. */
async function readFigures(ctx: Context, customerId: string) {
  const held = readWallet(ctx.store, customerId)
  const [summary, relations] = await Promise.all([
    readCustomerSummary(ctx.store, customerId, held),
    readCustomerRelations(ctx, customerId, held),
  ])
  return { summary, ...relations }
}

/** A customer created just now has held nothing and referred no one. */
const emptyRelations = () => ({
  loyalty: { points: 0, referred_customers: 0, campaigns: {} },
  referrals: { total: 0, campaigns: [] },
})

/** An activity item as the activity list returns it (spec: Customer activity item). */
export type ActivityItem = Pick<ActivityEvent, 'id' | 'type' | 'data' | 'created_at' | 'group_id'>

export function customers(ctx: Context) {
  return {
    /**
     * Creates a customer; a known `source_id` updates that customer instead (upsert, as the hosted API
     * does). The answer carries the customer's `summary` as `get` does (docs/behaviour.md#customer-summary):
     * all zero for a new customer, read after the commit for an updated one.
     */
    async create(body: CustomersCreateParams, _options?: CallOptions): Promise<CustomerWithSummary> {
      const input = parse(customerInput, body)
      const { customer, created } = await mutate(ctx, async (tx) => {
        const existing = input.source_id ? await tx.store.customers.findBy('source_id', input.source_id) : undefined
        const metadata = await enforceMetadata(tx, 'customer', { ...existing?.value.metadata, ...input.metadata })
        if (!existing) return { customer: newCustomer(tx, { ...input, metadata }), created: true }
        const { id: _ignored, ...fields } = input
        const next: Customer = {
          ...existing.value,
          ...fields,
          metadata,
          updated_at: tx.nowIso,
        }
        // Fields set, not the row rewritten at the version read: concurrent upserts of one customer
        // (two requests creating the same new customer) all land, the last one's fields winning
        // (docs/storage.md#shared-rows). Metadata keys are set one by one where a key allows it.
        const metadataKeys = Object.keys(input.metadata ?? {})
        const byKey = metadataKeys.every((k) => !k.includes('.'))
        const set: Record<string, unknown> = { updated_at: tx.nowIso }
        for (const [k, v] of Object.entries(fields)) if (k !== 'metadata' && v !== undefined) set[k] = v
        if (byKey) for (const k of metadataKeys) set[`metadata.${k}`] = metadata[k]
        else set.metadata = metadata
        tx.increment('customers', existing.value.id, {}, { set })
        tx.emit('customer.updated', next.id, { customer: { id: next.id, source_id: next.source_id } })
        return { customer: next, created: false }
      })
      if (created) return { ...customer, summary: emptyCustomerSummary(), ...emptyRelations() }
      return { ...customer, ...(await readFigures(ctx, customer.id)) }
    },

    /** The customer with its `summary` (docs/behaviour.md#customer-summary). */
    async get(idOrSourceId: string, _options?: CallOptions): Promise<CustomerWithSummary> {
      const found = await findCustomer(ctx, parse(nonEmptyString, idOrSourceId, 'customerId'))
      if (!found) throw EngineError.notFound('customer', idOrSourceId, 'customerId')
      return { ...found.value, ...(await readFigures(ctx, found.value.id)) }
    },

    /**
     * The customer's activity feed, newest first by default, with the service interface's filters and cursor
     * pagination (`starting_after_id`, `has_more`, `more_starting_after`). Dates are inclusive.
     */
    async listActivity(
      idOrSourceId: string,
      query: CustomersListActivityParams = {},
      _options?: CallOptions,
    ): Promise<ListEnvelope<'data', ActivityItem>> {
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
    async enterSegment(idOrSourceId: string, segmentId: string, _options?: CallOptions): Promise<Customer> {
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
    async leaveSegment(idOrSourceId: string, segmentId: string, _options?: CallOptions): Promise<Customer> {
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
