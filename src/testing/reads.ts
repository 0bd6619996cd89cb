import assert from 'node:assert/strict'
import type { CollectionName, Store } from '../storage/ports'
import {
  campaign,
  clone,
  customer,
  idOf,
  insert,
  KEY_OF,
  mustFind,
  type Plain,
  product,
  repo,
  voucher,
} from './fixtures'

/* Storage contract: reads by id, ids and natural key. */

export async function roundTrip(store: Store, collection: CollectionName, value: Plain): Promise<void> {
  const expected = clone(value)
  const version = await insert(store, collection, value)
  const r = repo(store, collection)

  const got = await r.get(value.id)
  assert.deepEqual(got, { value: expected, version, shape: 1 })

  const many = await r.getMany([value.id])
  assert.deepEqual(many, [{ value: expected, version, shape: 1 }])

  const key = KEY_OF[collection] as string
  const found = await r.findBy(key, value[key] as string)
  assert.deepEqual(found, { value: expected, version, shape: 1 })
}

export async function unknownReads(store: Store): Promise<void> {
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

export async function missingNaturalKeys(store: Store): Promise<void> {
  await insert(store, 'customers', customer('cust_1', null))
  await insert(store, 'customers', customer('cust_2', null))
  const { source_id: _drop, ...withoutKey } = customer('cust_3', null)
  await insert(store, 'customers', withoutKey)
  const many = await repo(store, 'customers').getMany(['cust_1', 'cust_2', 'cust_3'])
  assert.deepEqual(many.map(idOf).sort(), ['cust_1', 'cust_2', 'cust_3'])
}

export async function keysPerCollection(store: Store): Promise<void> {
  await insert(store, 'customers', customer('cust_1', 'shared'))
  await insert(store, 'products', product('prod_1', 'shared'))
  await insert(store, 'vouchers', voucher('v_1', 'SAME'))
  await insert(store, 'campaigns', campaign('camp_1', 'SAME'))
  assert.equal(idOf(await mustFind(store, 'customers', 'shared')), 'cust_1')
  assert.equal(idOf(await mustFind(store, 'products', 'shared')), 'prod_1')
  assert.equal(idOf(await mustFind(store, 'vouchers', 'SAME')), 'v_1')
  assert.equal(idOf(await mustFind(store, 'campaigns', 'SAME')), 'camp_1')
}
