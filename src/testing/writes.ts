import assert from 'node:assert/strict'
import type { Store } from '../storage/ports'
import {
  campaign,
  commitConflict,
  commitOk,
  customer,
  del,
  idOf,
  insert,
  mustFind,
  mustGet,
  observe,
  product,
  put,
  type Ref,
  repo,
  voucher,
} from './fixtures'

/* Storage contract: versioned writes and natural-key uniqueness within and across changesets. */

export async function updateBumpsVersion(store: Store): Promise<void> {
  const v1 = await insert(store, 'vouchers', voucher('v_1', 'OLD', { active: true }))
  // Operations name the version their own commit leaves (a redemption, its order's: docs/storage.md#commit).
  assert.equal(v1, 1, 'an insert gives version 1')
  const next = voucher('v_1', 'NEW', { active: false })
  const versions = await commitOk(store, [put('vouchers', next, v1)])
  assert.equal(versions['vouchers/v_1'], v1 + 1)

  const got = await mustGet(store, 'vouchers', 'v_1')
  assert.deepEqual(got, { value: voucher('v_1', 'NEW', { active: false }), version: v1 + 1, shape: 1 })
  // The natural key index follows the update.
  assert.equal(await repo(store, 'vouchers').findBy('code', 'OLD'), undefined)
  assert.equal(idOf(await mustFind(store, 'vouchers', 'NEW')), 'v_1')

  const again = await commitOk(store, [put('vouchers', voucher('v_1', 'NEW', { active: true }), v1 + 1)])
  assert.equal(again['vouchers/v_1'], v1 + 2)
  assert.equal((await mustGet(store, 'vouchers', 'v_1')).version, v1 + 2)
}

export async function wrongVersionWritesNothing(store: Store): Promise<void> {
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

export async function insertExisting(store: Store): Promise<void> {
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

export async function writeMissing(store: Store): Promise<void> {
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

export async function deleteWithVersion(store: Store): Promise<void> {
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

export async function uniqueAcrossEntities(store: Store): Promise<void> {
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

export async function uniqueWithinChangeset(store: Store): Promise<void> {
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

export async function moveNaturalKey(store: Store): Promise<void> {
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

export async function sequentialWrites(store: Store): Promise<void> {
  const v0 = await insert(store, 'customers', customer('cust_0', 'zero'))
  // Insert then update: the update names the version the insert gives.
  const versions = await commitOk(store, [
    put('vouchers', voucher('v_1', 'FIRST'), null),
    put('vouchers', voucher('v_1', 'SECOND'), v0),
  ])
  assert.equal(versions['vouchers/v_1'], v0 + 1)
  assert.deepEqual(await mustGet(store, 'vouchers', 'v_1'), {
    value: voucher('v_1', 'SECOND'),
    version: v0 + 1,
    shape: 1,
  })
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

/** An increment adds to numeric fields without naming a version, but still moves the version. */
export async function incrementCounters(store: Store): Promise<void> {
  const v1 = await insert(store, 'vouchers', voucher('v_inc', 'INC', { redemption: { redeemed_quantity: 2 } }))
  const versions = await commitOk(store, [
    {
      op: 'increment',
      collection: 'vouchers',
      id: 'v_inc',
      by: { 'redemption.redeemed_quantity': 3, 'stats.uses': 1 },
    },
  ])
  assert.equal(versions['vouchers/v_inc'], v1 + 1, 'an increment moves the version by one')
  const after = await mustGet(store, 'vouchers', 'v_inc')
  const value = after.value as { code: string; redemption: { redeemed_quantity: number }; stats: { uses: number } }
  assert.equal(value.redemption.redeemed_quantity, 5)
  assert.equal(value.stats.uses, 1, 'a missing counter counts from 0')
  assert.equal(value.code, 'INC', 'other fields are kept')
  // A put from the version read before the increment now conflicts: the increment is not lost.
  const stale = await commitConflict(store, [put('vouchers', voucher('v_inc', 'INC'), v1)])
  assert.equal(stale.reason, 'version')
  // An increment of a missing entity is a missing conflict and writes nothing.
  const missing = await commitConflict(store, [{ op: 'increment', collection: 'vouchers', id: 'v_none', by: { n: 1 } }])
  assert.equal(missing.reason, 'missing')
  assert.equal(await repo(store, 'vouchers').get('v_none'), undefined)
}
