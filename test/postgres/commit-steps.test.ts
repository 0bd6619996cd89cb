import { describe, expect, it } from 'vitest'
import { byteOrder, commitSteps, keyedCollections, outcome } from '../../src/postgres/changeset'
import type { Write } from '../../src/storage/ports'

/*
 * The payload `pe_commit` reads (docs/postgres.md#commit), pinned key for key: merged increments as
 * parallel arrays in write order, assignments only when some value is set, the guard and the create
 * only when given, and each step's counts.
 */

describe('commitSteps', () => {
  it("orders a step's rows as the database sorts ids (UTF-8 bytes), the order its statements lock them in", () => {
    const ids = ['b', 'a\u{1F600}', 'a\uFFFF', 'a', 'a\uE000', 'A']
    const steps = commitSteps(ids.map((id) => ({ op: 'increment', collection: 'counters', id, by: { count: 1 } })))
    const order = steps.flatMap((s) => s.rows.map((r) => (r as { id: string }).id))
    const bytes = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)))
    expect(order).toEqual(bytes)
    expect(order).toEqual(['A', 'a', 'a\uE000', 'a\uFFFF', 'a\u{1F600}', 'b'])
    expect(byteOrder('a\u{1F600}', 'a\uFFFF')).toBeGreaterThan(0)
  })

  it('merges increments of one row into parallel arrays and leaves out what a row does not carry', () => {
    const steps = commitSteps([
      {
        op: 'increment',
        collection: 'counters',
        id: 'b',
        by: { count: 1, 'x.y': 2 },
        set: { at: 't1', gone: undefined },
      },
      { op: 'increment', collection: 'counters', id: 'b', by: { count: 3 }, set: { at: 't2' } },
      { op: 'increment', collection: 'counters', id: 'a', by: { count: 1 }, create: { count: 0 }, shape: 2 },
      { op: 'increment', collection: 'vouchers', id: 'v', by: { used: 1 }, guard: { used: { max: 5 } } },
      { op: 'put', collection: 'orders', value: { id: 'o' } as never, expectedVersion: null, shape: 1 },
      { op: 'delete', collection: 'products', id: 's', expectedVersion: 4 },
    ])
    expect(JSON.stringify(steps)).toBe(
      JSON.stringify([
        {
          c: 'orders',
          rows: [{ op: 'ins', id: 'o', v: { id: 'o' }, ev: null, s: 1, pos: 3 }],
          ins: 1,
          upd: 0,
          del: 0,
          inc: 0,
          cr: 0,
          k: 'i orders',
        },
        { c: 'products', rows: [{ op: 'del', id: 's', ev: 4, pos: 4 }], ins: 0, upd: 0, del: 1, inc: 0, cr: 0 },
        {
          c: 'counters',
          rows: [
            { op: 'inc', id: 'a', n: 1, ap: ['count'], av: [1], cr: { count: 0 }, s: 2, pos: 1 },
            {
              op: 'inc',
              id: 'b',
              n: 2,
              ap: ['count', 'x.y', 'count'],
              av: [1, 2, 3],
              sp: ['at', 'at'],
              sv: ['t1', 't2'],
              s: 1,
              pos: 0,
            },
          ],
          ins: 0,
          upd: 0,
          del: 0,
          inc: 2,
          cr: 1,
        },
        {
          c: 'vouchers',
          rows: [
            { op: 'inc', id: 'v', n: 1, ap: ['used'], av: [1], g: { used: { max: 5 } }, gk: ['used'], s: 1, pos: 2 },
          ],
          ins: 0,
          upd: 0,
          del: 0,
          inc: 1,
          cr: 0,
          k: 'g vouchers',
        },
      ]),
    )
  })
  it('names the steps pe_commit applies itself, and marks an entity written in two steps', () => {
    const inc = (id: string, more: object = {}): Write =>
      ({ op: 'increment', collection: 'counters', id, by: { n: 1 }, ...more }) as Write
    const kinds = (writes: Write[]) => commitSteps(writes).map((s) => [s.c, s.k ?? null, s.dd ?? null])
    // Counters each created when missing, none guarded: the upsert; one row's increment: its UPDATE.
    expect(kinds([inc('a', { create: {} }), inc('b', { create: {} })])).toEqual([['counters', 'u counters', null]])
    expect(kinds([inc('a', { guard: { n: { max: 1 } } })])).toEqual([['counters', 'g counters', null]])
    // A guarded row created when missing (a step after the unguarded ones; a new member's card
    // counted in a shard of its campaign's codes): the upsert too, pe_inc checking its guard.
    expect(kinds([inc('a', { create: {} }), inc('b', { create: {}, guard: { n: { max: 1 } } })])).toEqual([
      ['counters', 'u counters', null],
      ['counters', 'u counters', null],
    ])
    // Two guarded rows created when missing (a failure would not name its row), two rows without
    // create, a row created and one not, an update: their writers.
    expect(
      kinds([inc('a', { create: {}, guard: { n: { max: 1 } } }), inc('b', { create: {}, guard: { n: { max: 1 } } })]),
    ).toEqual([['counters', null, null]])
    // With alternatives the guard's failure is collected, not raised: its writer.
    expect(commitSteps([inc('a', { create: {}, guard: { n: { max: 1 } } })], true).map((s) => s.k ?? null)).toEqual([
      null,
    ])
    expect(kinds([inc('a'), inc('b')])).toEqual([['counters', null, null]])
    expect(kinds([inc('a', { create: {} }), inc('b')])).toEqual([['counters', null, null]])
    expect(
      kinds([{ op: 'put', collection: 'orders', value: { id: 'o' } as never, expectedVersion: 2, shape: 1 }]),
    ).toEqual([['orders', null, null]])
    // The second increment cannot join the first (it adds where the first assigns): a second round.
    expect(kinds([inc('a', { set: { n: 0 } }), inc('a')])).toEqual([
      ['counters', 'g counters', 1],
      ['counters', 'g counters', null],
    ])
  })
  it("completes the answer's versions from the steps when the function reports only what they wrote", () => {
    const steps = commitSteps([
      { op: 'put', collection: 'orders', value: { id: 'o' } as never, expectedVersion: null, shape: 1 },
      { op: 'put', collection: 'orders', value: { id: 'o' } as never, expectedVersion: 1, shape: 1 },
      { op: 'put', collection: 'products', value: { id: 'p' } as never, expectedVersion: null, shape: 1 },
      { op: 'increment', collection: 'counters', id: 'c', by: { n: 1 } },
      { op: 'increment', collection: 'counters', id: 'gone', by: { n: 1 } },
      { op: 'delete', collection: 'counters', id: 'gone', expectedVersion: 3 },
    ])
    // What pe_commit reports without takes: the updates and increments (a deletion as null), no inserts.
    const wrote = { 'orders/o': 2, 'counters/c': 8, 'counters/gone': null }
    const result = outcome({ ok: true, seq: 7, wrote, values: {}, shapes: {} }, { steps })
    if (!result.ok) throw new Error('expected a commit')
    // Per entity its last write: the order inserted then updated, the product inserted, the counter
    // incremented; the counter deleted after its increment is left out.
    expect(result.versions).toEqual({ 'orders/o': 2, 'products/p': 1, 'counters/c': 8 })
    expect(Object.keys(result)).toEqual(['ok', 'seq', 'values', 'shapes', 'versions'])
    // An alternative committed instead: its own steps.
    const alternative = commitSteps([
      { op: 'put', collection: 'customers', value: { id: 'r' } as never, expectedVersion: null, shape: 1 },
    ])
    const chosen = outcome(
      { ok: true, seq: 8, wrote: {}, values: {}, shapes: {}, alternative: { index: 0, failed: [] } },
      { steps, alternatives: [{ steps: alternative }] },
    )
    expect(chosen.ok && chosen.versions).toEqual({ 'customers/r': 1 })
  })
  it('names for the unique checks only the collections whose keys a write may set', () => {
    const put = (collection: 'orders' | 'customers', value: object): Write =>
      ({ op: 'put', collection, value: { id: 'x', ...value }, expectedVersion: null, shape: 1 }) as Write
    // A value holding no key (absent, null or not a string: the key column is NULL) cannot collide.
    expect(
      keyedCollections([put('orders', {}), put('orders', { source_id: null }), put('orders', { source_id: 7 })]),
    ).toEqual([])
    expect(keyedCollections([put('orders', {}), put('customers', { source_id: 'c1' })])).toEqual(['customers'])
    // An increment that writes a key field may give it a value.
    expect(
      keyedCollections([{ op: 'increment', collection: 'customers', id: 'x', by: {}, set: { source_id: 'c2' } }]),
    ).toEqual(['customers'])
    expect(keyedCollections([{ op: 'increment', collection: 'customers', id: 'x', by: { n: 1 } }])).toEqual([])
  })
})
