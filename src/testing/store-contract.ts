import assert from 'node:assert/strict'
import type { CollectionName, CommitResult, Entity, ListQuery, Page, Store, Stored, Write } from '../ports'

/**
 * The storage contract as runnable cases, so any adapter (SQL, KV, the memory store) proves it
 * honours what operations rely on: atomic versioned commits, natural-key uniqueness, listing and
 * both kinds of pagination, isolation of stored values, and correctness under concurrent commits.
 *
 * Framework-agnostic on purpose (assertions are `node:assert/strict`): a host runs
 * `for (const c of storeContract(make)) it(c.name, c.run)` in vitest, jest, mocha or `node:test`.
 * Every case calls `makeStore` for a fresh, empty store.
 */
export interface ContractCase {
  name: string
  run: () => Promise<void>
}

export interface StoreContractOptions {
  /** How many commits the concurrency cases launch at once (default 50). */
  concurrency?: number
}

export function storeContract(
  makeStore: () => Store | Promise<Store>,
  options: StoreContractOptions = {},
): ContractCase[] {
  const n = options.concurrency ?? 50
  const cases: [string, (store: Store) => Promise<void>][] = [
    // Reads
    [
      'insert then get, getMany and findBy a voucher by code',
      (s) => roundTrip(s, 'vouchers', voucher('v_1', 'SUMMER')),
    ],
    [
      'insert then get, getMany and findBy a customer by source_id',
      (s) => roundTrip(s, 'customers', customer('cust_1', 'alice')),
    ],
    [
      'insert then get, getMany and findBy a product by source_id',
      (s) => roundTrip(s, 'products', product('prod_1', 'sku-shoe')),
    ],
    [
      'insert then get, getMany and findBy a campaign by name',
      (s) => roundTrip(s, 'campaigns', campaign('camp_1', 'Black Friday')),
    ],
    ['unknown ids and keys read as undefined; getMany skips them', unknownReads],
    ['entities without a natural key value do not collide', missingNaturalKeys],
    ['natural keys are unique per collection, not across collections', keysPerCollection],
    // Versioned writes
    ['an update naming the read version bumps the version by one and replaces the value', updateBumpsVersion],
    ['a wrong version is a version conflict and the whole changeset writes nothing', wrongVersionWritesNothing],
    ['inserting an existing id is an exists conflict and writes nothing', insertExisting],
    ['updating or deleting a missing entity is a missing conflict', writeMissing],
    ['delete checks the version, removes the entity and frees its natural key', deleteWithVersion],
    ['a natural key held by another entity is a unique conflict and writes nothing', uniqueAcrossEntities],
    ['two writes claiming one natural key in one changeset are a unique conflict', uniqueWithinChangeset],
    ['a changeset may move a natural key from one entity to another', moveNaturalKey],
    ['several writes to one entity in one changeset apply in order', sequentialWrites],
    // Listing
    ['list defaults to created_at ascending and reports total', listDefaultOrder],
    ['list filters by equality, null, in and dotted paths', listEqualityFilters],
    ['list filters dates by before/after (exclusive) and numbers by gte/lte (inclusive)', listRangeFilters],
    ['list orders asc/desc by a field, ties broken by id ascending', listOrder],
    ['list pages with limit and page', listPages],
    ['cursor pagination walks every item once, ascending and descending', listCursors],
    // Isolation
    ['the caller cannot change a stored value through what it passed in', isolationOfInput],
    ['the caller cannot change a stored value through what it read', isolationOfReads],
    // Concurrency
    [`${n} concurrent commits from one read version: exactly one wins`, (s) => concurrentSameVersion(s, n)],
    [`${n} concurrent two-entity commits: one winner writes both entities`, (s) => concurrentTwoEntities(s, n)],
    [`${n} concurrent inserts of one natural key: exactly one wins`, (s) => concurrentSameKey(s, n)],
    [`${n} concurrent inserts of one id: exactly one wins`, (s) => concurrentSameId(s, n)],
    [`${n} concurrent non-overlapping commits all succeed`, (s) => concurrentDisjoint(s, n)],
    [`${n} concurrent read-modify-write loops lose no update`, (s) => concurrentCounter(s, n)],
  ]
  return cases.map(([name, body]) => ({
    name,
    run: async () => body(await makeStore()),
  }))
}

// ---------------------------------------------------------------------------------------------
// Fixtures: minimal entities. Stores treat values as opaque except `id`, the natural keys and the
// fields a list query names, so the wire types are satisfied by a cast.

type Plain = { id: string } & Record<string, unknown>

function voucher(id: string, code: string, extra: Record<string, unknown> = {}): Plain {
  return { id, code, object: 'voucher', created_at: '2026-01-01T00:00:00.000Z', metadata: {}, ...extra }
}
function customer(id: string, source_id: string | null, extra: Record<string, unknown> = {}): Plain {
  return { id, source_id, object: 'customer', created_at: '2026-01-01T00:00:00.000Z', metadata: {}, ...extra }
}
function product(id: string, source_id: string | null, extra: Record<string, unknown> = {}): Plain {
  return { id, source_id, object: 'product', created_at: '2026-01-01T00:00:00.000Z', metadata: {}, ...extra }
}
function campaign(id: string, name: string, extra: Record<string, unknown> = {}): Plain {
  return { id, name, object: 'campaign', created_at: '2026-01-01T00:00:00.000Z', metadata: {}, ...extra }
}

/** Which natural key each fixture collection is looked up by. */
const KEY_OF: Partial<Record<CollectionName, string>> = {
  vouchers: 'code',
  customers: 'source_id',
  products: 'source_id',
  campaigns: 'name',
}

function put(collection: CollectionName, value: Plain, expectedVersion: number | null): Write {
  return { op: 'put', collection, value: value as unknown as Entity<CollectionName>, expectedVersion } as Write
}
function del(collection: CollectionName, id: string, expectedVersion: number): Write {
  return { op: 'delete', collection, id, expectedVersion }
}

/** The repository surface with the collection's entity type erased, for generic fixtures. */
interface AnyRepository {
  get(id: string): Promise<Stored<unknown> | undefined>
  getMany(ids: readonly string[]): Promise<Stored<unknown>[]>
  findBy(key: string, value: string): Promise<Stored<unknown> | undefined>
  list(query?: ListQuery): Promise<Page<unknown>>
}
function repo(store: Store, collection: CollectionName): AnyRepository {
  return store[collection] as unknown as AnyRepository
}

function idOf(stored: Stored<unknown>): string {
  return (stored.value as { id: string }).id
}

async function commitOk(store: Store, writes: Write[]): Promise<Record<string, number>> {
  const result = await store.commit({ writes })
  if (!result.ok) assert.fail(`expected the commit to succeed, got conflict ${JSON.stringify(result.conflict)}`)
  return result.versions
}

type Conflict = Extract<CommitResult, { ok: false }>['conflict']

async function commitConflict(store: Store, writes: Write[]): Promise<Conflict> {
  const result = await store.commit({ writes })
  if (result.ok)
    assert.fail(`expected a conflict, the commit succeeded with versions ${JSON.stringify(result.versions)}`)
  return result.conflict
}

async function insert(store: Store, collection: CollectionName, value: Plain): Promise<number> {
  const versions = await commitOk(store, [put(collection, value, null)])
  const version = versions[`${collection}/${value.id}`]
  assert.equal(typeof version, 'number', `commit must report the version of ${collection}/${value.id}`)
  return version as number
}

async function mustGet(store: Store, collection: CollectionName, id: string): Promise<Stored<unknown>> {
  const stored = await repo(store, collection).get(id)
  assert.ok(stored, `expected ${collection}/${id} to exist`)
  return stored
}

type Ref = readonly [CollectionName, string]

/** What the store holds for the given ids and natural keys, as one comparable string. */
async function observe(store: Store, refs: readonly Ref[], keys: readonly Ref[] = []): Promise<string> {
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

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

/** Tries to mutate; a frozen value throws in strict mode, which is as good as ignoring the write. */
function tryMutate(mutation: () => void): void {
  try {
    mutation()
  } catch {
    // frozen: the store refused the mutation
  }
}

// ---------------------------------------------------------------------------------------------
// Reads

async function roundTrip(store: Store, collection: CollectionName, value: Plain): Promise<void> {
  const expected = clone(value)
  const version = await insert(store, collection, value)
  const r = repo(store, collection)

  const got = await r.get(value.id)
  assert.deepEqual(got, { value: expected, version })

  const many = await r.getMany([value.id])
  assert.deepEqual(many, [{ value: expected, version }])

  const key = KEY_OF[collection] as string
  const found = await r.findBy(key, value[key] as string)
  assert.deepEqual(found, { value: expected, version })
}

async function unknownReads(store: Store): Promise<void> {
  await insert(store, 'vouchers', voucher('v_1', 'ONE'))
  await insert(store, 'vouchers', voucher('v_2', 'TWO'))
  const r = repo(store, 'vouchers')
  assert.equal(await r.get('v_nope'), undefined)
  assert.equal(await r.findBy('code', 'NOPE'), undefined)
  // A natural key value is not an id, and an id is not a natural key value.
  assert.equal(await r.get('ONE'), undefined)
  assert.equal(await r.findBy('code', 'v_1'), undefined)
  // Another collection's id does not leak through.
  assert.equal(await repo(store, 'customers').get('v_1'), undefined)

  const many = await r.getMany(['v_2', 'v_nope', 'v_1'])
  assert.deepEqual(many.map(idOf).sort(), ['v_1', 'v_2'])
  assert.deepEqual(await r.getMany([]), [])
}

async function missingNaturalKeys(store: Store): Promise<void> {
  await insert(store, 'customers', customer('cust_1', null))
  await insert(store, 'customers', customer('cust_2', null))
  const { source_id: _drop, ...withoutKey } = customer('cust_3', null)
  await insert(store, 'customers', withoutKey)
  const many = await repo(store, 'customers').getMany(['cust_1', 'cust_2', 'cust_3'])
  assert.deepEqual(many.map(idOf).sort(), ['cust_1', 'cust_2', 'cust_3'])
}

async function keysPerCollection(store: Store): Promise<void> {
  await insert(store, 'customers', customer('cust_1', 'shared'))
  await insert(store, 'products', product('prod_1', 'shared'))
  await insert(store, 'vouchers', voucher('v_1', 'SAME'))
  await insert(store, 'campaigns', campaign('camp_1', 'SAME'))
  assert.equal(idOf(await mustFind(store, 'customers', 'shared')), 'cust_1')
  assert.equal(idOf(await mustFind(store, 'products', 'shared')), 'prod_1')
  assert.equal(idOf(await mustFind(store, 'vouchers', 'SAME')), 'v_1')
  assert.equal(idOf(await mustFind(store, 'campaigns', 'SAME')), 'camp_1')
}

async function mustFind(store: Store, collection: CollectionName, value: string): Promise<Stored<unknown>> {
  const found = await repo(store, collection).findBy(KEY_OF[collection] as string, value)
  assert.ok(found, `expected ${collection} with natural key ${value}`)
  return found
}

// ---------------------------------------------------------------------------------------------
// Versioned writes

async function updateBumpsVersion(store: Store): Promise<void> {
  const v1 = await insert(store, 'vouchers', voucher('v_1', 'OLD', { active: true }))
  const next = voucher('v_1', 'NEW', { active: false })
  const versions = await commitOk(store, [put('vouchers', next, v1)])
  assert.equal(versions['vouchers/v_1'], v1 + 1)

  const got = await mustGet(store, 'vouchers', 'v_1')
  assert.deepEqual(got, { value: voucher('v_1', 'NEW', { active: false }), version: v1 + 1 })
  // The natural key index follows the update.
  assert.equal(await repo(store, 'vouchers').findBy('code', 'OLD'), undefined)
  assert.equal(idOf(await mustFind(store, 'vouchers', 'NEW')), 'v_1')

  const again = await commitOk(store, [put('vouchers', voucher('v_1', 'NEW', { active: true }), v1 + 1)])
  assert.equal(again['vouchers/v_1'], v1 + 2)
  assert.equal((await mustGet(store, 'vouchers', 'v_1')).version, v1 + 2)
}

async function wrongVersionWritesNothing(store: Store): Promise<void> {
  const cv = await insert(store, 'customers', customer('cust_1', 'alice', { name: 'Alice' }))
  const pv = await insert(store, 'products', product('prod_1', 'shoe'))
  const kv = await insert(store, 'campaigns', campaign('camp_1', 'Spring'))
  const refs: Ref[] = [
    ['vouchers', 'v_new'],
    ['customers', 'cust_1'],
    ['products', 'prod_1'],
    ['campaigns', 'camp_1'],
  ]
  const keys: Ref[] = [
    ['vouchers', 'FRESH'],
    ['customers', 'alice'],
    ['customers', 'alice-2'],
    ['products', 'shoe'],
    ['campaigns', 'Spring'],
    ['campaigns', 'Summer'],
  ]
  const before = await observe(store, refs, keys)

  for (const stale of [kv - 1, kv + 1]) {
    const conflict = await commitConflict(store, [
      put('vouchers', voucher('v_new', 'FRESH'), null),
      put('customers', customer('cust_1', 'alice-2', { name: 'Alice B' }), cv),
      del('products', 'prod_1', pv),
      put('campaigns', campaign('camp_1', 'Summer'), stale),
    ])
    assert.equal(conflict.collection, 'campaigns')
    assert.equal(conflict.id, 'camp_1')
    assert.equal(conflict.reason, 'version')
    assert.equal(await observe(store, refs, keys), before)
  }

  // A stale delete is refused the same way.
  const conflict = await commitConflict(store, [
    put('vouchers', voucher('v_new', 'FRESH'), null),
    del('campaigns', 'camp_1', kv + 1),
  ])
  assert.deepEqual([conflict.collection, conflict.id, conflict.reason], ['campaigns', 'camp_1', 'version'])
  assert.equal(await observe(store, refs, keys), before)
}

async function insertExisting(store: Store): Promise<void> {
  await insert(store, 'customers', customer('cust_1', 'alice', { name: 'Alice' }))
  const refs: Ref[] = [
    ['customers', 'cust_1'],
    ['vouchers', 'v_1'],
  ]
  const before = await observe(store, refs, [['vouchers', 'CODE']])
  const conflict = await commitConflict(store, [
    put('vouchers', voucher('v_1', 'CODE'), null),
    put('customers', customer('cust_1', 'bob', { name: 'Bob' }), null),
  ])
  assert.deepEqual([conflict.collection, conflict.id, conflict.reason], ['customers', 'cust_1', 'exists'])
  assert.equal(await observe(store, refs, [['vouchers', 'CODE']]), before)
}

async function writeMissing(store: Store): Promise<void> {
  const refs: Ref[] = [
    ['customers', 'cust_1'],
    ['vouchers', 'v_1'],
  ]
  const before = await observe(store, refs)
  const update = await commitConflict(store, [
    put('vouchers', voucher('v_1', 'CODE'), null),
    put('customers', customer('cust_1', 'alice'), 1),
  ])
  assert.deepEqual([update.collection, update.id, update.reason], ['customers', 'cust_1', 'missing'])
  assert.equal(await observe(store, refs), before)

  const removal = await commitConflict(store, [
    put('vouchers', voucher('v_1', 'CODE'), null),
    del('customers', 'cust_1', 1),
  ])
  assert.deepEqual([removal.collection, removal.id, removal.reason], ['customers', 'cust_1', 'missing'])
  assert.equal(await observe(store, refs), before)
}

async function deleteWithVersion(store: Store): Promise<void> {
  const v1 = await insert(store, 'vouchers', voucher('v_1', 'GONE'))
  const stale = await commitConflict(store, [del('vouchers', 'v_1', v1 + 1)])
  assert.deepEqual([stale.collection, stale.id, stale.reason], ['vouchers', 'v_1', 'version'])
  assert.equal((await mustGet(store, 'vouchers', 'v_1')).version, v1)

  await commitOk(store, [del('vouchers', 'v_1', v1)])
  const r = repo(store, 'vouchers')
  assert.equal(await r.get('v_1'), undefined)
  assert.equal(await r.findBy('code', 'GONE'), undefined)
  assert.deepEqual(await r.getMany(['v_1']), [])
  assert.equal((await r.list()).total, 0)

  // Deleting twice: the entity is missing now.
  const twice = await commitConflict(store, [del('vouchers', 'v_1', v1)])
  assert.equal(twice.reason, 'missing')

  // The code is free again, for a new entity and for the same id.
  await insert(store, 'vouchers', voucher('v_2', 'GONE'))
  assert.equal(idOf(await mustFind(store, 'vouchers', 'GONE')), 'v_2')
  await insert(store, 'vouchers', voucher('v_1', 'BACK'))
  assert.equal(idOf(await mustFind(store, 'vouchers', 'BACK')), 'v_1')
}

async function uniqueAcrossEntities(store: Store): Promise<void> {
  await insert(store, 'vouchers', voucher('v_1', 'TAKEN'))
  const v2 = await insert(store, 'vouchers', voucher('v_2', 'OTHER'))
  await insert(store, 'customers', customer('cust_1', 'alice'))
  const refs: Ref[] = [
    ['vouchers', 'v_1'],
    ['vouchers', 'v_2'],
    ['vouchers', 'v_3'],
    ['customers', 'cust_1'],
    ['customers', 'cust_2'],
  ]
  const keys: Ref[] = [
    ['vouchers', 'TAKEN'],
    ['vouchers', 'OTHER'],
    ['customers', 'alice'],
    ['customers', 'carol'],
  ]
  const before = await observe(store, refs, keys)

  // An insert taking a held key, after a valid write in the same changeset.
  const byInsert = await commitConflict(store, [
    put('customers', customer('cust_2', 'carol'), null),
    put('vouchers', voucher('v_3', 'TAKEN'), null),
  ])
  assert.deepEqual([byInsert.collection, byInsert.reason, byInsert.key], ['vouchers', 'unique', 'code'])
  assert.ok(['v_1', 'v_3'].includes(byInsert.id), `conflict names a party to the clash, got ${byInsert.id}`)
  assert.equal(await observe(store, refs, keys), before)

  // An update taking a held key.
  const byUpdate = await commitConflict(store, [
    put('customers', customer('cust_2', 'carol'), null),
    put('vouchers', voucher('v_2', 'TAKEN'), v2),
  ])
  assert.deepEqual([byUpdate.collection, byUpdate.reason, byUpdate.key], ['vouchers', 'unique', 'code'])
  assert.ok(['v_1', 'v_2'].includes(byUpdate.id), `conflict names a party to the clash, got ${byUpdate.id}`)
  assert.equal(await observe(store, refs, keys), before)

  // Same for customers' source_id.
  const bySource = await commitConflict(store, [put('customers', customer('cust_2', 'alice'), null)])
  assert.deepEqual([bySource.collection, bySource.reason, bySource.key], ['customers', 'unique', 'source_id'])
  assert.equal(await observe(store, refs, keys), before)
}

async function uniqueWithinChangeset(store: Store): Promise<void> {
  await insert(store, 'customers', customer('cust_1', 'alice'))
  const refs: Ref[] = [
    ['vouchers', 'v_1'],
    ['vouchers', 'v_2'],
    ['customers', 'cust_1'],
    ['customers', 'cust_2'],
  ]
  const keys: Ref[] = [
    ['vouchers', 'TWIN'],
    ['customers', 'alice'],
    ['customers', 'bob'],
  ]
  const before = await observe(store, refs, keys)

  const twins = await commitConflict(store, [
    put('customers', customer('cust_2', 'bob'), null),
    put('vouchers', voucher('v_1', 'TWIN'), null),
    put('vouchers', voucher('v_2', 'TWIN'), null),
  ])
  assert.deepEqual([twins.collection, twins.reason, twins.key], ['vouchers', 'unique', 'code'])
  assert.ok(['v_1', 'v_2'].includes(twins.id), `conflict names a party to the clash, got ${twins.id}`)
  assert.equal(await observe(store, refs, keys), before)

  // Two customers both renamed to one source_id in one changeset.
  const renamed = await commitConflict(store, [
    put('customers', customer('cust_2', 'bob'), null),
    put('vouchers', voucher('v_1', 'TWIN'), null),
    put('customers', customer('cust_3', 'bob'), null),
  ])
  assert.deepEqual([renamed.collection, renamed.reason, renamed.key], ['customers', 'unique', 'source_id'])
  assert.equal(await observe(store, refs, keys), before)
}

async function moveNaturalKey(store: Store): Promise<void> {
  const a = await insert(store, 'vouchers', voucher('v_a', 'PRIZE'))
  // The new holder is written before the old one lets go: order within a changeset does not matter.
  await commitOk(store, [put('vouchers', voucher('v_b', 'PRIZE'), null), put('vouchers', voucher('v_a', 'SPENT'), a)])
  assert.equal(idOf(await mustFind(store, 'vouchers', 'PRIZE')), 'v_b')
  assert.equal(idOf(await mustFind(store, 'vouchers', 'SPENT')), 'v_a')

  // A swap of two keys.
  const a2 = (await mustGet(store, 'vouchers', 'v_a')).version
  const b1 = (await mustGet(store, 'vouchers', 'v_b')).version
  await commitOk(store, [put('vouchers', voucher('v_a', 'PRIZE'), a2), put('vouchers', voucher('v_b', 'SPENT'), b1)])
  assert.equal(idOf(await mustFind(store, 'vouchers', 'PRIZE')), 'v_a')
  assert.equal(idOf(await mustFind(store, 'vouchers', 'SPENT')), 'v_b')

  // Deleting the holder and giving its key to a new entity in one changeset.
  const c1 = await insert(store, 'customers', customer('cust_1', 'alice'))
  await commitOk(store, [put('customers', customer('cust_2', 'alice'), null), del('customers', 'cust_1', c1)])
  assert.equal(idOf(await mustFind(store, 'customers', 'alice')), 'cust_2')
  assert.equal(await repo(store, 'customers').get('cust_1'), undefined)
}

async function sequentialWrites(store: Store): Promise<void> {
  const v0 = await insert(store, 'customers', customer('cust_0', 'zero'))
  // Insert then update: the update names the version the insert gives.
  const versions = await commitOk(store, [
    put('vouchers', voucher('v_1', 'FIRST'), null),
    put('vouchers', voucher('v_1', 'SECOND'), v0),
  ])
  assert.equal(versions['vouchers/v_1'], v0 + 1)
  assert.deepEqual(await mustGet(store, 'vouchers', 'v_1'), { value: voucher('v_1', 'SECOND'), version: v0 + 1 })
  assert.equal(await repo(store, 'vouchers').findBy('code', 'FIRST'), undefined)
  assert.equal(idOf(await mustFind(store, 'vouchers', 'SECOND')), 'v_1')

  const refs: Ref[] = [
    ['vouchers', 'v_1'],
    ['vouchers', 'v_2'],
  ]
  const keys: Ref[] = [
    ['vouchers', 'SECOND'],
    ['vouchers', 'THIRD'],
    ['vouchers', 'TWICE'],
  ]
  const before = await observe(store, refs, keys)
  const twice = await commitConflict(store, [
    put('vouchers', voucher('v_2', 'TWICE'), null),
    put('vouchers', voucher('v_2', 'TWICE'), null),
  ])
  assert.deepEqual([twice.collection, twice.id, twice.reason], ['vouchers', 'v_2', 'exists'])
  assert.equal(await observe(store, refs, keys), before)

  // Two updates from one read: the second names a version the first has moved on from.
  const stale = await commitConflict(store, [
    put('vouchers', voucher('v_1', 'THIRD'), v0 + 1),
    put('vouchers', voucher('v_1', 'THIRD', { again: true }), v0 + 1),
  ])
  assert.deepEqual([stale.collection, stale.id, stale.reason], ['vouchers', 'v_1', 'version'])
  assert.equal(await observe(store, refs, keys), before)

  // Update then delete in one changeset.
  await commitOk(store, [put('vouchers', voucher('v_1', 'THIRD'), v0 + 1), del('vouchers', 'v_1', v0 + 2)])
  assert.equal(await repo(store, 'vouchers').get('v_1'), undefined)
  assert.equal(await repo(store, 'vouchers').findBy('code', 'THIRD'), undefined)
  assert.equal(await repo(store, 'vouchers').findBy('code', 'SECOND'), undefined)
}

// ---------------------------------------------------------------------------------------------
// Listing. Seven customers inserted out of id order, so that insertion order, id order and each
// sort field disagree. Expected orders are written out by hand.

const PEOPLE: readonly Plain[] = [
  person('e', '2026-01-03T00:00:00.000Z', 'b', true, 30, 2),
  person('a', '2026-01-01T00:00:00.000Z', 'a', true, 10, 1),
  person('g', '2026-01-05T00:00:00.000Z', 'c', true, 20, 3),
  person('c', '2026-01-02T00:00:00.000Z', 'a', false, 20, 2),
  person('f', '2026-01-06T00:00:00.000Z', 'a', true, 50, 3),
  person('b', '2026-01-04T00:00:00.000Z', 'b', false, 40, 1),
  customer('cust_d', null, {
    created_at: '2026-01-07T00:00:00.000Z',
    group: 'c',
    active: true,
    score: 20,
    metadata: { rank: 2 },
  }),
]

function person(letter: string, created_at: string, group: string, active: boolean, score: number, rank: number) {
  return customer(`cust_${letter}`, `src_${letter}`, { created_at, group, active, score, metadata: { rank } })
}

async function people(store: Store): Promise<AnyRepository> {
  for (const p of PEOPLE) await insert(store, 'customers', p)
  return repo(store, 'customers')
}

const ids = (page: Page<unknown>): string[] => page.data.map((s) => idOf(s).replace('cust_', ''))

async function listDefaultOrder(store: Store): Promise<void> {
  const r = await people(store)
  const all = await r.list()
  assert.deepEqual(ids(all), ['a', 'c', 'e', 'b', 'g', 'f', 'd'])
  assert.equal(all.total, 7)
  assert.equal(all.has_more, false)
  assert.equal(all.more_starting_after, null)
  // Listed entries carry their versions like get does.
  for (const s of all.data) assert.deepEqual(s, await r.get(idOf(s)))

  assert.deepEqual(ids(await r.list({ limit: 7 })), ['a', 'c', 'e', 'b', 'g', 'f', 'd'])
  assert.equal((await repo(store, 'vouchers').list()).total, 0)
  assert.deepEqual((await repo(store, 'vouchers').list()).data, [])
}

async function listEqualityFilters(store: Store): Promise<void> {
  const r = await people(store)
  const check = async (where: ListQuery['where'], expected: string[]) => {
    const page = await r.list({ where: where ?? {} })
    assert.deepEqual(ids(page), expected, `where ${JSON.stringify(where)}`)
    assert.equal(page.total, expected.length, `total for where ${JSON.stringify(where)}`)
  }
  await check({ group: 'a' }, ['a', 'c', 'f'])
  await check({ active: false }, ['c', 'b'])
  await check({ score: 20 }, ['c', 'g', 'd'])
  await check({ source_id: null }, ['d'])
  await check({ source_id: 'src_e' }, ['e'])
  await check({ group: 'z' }, [])
  await check({ group: { in: ['b', 'c'] } }, ['e', 'b', 'g', 'd'])
  await check({ score: { in: [10, 50] } }, ['a', 'f'])
  await check({ group: { in: [] } }, [])
  await check({ 'metadata.rank': 2 }, ['c', 'e', 'd'])
  await check({ 'metadata.rank': { in: [1, 3] } }, ['a', 'b', 'g', 'f'])
  // Several fields: all must hold.
  await check({ group: 'a', active: true }, ['a', 'f'])
  await check({ group: { in: ['a', 'c'] }, 'metadata.rank': 2 }, ['c', 'd'])
}

async function listRangeFilters(store: Store): Promise<void> {
  const r = await people(store)
  const check = async (where: ListQuery['where'], expected: string[]) => {
    const page = await r.list({ where: where ?? {} })
    assert.deepEqual(ids(page), expected, `where ${JSON.stringify(where)}`)
    assert.equal(page.total, expected.length, `total for where ${JSON.stringify(where)}`)
  }
  await check({ created_at: { after: '2026-01-03T00:00:00.000Z' } }, ['b', 'g', 'f', 'd'])
  await check({ created_at: { before: '2026-01-03T00:00:00.000Z' } }, ['a', 'c'])
  await check({ created_at: { after: '2026-01-01T00:00:00.000Z', before: '2026-01-05T00:00:00.000Z' } }, [
    'c',
    'e',
    'b',
  ])
  await check({ created_at: { after: '2026-01-02T12:00:00.000Z', before: '2026-01-03T12:00:00.000Z' } }, ['e'])
  await check({ created_at: { after: '2026-02-01T00:00:00.000Z' } }, [])
  await check({ score: { gte: 20, lte: 30 } }, ['c', 'e', 'g', 'd'])
  await check({ score: { gte: 40 } }, ['b', 'f'])
  await check({ score: { lte: 10 } }, ['a'])
  await check({ score: { gte: 21, lte: 29 } }, [])
  await check({ 'metadata.rank': { gte: 3 } }, ['g', 'f'])
  await check({ group: 'a', score: { gte: 20 } }, ['c', 'f'])
}

async function listOrder(store: Store): Promise<void> {
  const r = await people(store)
  const check = async (field: string, direction: 'asc' | 'desc', expected: string[]) => {
    const page = await r.list({ order: { field, direction } })
    assert.deepEqual(ids(page), expected, `order ${direction} ${field}`)
  }
  await check('created_at', 'asc', ['a', 'c', 'e', 'b', 'g', 'f', 'd'])
  await check('created_at', 'desc', ['d', 'f', 'g', 'b', 'e', 'c', 'a'])
  // Ties (score 20: c, d, g) break by id ascending in both directions.
  await check('score', 'asc', ['a', 'c', 'd', 'g', 'e', 'b', 'f'])
  await check('score', 'desc', ['f', 'b', 'e', 'c', 'd', 'g', 'a'])
  await check('metadata.rank', 'asc', ['a', 'b', 'c', 'd', 'e', 'f', 'g'])
  await check('metadata.rank', 'desc', ['f', 'g', 'c', 'd', 'e', 'a', 'b'])
  await check('group', 'desc', ['d', 'g', 'b', 'e', 'a', 'c', 'f'])
  await check('id', 'desc', ['g', 'f', 'e', 'd', 'c', 'b', 'a'])

  const filtered = await r.list({ where: { group: 'a' }, order: { field: 'score', direction: 'desc' } })
  assert.deepEqual(ids(filtered), ['f', 'c', 'a'])
}

async function listPages(store: Store): Promise<void> {
  const r = await people(store)
  const order = { field: 'score', direction: 'asc' } as const
  const expectPage = async (query: ListQuery, expected: string[], has_more: boolean, total: number) => {
    const page = await r.list(query)
    const label = JSON.stringify(query)
    assert.deepEqual(ids(page), expected, label)
    assert.equal(page.has_more, has_more, `has_more for ${label}`)
    assert.equal(page.total, total, `total for ${label}`)
    const last = page.data.at(-1)
    assert.equal(page.more_starting_after, has_more && last ? idOf(last) : null, `more_starting_after for ${label}`)
  }
  await expectPage({ order, limit: 3, page: 1 }, ['a', 'c', 'd'], true, 7)
  await expectPage({ order, limit: 3, page: 2 }, ['g', 'e', 'b'], true, 7)
  await expectPage({ order, limit: 3, page: 3 }, ['f'], false, 7)
  await expectPage({ order, limit: 3, page: 4 }, [], false, 7)
  await expectPage({ order, limit: 3 }, ['a', 'c', 'd'], true, 7)
  await expectPage({ order, limit: 7, page: 1 }, ['a', 'c', 'd', 'g', 'e', 'b', 'f'], false, 7)
  await expectPage({ order, limit: 1, page: 7 }, ['f'], false, 7)
  // total counts the filtered set, not the page.
  await expectPage({ order, where: { group: 'a' }, limit: 2, page: 1 }, ['a', 'c'], true, 3)
  await expectPage({ order, where: { group: 'a' }, limit: 2, page: 2 }, ['f'], false, 3)
  // Exactly full last page: nothing more.
  await expectPage({ order, where: { score: { gte: 20 } }, limit: 3, page: 2 }, ['e', 'b', 'f'], false, 6)
}

async function listCursors(store: Store): Promise<void> {
  const r = await people(store)
  const walk = async (base: ListQuery, limit: number): Promise<string[][]> => {
    const pages: string[][] = []
    let cursor: string | undefined
    for (let guard = 0; guard < 20; guard++) {
      const page = await r.list({ ...base, limit, ...(cursor === undefined ? {} : { starting_after_id: cursor }) })
      pages.push(ids(page))
      const last = page.data.at(-1)
      if (!page.has_more) {
        assert.equal(page.more_starting_after, null, 'the last page has no cursor')
        return pages
      }
      assert.ok(last, 'a page with more after it is not empty')
      assert.equal(page.more_starting_after, idOf(last), 'the cursor is the last id of the page')
      cursor = page.more_starting_after ?? undefined
    }
    return assert.fail('cursor pagination did not end')
  }
  const asc = { order: { field: 'score', direction: 'asc' } } as const
  const desc = { order: { field: 'score', direction: 'desc' } } as const
  assert.deepEqual(await walk(asc, 3), [['a', 'c', 'd'], ['g', 'e', 'b'], ['f']])
  assert.deepEqual(await walk(desc, 2), [['f', 'b'], ['e', 'c'], ['d', 'g'], ['a']])
  assert.deepEqual(await walk(asc, 7), [['a', 'c', 'd', 'g', 'e', 'b', 'f']])
  assert.deepEqual(await walk({}, 4), [
    ['a', 'c', 'e', 'b'],
    ['g', 'f', 'd'],
  ])
  assert.deepEqual(await walk({ ...desc, where: { group: { in: ['b', 'c'] } } }, 1), [['b'], ['e'], ['d'], ['g']])
  assert.deepEqual(await walk({ ...asc, where: { score: { gte: 20 } } }, 3), [
    ['c', 'd', 'g'],
    ['e', 'b', 'f'],
  ])
  // Every limit, both directions: the pages concatenate to the full list with no gap or repeat.
  for (const base of [asc, desc]) {
    const full = ids(await r.list(base))
    for (let limit = 1; limit <= 8; limit++) assert.deepEqual((await walk(base, limit)).flat(), full)
  }
  // The cursor continues after the named entity in the requested order.
  const after = await r.list({ ...desc, starting_after_id: 'cust_c', limit: 10 })
  assert.deepEqual(ids(after), ['d', 'g', 'a'])
  assert.equal(after.has_more, false)
}

// ---------------------------------------------------------------------------------------------
// Isolation

async function isolationOfInput(store: Store): Promise<void> {
  const value = customer('cust_1', 'alice', { name: 'Alice', metadata: { tier: 'gold', tags: ['a'] } })
  const expected = clone(value)
  const version = await insert(store, 'customers', value)
  tryMutate(() => {
    value.name = 'Mallory'
  })
  tryMutate(() => {
    ;(value.metadata as { tier: string }).tier = 'none'
  })
  tryMutate(() => {
    ;(value.metadata as { tags: string[] }).tags.push('b')
  })
  assert.deepEqual((await mustGet(store, 'customers', 'cust_1')).value, expected)

  // A shallowly frozen input still has mutable children the store must not share.
  const shallow = Object.freeze(customer('cust_2', 'bob', { metadata: { tier: 'silver' } }))
  const expectedShallow = clone(shallow)
  await insert(store, 'customers', shallow)
  tryMutate(() => {
    ;(shallow.metadata as { tier: string }).tier = 'none'
  })
  assert.deepEqual((await mustGet(store, 'customers', 'cust_2')).value, expectedShallow)

  // The same for an update.
  const next = customer('cust_1', 'alice', { name: 'Alice 2', metadata: { tier: 'platinum' } })
  const expectedNext = clone(next)
  await commitOk(store, [put('customers', next, version)])
  tryMutate(() => {
    ;(next.metadata as { tier: string }).tier = 'none'
  })
  assert.deepEqual((await mustGet(store, 'customers', 'cust_1')).value, expectedNext)
}

async function isolationOfReads(store: Store): Promise<void> {
  const value = customer('cust_1', 'alice', { name: 'Alice', metadata: { tier: 'gold', tags: ['a'] } })
  const expected = clone(value)
  const version = await insert(store, 'customers', value)
  const r = repo(store, 'customers')
  const reads: Stored<unknown>[] = [
    await mustGet(store, 'customers', 'cust_1'),
    ...(await r.getMany(['cust_1'])),
    await mustFind(store, 'customers', 'alice'),
    ...(await r.list()).data,
  ]
  for (const read of reads) {
    const v = read.value as { name: string; source_id: string; metadata: { tier: string; tags: string[] } }
    tryMutate(() => {
      v.name = 'Mallory'
    })
    tryMutate(() => {
      v.source_id = 'mallory'
    })
    tryMutate(() => {
      v.metadata.tier = 'none'
    })
    tryMutate(() => {
      v.metadata.tags.push('b')
    })
    tryMutate(() => {
      ;(read as { version: number }).version = 99
    })
  }
  assert.deepEqual(await r.get('cust_1'), { value: expected, version })
  assert.equal(idOf(await mustFind(store, 'customers', 'alice')), 'cust_1')
  assert.equal(await r.findBy('source_id', 'mallory'), undefined)
}

// ---------------------------------------------------------------------------------------------
// Concurrency. Every commit is launched before any is awaited; a real database adapter sees them
// race. All start from the same read, so exactly one may win.

function tally(results: readonly CommitResult[]): { ok: number; reasons: Record<string, number> } {
  const reasons: Record<string, number> = {}
  let ok = 0
  for (const r of results) {
    if (r.ok) ok++
    else reasons[r.conflict.reason] = (reasons[r.conflict.reason] ?? 0) + 1
  }
  return { ok, reasons }
}

async function concurrentSameVersion(store: Store, n: number): Promise<void> {
  await insert(store, 'vouchers', voucher('v_1', 'HOT', { writer: -1 }))
  const read = await mustGet(store, 'vouchers', 'v_1')
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.commit({ writes: [put('vouchers', voucher('v_1', 'HOT', { writer: i }), read.version)] }),
    ),
  )
  assert.deepEqual(tally(results), { ok: 1, reasons: n > 1 ? { version: n - 1 } : {} })
  for (const r of results) if (!r.ok) assert.deepEqual([r.conflict.collection, r.conflict.id], ['vouchers', 'v_1'])
  const winner = results.findIndex((r) => r.ok)
  const final = await mustGet(store, 'vouchers', 'v_1')
  assert.equal(final.version, read.version + 1)
  assert.equal((final.value as { writer: number }).writer, winner)
}

async function concurrentTwoEntities(store: Store, n: number): Promise<void> {
  await insert(store, 'customers', customer('cust_1', 'payer', { writer: -1 }))
  await insert(store, 'products', product('prod_1', 'stock', { writer: -1 }))
  const a = await mustGet(store, 'customers', 'cust_1')
  const b = await mustGet(store, 'products', 'prod_1')
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.commit({
        // Half the writers name the entities in the other order, as a deadlock-prone database would see.
        writes:
          i % 2 === 0
            ? [
                put('customers', customer('cust_1', 'payer', { writer: i }), a.version),
                put('products', product('prod_1', 'stock', { writer: i }), b.version),
              ]
            : [
                put('products', product('prod_1', 'stock', { writer: i }), b.version),
                put('customers', customer('cust_1', 'payer', { writer: i }), a.version),
              ],
      }),
    ),
  )
  assert.deepEqual(tally(results), { ok: 1, reasons: n > 1 ? { version: n - 1 } : {} })
  const winner = results.findIndex((r) => r.ok)
  const finalA = await mustGet(store, 'customers', 'cust_1')
  const finalB = await mustGet(store, 'products', 'prod_1')
  assert.deepEqual(
    [finalA.version, (finalA.value as { writer: number }).writer],
    [a.version + 1, winner],
    'customer written by the winner',
  )
  assert.deepEqual(
    [finalB.version, (finalB.value as { writer: number }).writer],
    [b.version + 1, winner],
    'product written by the same winner',
  )
}

async function concurrentSameKey(store: Store, n: number): Promise<void> {
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => store.commit({ writes: [put('vouchers', voucher(`v_${i}`, 'ONLY'), null)] })),
  )
  assert.deepEqual(tally(results), { ok: 1, reasons: n > 1 ? { unique: n - 1 } : {} })
  for (const r of results) if (!r.ok) assert.equal(r.conflict.key, 'code')
  const winner = results.findIndex((r) => r.ok)
  assert.equal(idOf(await mustFind(store, 'vouchers', 'ONLY')), `v_${winner}`)
  const present = await repo(store, 'vouchers').getMany(Array.from({ length: n }, (_, i) => `v_${i}`))
  assert.deepEqual(present.map(idOf), [`v_${winner}`])
  assert.equal((await repo(store, 'vouchers').list()).total, 1)
}

async function concurrentSameId(store: Store, n: number): Promise<void> {
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.commit({ writes: [put('customers', customer('cust_1', `src_${i}`), null)] }),
    ),
  )
  assert.deepEqual(tally(results), { ok: 1, reasons: n > 1 ? { exists: n - 1 } : {} })
  const winner = results.findIndex((r) => r.ok)
  const final = await mustGet(store, 'customers', 'cust_1')
  assert.equal((final.value as { source_id: string }).source_id, `src_${winner}`)
  // Only the winner's natural key is indexed.
  for (let i = 0; i < n; i++) {
    const found = await repo(store, 'customers').findBy('source_id', `src_${i}`)
    assert.equal(found ? idOf(found) : null, i === winner ? 'cust_1' : null)
  }
}

async function concurrentDisjoint(store: Store, n: number): Promise<void> {
  const versions: number[] = []
  for (let i = 0; i < n; i++) versions.push(await insert(store, 'products', product(`prod_${i}`, `p${i}`)))
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.commit({
        writes: [
          put('vouchers', voucher(`v_${i}`, `CODE${i}`), null),
          put('products', product(`prod_${i}`, `p${i}`, { touched: true }), versions[i] ?? 0),
        ],
      }),
    ),
  )
  assert.deepEqual(tally(results), { ok: n, reasons: {} })
  for (let i = 0; i < n; i++) {
    assert.equal(idOf(await mustFind(store, 'vouchers', `CODE${i}`)), `v_${i}`)
    const p = await mustGet(store, 'products', `prod_${i}`)
    assert.deepEqual([p.version, (p.value as { touched?: boolean }).touched], [(versions[i] ?? 0) + 1, true])
  }
  assert.equal((await repo(store, 'vouchers').list()).total, n)
}

async function concurrentCounter(store: Store, n: number): Promise<void> {
  const start = await insert(store, 'vouchers', voucher('v_1', 'COUNTER', { count: 0 }))
  const worker = async (): Promise<number> => {
    // With a correct store every round lets at least one worker through, so n rounds suffice.
    for (let attempt = 1; attempt <= n + 1; attempt++) {
      const read = await mustGet(store, 'vouchers', 'v_1')
      const count = (read.value as { count: number }).count
      const result = await store.commit({
        writes: [put('vouchers', voucher('v_1', 'COUNTER', { count: count + 1 }), read.version)],
      })
      if (result.ok) return attempt
      assert.equal(result.conflict.reason, 'version')
    }
    return assert.fail('a worker never got its update in')
  }
  await Promise.all(Array.from({ length: n }, worker))
  const final = await mustGet(store, 'vouchers', 'v_1')
  assert.deepEqual([final.version, (final.value as { count: number }).count], [start + n, n])
}
