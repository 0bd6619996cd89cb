import * as v from 'valibot'
import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { Customer, CustomerInput } from '../model/customer'
import type { Stored } from '../ports'
import { customerInput } from '../schema/customer'
import { parse } from '../schema/parse'
import { type Context, mutate, type Tx } from './context'
import { enforceMetadata } from './metadata-schemas'

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
  options: { create: boolean },
): Promise<Stored<Customer> | undefined> {
  if (!input) return undefined
  if (input.id) {
    const found = await tx.store.customers.get(input.id)
    if (!found) throw EngineError.notFound('customer', input.id)
    return found
  }
  if (!input.source_id) return undefined
  const found = await tx.store.customers.findBy('source_id', input.source_id)
  if (found || !options.create) return found
  await enforceMetadata(tx, 'customer', input.metadata, 'customer.metadata')
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
      if (!found) throw EngineError.notFound('customer', idOrSourceId)
      return found.value
    },
  }
}
