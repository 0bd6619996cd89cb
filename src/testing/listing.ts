import assert from 'node:assert/strict'
import type { IndexDeclarations, IndexField, ListQuery, Page, Store } from '../storage/ports'
import { type AnyRepository, commitOk, customer, del, idOf, insert, mustGet, type Plain, put, repo } from './fixtures'

/*
 * Storage contract: listing. Seven customers inserted out of id order, so that insertion order, id
 * order and each sort field disagree. Expected orders are written out by hand.
 */

const group: IndexField = ['group', 'text']
const score: IndexField = ['score', 'number']
const rank: IndexField = ['metadata.rank', 'number']
const created: IndexField = ['created_at', 'timestamp']

/** The customer fields the listing cases filter and sort on, declared as a host declares its own. */
export const LISTING_INDEXES: IndexDeclarations = {
  customers: [
    { on: [group], sort: created },
    { on: [group], sort: score },
    { on: [['active', 'boolean']], sort: created },
    { on: [score], sort: created },
    { on: [rank], sort: created },
    { on: [['source_id', 'text']], sort: created },
    { on: [], sort: score },
    { on: [], sort: rank },
    { on: [], sort: group },
    // Multi-valued (src/testing/elements.ts).
    { on: [['tags[]', 'text']], sort: created },
    { on: [group, ['tags[]', 'text']], sort: score },
    { on: [['links[].id', 'text']], sort: created },
  ],
}

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

export async function listDefaultOrder(store: Store): Promise<void> {
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

export async function listEqualityFilters(store: Store): Promise<void> {
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

export async function listRangeFilters(store: Store): Promise<void> {
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
  // A text field compares by code point: ids between two keys, in created_at order and in id order.
  await check({ id: { after: 'cust_b', before: 'cust_f' } }, ['c', 'e', 'd'])
  const byId = await r.list({ where: { id: { after: 'cust_c' } }, order: { field: 'id', direction: 'asc' }, limit: 2 })
  assert.deepEqual(ids(byId), ['d', 'e'], 'a text range read in id order')
  assert.equal(byId.total, 4)
}

export async function listOrder(store: Store): Promise<void> {
  const r = await people(store)
  const check = async (field: string, direction: 'asc' | 'desc', expected: string[]) => {
    const page = await r.list({ order: { field, direction } })
    assert.deepEqual(ids(page), expected, `order ${direction} ${field}`)
  }
  await check('created_at', 'asc', ['a', 'c', 'e', 'b', 'g', 'f', 'd'])
  await check('created_at', 'desc', ['d', 'f', 'g', 'b', 'e', 'c', 'a'])
  // Ties (score 20: c, d, g) break by id in the same direction: desc is exactly asc reversed
  // (`ORDER BY score DESC, id DESC`), so a feed sorted newest first lists one instant's items newest first.
  await check('score', 'asc', ['a', 'c', 'd', 'g', 'e', 'b', 'f'])
  await check('score', 'desc', ['f', 'b', 'e', 'g', 'd', 'c', 'a'])
  await check('metadata.rank', 'asc', ['a', 'b', 'c', 'd', 'e', 'f', 'g'])
  await check('metadata.rank', 'desc', ['g', 'f', 'e', 'd', 'c', 'b', 'a'])
  await check('group', 'desc', ['g', 'd', 'e', 'b', 'f', 'c', 'a'])
  await check('id', 'desc', ['g', 'f', 'e', 'd', 'c', 'b', 'a'])

  const filtered = await r.list({ where: { group: 'a' }, order: { field: 'score', direction: 'desc' } })
  assert.deepEqual(ids(filtered), ['f', 'c', 'a'])
}

export async function listPages(store: Store): Promise<void> {
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

export async function listCursors(store: Store): Promise<void> {
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
  assert.deepEqual(await walk(desc, 2), [['f', 'b'], ['e', 'g'], ['d', 'c'], ['a']])
  assert.deepEqual(await walk(asc, 7), [['a', 'c', 'd', 'g', 'e', 'b', 'f']])
  assert.deepEqual(await walk({}, 4), [
    ['a', 'c', 'e', 'b'],
    ['g', 'f', 'd'],
  ])
  assert.deepEqual(await walk({ ...desc, where: { group: { in: ['b', 'c'] } } }, 1), [['b'], ['e'], ['g'], ['d']])
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
  const after = await r.list({ ...desc, starting_after_id: 'cust_g', limit: 10 })
  assert.deepEqual(ids(after), ['d', 'c', 'a'])
  assert.equal(after.has_more, false)
}

/**
 * A cursor keeps its place when its row changes under it: a row that left the filter still marks
 * where the next page starts (by its stored sort key), and in id order so does the id of a row
 * deleted meanwhile. Only a row gone from a list in another order leaves nothing to continue from:
 * an empty last page.
 */
export async function listCursorsAfterChange(store: Store): Promise<void> {
  const r = await people(store)
  const change = async (letter: string, fields: Record<string, unknown>) => {
    const s = await mustGet(store, 'customers', `cust_${letter}`)
    await commitOk(store, [put('customers', { ...(s.value as Plain), ...fields }, s.version)])
  }
  const next = async (q: ListQuery, cursor: string) => {
    const page = await r.list({ ...q, starting_after_id: `cust_${cursor}` })
    return [ids(page), page.has_more] as const
  }
  // The filter and the order in one index (group, then score): group a by score is a, c, f.
  const byGroup = { where: { group: 'a' }, order: { field: 'score', direction: 'asc' }, limit: 1 } as const
  assert.deepEqual(ids(await r.list(byGroup)), ['a'])
  await change('a', { group: 'b' })
  assert.deepEqual(await next(byGroup, 'a'), [['c'], true], 'after a row that left the filter: the next one')
  assert.deepEqual(await next({ ...byGroup, order: { field: 'score', direction: 'desc' } }, 'c'), [[], false])
  // The filter in one index, the order in another: the active ones by score are a, d, g, e, f.
  const active = { where: { active: true }, order: { field: 'score', direction: 'asc' }, limit: 2 } as const
  await change('a', { group: 'a' })
  assert.deepEqual(ids(await r.list(active)), ['a', 'd'])
  await change('d', { active: false })
  assert.deepEqual(await next(active, 'd'), [['g', 'e'], true])
  const activeDesc = { ...active, order: { field: 'score', direction: 'desc' } } as const
  await change('d', { active: true })
  assert.deepEqual(ids(await r.list(activeDesc)), ['f', 'e'])
  await change('e', { active: false })
  assert.deepEqual(await next(activeDesc, 'e'), [['g', 'd'], true])
  // In id order the cursor is the place itself: a row deleted meanwhile still marks it.
  const byId = { order: { field: 'id', direction: 'asc' }, limit: 3 } as const
  assert.deepEqual(ids(await r.list(byId)), ['a', 'b', 'c'])
  await commitOk(store, [del('customers', 'cust_c', (await mustGet(store, 'customers', 'cust_c')).version)])
  assert.deepEqual(await next(byId, 'c'), [['d', 'e', 'f'], true])
  assert.deepEqual(await next({ ...byId, order: { field: 'id', direction: 'desc' } }, 'c'), [['b', 'a'], false])
  assert.deepEqual(await next({ ...byId, where: { group: 'a' } }, 'c'), [['f'], false])
  // In another order a deleted row's place is unknown.
  assert.deepEqual(await next({ order: { field: 'score', direction: 'asc' }, limit: 3 }, 'c'), [[], false])
}

/**
 * A timestamp field whose text is not an instant (an impossible day of the month, a word) lists as
 * absent, first in ascending order and outside every range: `Date.parse` would read 30 February as
 * 2 March, and a database's timestamp column refuses it.
 */
export async function listUnreadableDates(store: Store): Promise<void> {
  const at = (letter: string, created_at: string) =>
    insert(store, 'customers', customer(`cust_${letter}`, `src_${letter}`, { created_at, group: 'x', score: 1 }))
  await at('z', '2026-01-04T12:00:00.000Z')
  await at('x', '2026-02-30T00:00:00.000Z')
  await at('y', 'soon')
  const r = repo(store, 'customers')
  const asc = await r.list({ where: { group: 'x' }, order: { field: 'created_at', direction: 'asc' } })
  assert.deepEqual(ids(asc), ['x', 'y', 'z'], 'absent dates first, ascending, by id')
  const after = await r.list({ where: { group: 'x', created_at: { after: '2026-02-01T00:00:00.000Z' } } })
  assert.deepEqual(ids(after), [], 'no impossible day falls in a range')
}
