import { describe, expect, it } from 'vitest'
import { readChangeFeed, upgradedStore } from '../../src/operations/kernel/shape-versions'
import { createPostgresStore } from '../../src/postgres'
import { columnNames, columnValues, tableLayout } from '../../src/postgres/columns'
import { useClonedPool } from './database'
import { staleColumns } from './derived-columns'

/*
 * Rows an earlier release wrote in shape 1, put into the tables and the change feed directly by SQL
 * (docs/storage.md#shape-versions): the store returns them as stored with shape 1, and the engine's
 * reads, the change feed included, give the current shape.
 */

const db = useClonedPool(2)

describe('stored shapes written by an earlier release', () => {
  it('a shape-1 redemption and async action come out of get and of the change feed upgraded', async () => {
    const parent = {
      id: 'r_parent',
      date: '2026-01-01T00:00:00.000Z',
      related_redemptions: { rollbacks: [], redemptions: ['r_child'] },
    }
    const action = { id: 'aa_1', type: 'vouchers.bulk_update', status: 'ENQUEUED', result: null }
    // With their derived columns, as every writer computes them (docs/postgres.md#schema).
    for (const [collection, id, value] of [
      ['redemptions', 'r_parent', parent],
      ['async_actions', 'aa_1', action],
    ] as const) {
      const layout = tableLayout(collection, 'promo_engine')
      await db.pool.query(
        `INSERT INTO promo_engine.${collection} (id, value, version, shape${columnNames(layout)})
           SELECT $1, v, 1, 1${columnValues(layout, 'v')} FROM (SELECT $2::jsonb AS v) x`,
        [id, value],
      )
    }
    await db.pool.query(
      `INSERT INTO promo_engine.pe_changes (seq, pos, collection, id, op, version, value, shape)
       VALUES (1, 0, 'redemptions', 'r_parent', 'put', 1, $1, 1), (1, 1, 'async_actions', 'aa_1', 'put', 1, $2, 1)`,
      [parent, action],
    )
    const store = createPostgresStore({ pool: db.pool })
    expect(await staleColumns(db.pool, 'promo_engine')).toEqual([])
    // The store returns each row as stored, with its shape.
    const raw = await store.redemptions.get('r_parent')
    expect([raw?.value, raw?.version, raw?.shape]).toEqual([parent, 1, 1])
    expect((await store.changes()).data.map((c) => [c.value, c.shape])).toEqual([
      [parent, 1],
      [action, 1],
    ])
    // The engine reads them in the current shape.
    const engineView = upgradedStore(store)
    const redemption = await engineView.redemptions.get('r_parent')
    expect(redemption?.value.related_redemptions?.redemptions).toEqual([
      { id: 'r_child', date: '2026-01-01T00:00:00.000Z' },
    ])
    const stored = await engineView.async_actions.get('aa_1')
    expect(stored?.value.type).toBe('VOUCHERS.BULK_UPDATE')
    expect(stored?.value).not.toHaveProperty('result')
    const feed = await readChangeFeed(store)
    expect(feed.data.map((c) => c.value)).toEqual([redemption?.value, stored?.value])
    // An increment keeps the row's shape: the commit says so, and its result and change read upgraded.
    const inc = await engineView.commit({
      writes: [{ op: 'increment', collection: 'async_actions', id: 'aa_1', by: { n: 1 } }],
    })
    expect(inc.ok && inc.values['async_actions/aa_1']).toEqual({ ...stored?.value, n: 1 })
    expect((await store.changes({ after: 1 })).data.map((c) => c.shape)).toEqual([1])
    expect((await readChangeFeed(store, { after: 1 })).data.map((c) => c.value)).toEqual([{ ...stored?.value, n: 1 }])
    expect((await db.pool.query(`SELECT shape FROM promo_engine.async_actions WHERE id = 'aa_1'`)).rows).toEqual([
      { shape: 1 },
    ])
  })
})
