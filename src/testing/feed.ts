import assert from 'node:assert/strict'
import { registerShapeUpgrades } from '../operations/kernel/shape-versions'
import type { Change, Store } from '../storage/ports'
import { commitConflict, commitOk, customer, del, insert, put, repo, voucher } from './fixtures'

/*
 * Storage contract: the change feed (docs/storage.md#change-feed) and shape versions
 * (docs/storage.md#shape-versions).
 */

export async function changeFeed(store: Store): Promise<void> {
  const start = await store.changes()
  assert.deepEqual(start, { data: [], has_more: false, next_after: 0 })
  const a = await store.commit({
    writes: [put('vouchers', voucher('v_a', 'A'), null), put('customers', customer('cust_a', 'a'), null)],
  })
  assert.ok(a.ok)
  await commitConflict(store, [put('vouchers', voucher('v_a', 'A'), null)])
  const b = await store.commit({ writes: [put('vouchers', voucher('v_a', 'A2'), 1)] })
  assert.ok(b.ok)
  assert.ok(b.seq > a.seq, 'sequence numbers increase with every commit')
  const c = await store.commit({ writes: [del('customers', 'cust_a', 1)] })
  assert.ok(c.ok)
  const all = await store.changes()
  const summary = (changes: Change[]) => changes.map((x) => [x.seq, x.collection, x.id, x.op, x.version])
  assert.deepEqual(summary(all.data), [
    [a.seq, 'vouchers', 'v_a', 'put', 1],
    [a.seq, 'customers', 'cust_a', 'put', 1],
    [b.seq, 'vouchers', 'v_a', 'put', 2],
    [c.seq, 'customers', 'cust_a', 'delete', 1],
  ])
  const written = all.data[2] as Change
  assert.equal((written.value as { code: string }).code, 'A2', 'a change carries the value written')
  assert.equal(all.next_after, c.seq)
  assert.equal(all.has_more, false)
  // A cursor continues after a commit; a page never splits a commit.
  const afterA = await store.changes({ after: a.seq })
  assert.deepEqual(summary(afterA.data), summary(all.data.slice(2)))
  const firstPage = await store.changes({ limit: 1 })
  assert.deepEqual(summary(firstPage.data), summary(all.data.slice(0, 2)))
  assert.equal(firstPage.has_more, true)
  assert.equal(firstPage.next_after, a.seq)
  const only = await store.changes({ collections: ['customers'] })
  assert.deepEqual(summary(only.data), [
    [a.seq, 'customers', 'cust_a', 'put', 1],
    [c.seq, 'customers', 'cust_a', 'delete', 1],
  ])
}

export async function shapeUpgrades(store: Store): Promise<void> {
  await insert(store, 'categories', {
    id: 'cat_1',
    name: 'Old',
    object: 'category',
    created_at: '2026-01-01T00:00:00.000Z',
  })
  const undo = registerShapeUpgrades('categories', [(v) => ({ ...v, hierarchy: (v.hierarchy as number) ?? 1 })])
  try {
    const expected = {
      id: 'cat_1',
      name: 'Old',
      object: 'category',
      created_at: '2026-01-01T00:00:00.000Z',
      hierarchy: 1,
    }
    assert.deepEqual((await repo(store, 'categories').get('cat_1'))?.value, expected, 'get upgrades an older shape')
    assert.deepEqual((await repo(store, 'categories').findBy('name', 'Old'))?.value, expected, 'findBy too')
    assert.deepEqual((await repo(store, 'categories').list()).data[0]?.value, expected, 'list too')
    const feedValue = async () =>
      (await store.changes()).data.filter((c) => c.id === 'cat_1').map((c) => [c.version, c.value])
    assert.deepEqual(await feedValue(), [[1, expected]], 'the change feed too')
    // Incremented, the row keeps its shape: the increment's result and its change come out upgraded.
    const inc = await store.commit({
      writes: [{ op: 'increment', collection: 'categories', id: 'cat_1', by: { n: 1 } }],
    })
    assert.ok(inc.ok)
    assert.deepEqual(inc.values['categories/cat_1'], { ...expected, n: 1 }, 'the value after an increment too')
    assert.deepEqual(await feedValue(), [
      [1, expected],
      [2, { ...expected, n: 1 }],
    ])
    // Written back, it is stored in the current shape and read as it is.
    await commitOk(store, [put('categories', { ...expected, name: 'New' }, 2)])
    assert.deepEqual((await repo(store, 'categories').get('cat_1'))?.value, { ...expected, name: 'New' })
  } finally {
    undo()
  }
}

export async function undeclaredListsRefused(store: Store): Promise<void> {
  await insert(store, 'vouchers', voucher('v_1', 'ONE', { color: 'red' }))
  await assert.rejects(() => repo(store, 'vouchers').list({ where: { color: 'red' } }), /declared index/)
  await assert.rejects(
    () => repo(store, 'vouchers').list({ order: { field: 'color', direction: 'asc' } }),
    /declared index/,
  )
  // Declared fields list.
  assert.equal((await repo(store, 'vouchers').list({ where: { campaign_id: null } })).total, 1)
}

export async function findManyByKey(store: Store): Promise<void> {
  await insert(store, 'vouchers', voucher('v_1', 'ONE'))
  await insert(store, 'vouchers', voucher('v_2', 'TWO'))
  const found = await store.vouchers.findMany('code', ['TWO', 'NONE', 'ONE'])
  assert.deepEqual(
    found.map((s) => (s.value as { id: string }).id),
    ['v_2', 'v_1'],
    'found entities in the order asked, unknown keys skipped',
  )
}
