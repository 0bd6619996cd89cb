import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import type { SimpleCustomer } from '../../model/common'
import type { IdempotencyRecord } from '../../model/idempotency'
import { eventInput, eventName } from '../../schema/loyalty'
import { parse } from '../../schema/parse'
import type { EventsCreateParams } from '../../schema/requests'
import { withIdempotency } from '../kernel/idempotency-keys'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import { type Context, must } from '../kernel/unit-of-work'
import { fireEarningRules } from '../loyalty/earn-points'
import { convertReferralOnCustomEvent } from '../referrals/conversions'
import { resolveCustomer, simpleCustomer } from './customer-records'

export interface CustomEvent {
  object: 'event'
  type: string
  customer: SimpleCustomer
  referral: null
  loyalty: null
  metadata: Record<string, unknown>
}

/**
 * Custom events (`POST /v1/events`). A custom event is defined by a metadata schema whose
 * `related_object` is the event's name (`metadataSchemas.create({related_object: 'visited_store',
 * properties: {...}})`): the event's metadata is checked against it, and earning rules on that event
 * name their schema by `custom_event.schema_id`.
 */
/** `create(body)` with `body.event` (the `POST /v1/events` body as is), or the SDK's `create(name, body)`. */
export interface CreateEvent {
  (name: string, body: EventsCreateParams, options?: CallOptions): Promise<CustomEvent>
  (body: EventsCreateParams & { event: string }, options?: CallOptions): Promise<CustomEvent>
}

export function events(ctx: Context) {
  const create = async (first: unknown, second?: unknown, third?: CallOptions): Promise<CustomEvent> => {
    if (typeof first === 'string') return createEvent(ctx, first, second, third)
    const name = typeof first === 'object' && first !== null ? (first as { event?: unknown }).event : undefined
    return createEvent(ctx, name, first, second as CallOptions | undefined)
  }
  return { create: create as CreateEvent }
}

async function createEvent(
  ctx: Context,
  name: unknown,
  body: unknown,
  options: CallOptions | undefined,
): Promise<CustomEvent> {
  const type = parse(eventName, name, 'event')
  const input = parse(eventInput, body)
  const call = {
    operation: 'events.create',
    input: { ...input, event: type },
    // The event is an activity on the customer's feed: the customer is re-read, the rest is the input's.
    reference: (e: CustomEvent) => ({ ids: [e.customer.id], extra: { metadata: e.metadata } }),
    replay: async (record: IdempotencyRecord): Promise<CustomEvent> => {
      const customer = await must(ctx, 'customers', record.result_ids[0] ?? '', 'customer')
      const { metadata } = record.result_extra as { metadata: Record<string, unknown> }
      return {
        object: 'event',
        type,
        customer: simpleCustomer(customer.value),
        referral: null,
        loyalty: null,
        metadata,
      }
    },
  }
  return withIdempotency(ctx, options, call, async (tx) => {
    const schema = await tx.store.metadata_schemas.findBy('related_object', type)
    if (!schema) {
      throw new EngineError({
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: `Cannot find a custom event named ${type}: define it with a metadata schema whose related_object is ${type}`,
        path: 'event',
        resource_id: type,
        resource_type: 'event',
      })
    }
    const metadata = await enforceMetadata(tx, type, input.metadata)
    const customer = await resolveCustomer(tx, input.customer, { create: true })
    if (!customer) throw EngineError.invalid('customer', 'needs an id or a source_id')
    const c = customer.value
    tx.emit('customer.custom_event', c.id, {
      event: { type, metadata },
      customer: { id: c.id, source_id: c.source_id },
    })
    if (input.referral?.code) {
      await convertReferralOnCustomEvent(tx, {
        eventName: type,
        customerId: c.id,
        referral: input.referral.referrer_id
          ? { code: input.referral.code, referrer_id: input.referral.referrer_id }
          : { code: input.referral.code },
      })
    }
    await fireEarningRules(tx, {
      event: type,
      customer: c,
      customEvent: { schemaId: schema.value.id, metadata },
      cardCode: input.loyalty?.code,
    })
    return {
      object: 'event',
      type,
      customer: simpleCustomer(c),
      referral: null,
      loyalty: null,
      metadata,
    }
  })
}
