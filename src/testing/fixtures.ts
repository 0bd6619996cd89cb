import assert from 'node:assert/strict'
import type {
  CollectionName,
  CommitResult,
  Entity,
  ListQuery,
  Page,
  Store,
  Stored,
  StoredRow,
  Write,
} from '../storage/ports'

/*
 * Fixtures of the storage contract: minimal entities. Stores treat values as opaque except `id`,
 * the natural keys and the fields a list query names, so the wire types are satisfied by a cast.
 */

export type Plain = { id: string } & Record<string, unknown>

export function voucher(id: string, code: string, extra: Record<string, unknown> = {}): Plain {
  return { id, code, object: 'voucher', created_at: '2026-01-01T00:00:00.000Z', metadata: {}, ...extra }
}
export function customer(id: string, source_id: string | null, extra: Record<string, unknown> = {}): Plain {
  return { id, source_id, object: 'customer', created_at: '2026-01-01T00:00:00.000Z', metadata: {}, ...extra }
}
export function product(id: string, source_id: string | null, extra: Record<string, unknown> = {}): Plain {
  return { id, source_id, object: 'product', created_at: '2026-01-01T00:00:00.000Z', metadata: {}, ...extra }
}
export function campaign(id: string, name: string, extra: Record<string, unknown> = {}): Plain {
  return { id, name, object: 'campaign', created_at: '2026-01-01T00:00:00.000Z', metadata: {}, ...extra }
}

/** Which natural key each fixture collection is looked up by. */
export const KEY_OF: Partial<Record<CollectionName, string>> = {
  vouchers: 'code',
  customers: 'source_id',
  products: 'source_id',
  campaigns: 'name',
}

/** A put in shape 1: a store keeps whatever shape a write names (`shapeVersions` checks other numbers). */
export function put(collection: CollectionName, value: Plain, expectedVersion: number | null, shape = 1): Write {
  return { op: 'put', collection, value: value as unknown as Entity<CollectionName>, expectedVersion, shape } as Write
}
export function del(collection: CollectionName, id: string, expectedVersion: number): Write {
  return { op: 'delete', collection, id, expectedVersion }
}

/** The repository surface with the collection's entity type erased, for generic fixtures. */
export interface AnyRepository {
  get(id: string): Promise<StoredRow<unknown> | undefined>
  getMany(ids: readonly string[]): Promise<StoredRow<unknown>[]>
  findBy(key: string, value: string): Promise<StoredRow<unknown> | undefined>
  findMany(key: string, values: readonly string[]): Promise<StoredRow<unknown>[]>
  list(query?: ListQuery): Promise<Page<unknown>>
}
export function repo(store: Store, collection: CollectionName): AnyRepository {
  return store[collection] as unknown as AnyRepository
}

export function idOf(stored: Stored<unknown>): string {
  return (stored.value as { id: string }).id
}

export async function commitOk(store: Store, writes: Write[]): Promise<Record<string, number>> {
  const result = await store.commit({ writes })
  if (!result.ok) assert.fail(`expected the commit to succeed, got conflict ${JSON.stringify(result.conflict)}`)
  return result.versions
}

export type Conflict = Extract<CommitResult, { ok: false }>['conflict']

export async function commitConflict(store: Store, writes: Write[]): Promise<Conflict> {
  const result = await store.commit({ writes })
  if (result.ok)
    assert.fail(`expected a conflict, the commit succeeded with versions ${JSON.stringify(result.versions)}`)
  return result.conflict
}

export async function insert(store: Store, collection: CollectionName, value: Plain): Promise<number> {
  const versions = await commitOk(store, [put(collection, value, null)])
  const version = versions[`${collection}/${value.id}`]
  assert.equal(typeof version, 'number', `commit must report the version of ${collection}/${value.id}`)
  return version as number
}

export async function mustGet(store: Store, collection: CollectionName, id: string): Promise<Stored<unknown>> {
  const stored = await repo(store, collection).get(id)
  assert.ok(stored, `expected ${collection}/${id} to exist`)
  return stored
}

export type Ref = readonly [CollectionName, string]

/** What the store holds for the given ids and natural keys, as one comparable string. */
export async function observe(store: Store, refs: readonly Ref[], keys: readonly Ref[] = []): Promise<string> {
  const out: unknown[] = []
  for (const [c, id] of refs) out.push(['get', c, id, (await repo(store, c).get(id)) ?? null])
  for (const [c, value] of keys) {
    const key = KEY_OF[c]
    assert.ok(key, `no natural key fixture for ${c}`)
    const found = await repo(store, c).findBy(key, value)
    out.push(['findBy', c, value, found ? idOf(found) : null])
  }
  return JSON.stringify(out)
}

export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

/** Tries to mutate; a frozen value throws in strict mode, which is as good as ignoring the write. */
export function tryMutate(mutation: () => void): void {
  try {
    mutation()
  } catch {
    // frozen: the store refused the mutation
  }
}

export async function mustFind(store: Store, collection: CollectionName, value: string): Promise<Stored<unknown>> {
  const found = await repo(store, collection).findBy(KEY_OF[collection] as string, value)
  assert.ok(found, `expected ${collection} with natural key ${value}`)
  return found
}
