import assert from 'node:assert/strict'
import type { ListQuery, Page, Store } from '../storage/ports'
import { type AnyRepository, commitOk, customer, del, idOf, insert, mustGet, put, repo } from './fixtures'

/*
 * Storage contract: multi-valued indexes (docs/storage.md#multi-valued-indexes). Customers carry
 * `tags` (an array of strings, a lone string, an empty array, or nothing) and `links` (objects with
 * an `id`); a list by `tags[]` or `links[].id` (declared in `LISTING_INDEXES`) finds an entity by any
 * of its elements, once.
 */

function tagged(letter: string, day: number, group: string, score: number, extra: Record<string, unknown>) {
  return customer(`cust_${letter}`, `el_${letter}`, {
    created_at: `2026-02-0${day}T00:00:00.000Z`,
    group,
    score,
    ...extra,
  })
}

const TAGGED = [
  tagged('c', 3, 'a', 20, { tags: [] }),
  tagged('a', 1, 'a', 10, { tags: ['x', 'y'], links: [{ id: 'p' }, { id: 'q' }] }),
  tagged('f', 6, 'c', 60, { tags: ['z', 'x', 'x', 7], links: [{ id: 'q' }, { other: 1 }] }),
  tagged('d', 4, 'b', 40, {}),
  tagged('b', 2, 'b', 30, { tags: ['y'] }),
  // A lone string is one element.
  tagged('e', 5, 'a', 50, { tags: 'x' }),
]

const ids = (page: Page<unknown>): string[] => page.data.map((s) => idOf(s).replace('cust_', ''))

async function taggedPeople(store: Store): Promise<AnyRepository> {
  for (const p of TAGGED) await insert(store, 'customers', p)
  return repo(store, 'customers')
}

async function refused(run: () => Promise<unknown>, what: string): Promise<void> {
  await assert.rejects(run, Error, what)
}

export async function listByElements(store: Store): Promise<void> {
  const r = await taggedPeople(store)
  const check = async (query: ListQuery, expected: string[]) => {
    const page = await r.list(query)
    const label = JSON.stringify(query)
    assert.deepEqual(ids(page), expected, label)
    assert.equal(page.total, expected.length, `total for ${label}`)
  }
  await check({ where: { 'tags[]': 'x' } }, ['a', 'e', 'f'])
  await check({ where: { 'tags[]': 'y' } }, ['a', 'b'])
  // Matching two of its elements, an entity is still listed once, and counted once.
  await check({ where: { 'tags[]': { in: ['x', 'y'] } } }, ['a', 'b', 'e', 'f'])
  await check({ where: { 'tags[]': { in: ['y', 'x', 'nothing'] } } }, ['a', 'b', 'e', 'f'])
  // null: no element at all (an empty array, or no field).
  await check({ where: { 'tags[]': null } }, ['c', 'd'])
  await check({ where: { 'tags[]': { in: ['z', null] } } }, ['c', 'd', 'f'])
  await check({ where: { 'tags[]': { in: [] } } }, [])
  // Only strings are elements.
  await check({ where: { 'tags[]': '7' } }, [])
  await check({ where: { 'links[].id': 'q' } }, ['a', 'f'])
  await check({ where: { 'links[].id': { in: ['p', 'q'] } } }, ['a', 'f'])
  await check({ where: { 'links[].id': null } }, ['b', 'c', 'd', 'e'])
  // With other conditions, and in another order.
  await check({ where: { group: 'a', 'tags[]': { in: ['x', 'y'] } } }, ['a', 'e'])
  await check({ where: { group: { in: ['a', 'b'] }, 'tags[]': 'y' } }, ['a', 'b'])
  await check({ where: { 'tags[]': { in: ['x', 'y'] } }, order: { field: 'score', direction: 'desc' } }, [
    'f',
    'e',
    'b',
    'a',
  ])

  // Pages and cursors over a list that reads several elements.
  const both = { where: { 'tags[]': { in: ['x', 'y'] } }, order: { field: 'score', direction: 'asc' } } as const
  const second = await r.list({ ...both, limit: 3, page: 2 })
  assert.deepEqual(ids(second), ['f'])
  assert.equal(second.total, 4)
  assert.equal(second.has_more, false)
  for (let limit = 1; limit <= 5; limit++) {
    const walked: string[] = []
    let cursor: string | undefined
    for (let guard = 0; guard < 10; guard++) {
      const page = await r.list({ ...both, limit, ...(cursor === undefined ? {} : { starting_after_id: cursor }) })
      walked.push(...ids(page))
      if (!page.has_more) break
      cursor = page.more_starting_after ?? undefined
    }
    assert.deepEqual(walked, ['a', 'b', 'e', 'f'], `cursor walk with limit ${limit}`)
  }

  // Refused: ordering by a multi-valued field, and a range on one.
  await refused(() => r.list({ order: { field: 'tags[]', direction: 'asc' } }), 'ordered by tags[]')
  await refused(() => r.list({ where: { 'tags[]': { gte: 1 } } }), 'a range on tags[]')
}

export async function elementsFollowWrites(store: Store): Promise<void> {
  const r = await taggedPeople(store)
  const tags = async (tag: string | null) => ids(await r.list({ where: { 'tags[]': tag } }))
  // An update moves the entity between the elements' entries; a delete takes it out of all of them.
  const a = await mustGet(store, 'customers', 'cust_a')
  await commitOk(store, [put('customers', { ...(a.value as { id: string }), tags: ['z'] }, a.version)])
  assert.deepEqual(await tags('x'), ['e', 'f'])
  assert.deepEqual(await tags('y'), ['b'])
  assert.deepEqual(await tags('z'), ['a', 'f'])
  const f = await mustGet(store, 'customers', 'cust_f')
  await commitOk(store, [del('customers', 'cust_f', f.version)])
  assert.deepEqual(await tags('z'), ['a'])
  assert.deepEqual(await tags('x'), ['e'])
  const c = await mustGet(store, 'customers', 'cust_c')
  await commitOk(store, [put('customers', { ...(c.value as { id: string }), tags: ['y', 'y'] }, c.version)])
  assert.deepEqual(await tags('y'), ['b', 'c'])
  assert.deepEqual(await tags(null), ['d'])
  // A failed commit leaves the entries as they were.
  const b = await mustGet(store, 'customers', 'cust_b')
  const failed = await store.commit({
    writes: [put('customers', { ...(b.value as { id: string }), tags: ['x'] }, b.version + 1)],
  })
  assert.equal(failed.ok, false)
  assert.deepEqual(await tags('x'), ['e'])
  assert.deepEqual(await tags('y'), ['b', 'c'])
}
