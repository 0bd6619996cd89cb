import assert from 'node:assert/strict'
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

/**
 * Retention (docs/storage.md#trimming-the-feed): `trimChanges` deletes the oldest commits' changes
 * made long enough ago, each commit whole, and nothing else; readers' cursors keep working.
 */
export async function trimmedFeed(store: Store): Promise<void> {
  const a = await store.commit({
    writes: [put('vouchers', voucher('v_a', 'A'), null), put('customers', customer('cust_a', 'a'), null)],
  })
  const b = await store.commit({ writes: [put('vouchers', voucher('v_b', 'B'), null)] })
  const c = await store.commit({ writes: [put('vouchers', voucher('v_a', 'A2'), 1)] })
  assert.ok(a.ok && b.ok && c.ok)
  const seqs = async (after?: number) =>
    (await store.changes(after === undefined ? {} : { after })).data.map((x) => [x.seq, x.id])
  assert.deepEqual(await store.trimChanges({ olderThanSeconds: 3600 }), { deleted: 0, has_more: false })
  assert.equal((await seqs()).length, 4, 'nothing an hour old: nothing goes')
  // Bad bounds are refused before anything goes (a limit of 0 would never finish a loop on has_more).
  for (const [bad, path] of [
    [{ olderThanSeconds: -1 }, 'olderThanSeconds'],
    [{ olderThanSeconds: Number.NaN }, 'olderThanSeconds'],
    [{ olderThanSeconds: 0, limit: 0 }, 'limit'],
    [{ olderThanSeconds: 0, limit: 1.5 }, 'limit'],
  ] as const) {
    await assert.rejects(() => store.trimChanges(bad), { code: 400, key: 'invalid_payload', path })
  }
  assert.equal((await seqs()).length, 4, 'refused: nothing goes')
  // A limit of one change still takes the oldest commit whole, and says the next is old enough too.
  assert.deepEqual(await store.trimChanges({ olderThanSeconds: 0, limit: 1 }), { deleted: 2, has_more: true })
  assert.deepEqual(await seqs(), [
    [b.seq, 'v_b'],
    [c.seq, 'v_a'],
  ])
  // A cursor from before the trim reads on from where it was.
  assert.deepEqual(await seqs(a.seq), await seqs())
  assert.deepEqual(await store.trimChanges({ olderThanSeconds: 0 }), { deleted: 2, has_more: false })
  assert.deepEqual(await store.changes(), { data: [], has_more: false, next_after: 0 })
  // The entities stay; commits after the trim are numbered above every earlier one.
  assert.equal((await repo(store, 'vouchers').get('v_a'))?.version, 2)
  assert.ok(await repo(store, 'customers').get('cust_a'))
  const d = await store.commit({ writes: [del('vouchers', 'v_b', 1)] })
  assert.ok(d.ok && d.seq > c.seq)
  assert.deepEqual(await seqs(c.seq), [[d.seq, 'v_b']])
}

/**
 * Shape versions (docs/storage.md#shape-versions): a store keeps the shape number each write names
 * and returns it with the value, as stored, from every read; the engine does the upgrading.
 */
export async function shapeVersions(store: Store): Promise<void> {
  const old = { id: 'cat_1', name: 'Old', object: 'category', created_at: '2026-01-01T00:00:00.000Z' }
  await commitOk(store, [put('categories', old, null, 3)])
  const row = (stored: { value: unknown; version: number; shape: number } | undefined) =>
    stored && [stored.value, stored.version, stored.shape]
  const categories = repo(store, 'categories')
  assert.deepEqual(row(await categories.get('cat_1')), [old, 1, 3], 'get returns the value as stored with its shape')
  assert.deepEqual(row(await categories.findBy('name', 'Old')), [old, 1, 3], 'findBy too')
  assert.deepEqual((await categories.getMany(['cat_1'])).map(row), [[old, 1, 3]], 'getMany too')
  assert.deepEqual((await categories.findMany('name', ['Old'])).map(row), [[old, 1, 3]], 'findMany too')
  assert.deepEqual((await categories.list()).data.map(row), [[old, 1, 3]], 'list too')
  const feed = async (id: string) =>
    (await store.changes()).data.filter((c) => c.id === id).map((c) => [c.op, c.version, c.value, c.shape])
  assert.deepEqual(await feed('cat_1'), [['put', 1, old, 3]], 'the change feed too')

  // An increment changes numbers only: the row keeps its shape, and the commit says which it is.
  const inc = await store.commit({
    writes: [{ op: 'increment', collection: 'categories', id: 'cat_1', by: { n: 1 }, shape: 9 }],
  })
  assert.ok(inc.ok)
  assert.deepEqual(inc.values['categories/cat_1'], { ...old, n: 1 }, 'the value after the increment')
  assert.deepEqual(inc.shapes['categories/cat_1'], 3, 'in the shape the row had')
  assert.deepEqual(row(await categories.get('cat_1')), [{ ...old, n: 1 }, 2, 3])
  assert.deepEqual((await feed('cat_1'))[1], ['put', 2, { ...old, n: 1 }, 3])

  // A row an increment creates is stored in the shape the increment names.
  const created = await store.commit({
    writes: [{ op: 'increment', collection: 'counters', id: 'c_1', by: { n: 1 }, create: { n: 0 }, shape: 2 }],
  })
  assert.ok(created.ok)
  assert.deepEqual(created.shapes['counters/c_1'], 2)
  assert.equal((await repo(store, 'counters').get('c_1'))?.shape, 2)

  // Written back, the row takes the shape the put names; a delete has none.
  await commitOk(store, [put('categories', { ...old, name: 'New' }, 2, 4)])
  assert.deepEqual(row(await categories.get('cat_1')), [{ ...old, name: 'New' }, 3, 4])
  await commitOk(store, [del('categories', 'cat_1', 3)])
  assert.deepEqual((await feed('cat_1')).slice(2), [
    ['put', 3, { ...old, name: 'New' }, 4],
    ['delete', 3, null, null],
  ])
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
