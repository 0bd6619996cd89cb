import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { SimpleCustomer } from '../../model/common'
import type { Customer, CustomerInput } from '../../model/customer'
import type { MetadataSchema } from '../../model/metadata-schema'
import type { Stored } from '../../storage/ports'
import { rememberCreatedCustomer } from '../kernel/load-hints'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import type { Context, Tx } from '../kernel/unit-of-work'

/** Customers as other operations read and create them (the `customers` operations are in customers.ts). */

/**
 * Finds a customer by id or `source_id` (the service interface's `customerId` path parameter takes
 * either). Both reads are issued together: one round trip on a database (docs/storage.md#load-decide-commit).
 */
export async function findCustomer(ctx: Context, idOrSourceId: string): Promise<Stored<Customer> | undefined> {
  const [byId, bySourceId] = await Promise.all([
    ctx.store.customers.get(idOrSourceId),
    ctx.store.customers.findBy('source_id', idOrSourceId),
  ])
  return byId ?? bySourceId
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

export function newCustomer(tx: Tx, input: CustomerInput): Customer {
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
  const sourceId = customer.source_id
  if (sourceId !== null) tx.onCommit(() => rememberCreatedCustomer(tx.ctx.hints, sourceId, customer.id))
  tx.emit('customer.created', customer.id, { customer: { id: customer.id, source_id: customer.source_id } })
  return customer
}

/** The customer as results embed it (the service interface's simple customer). */
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
