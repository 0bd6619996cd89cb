import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { createPostgresStore } from '../../src/postgres'
import { useClonedPool } from './database'

/*
 * The change feed's retention on PostgreSQL (docs/postgres.md#trimming-the-feed): changes go by their
 * commit's time, whole commits, read oldest first through the primary key, so a trim reads what it
 * deletes and a bounded few more, never the recent feed.
 */

const db = useClonedPool(4)

const voucher = (code: string) => ({
  code,
  type: 'DISCOUNT_VOUCHER' as const,
  discount: { type: 'AMOUNT' as const, amount_off: 100 },
})

describe('PostgreSQL store: trimming the change feed', () => {
  it('deletes the commits made long enough ago, whole, and keeps the recent ones', async () => {
    const schema = 'trim_by_age'
    const store = createPostgresStore({ pool: db.pool, schema })
    await store.migrate()
    const engine = createEngine({ store })
    for (let i = 0; i < 5; i++) await engine.vouchers.create(voucher(`OLD${i}`))
    // Those five commits made two hours ago, as the column records them.
    await db.pool.query(`UPDATE ${schema}.pe_changes SET at = at - interval '2 hours'`)
    const old = (await store.changes({ limit: 1000 })).data
    for (let i = 0; i < 3; i++) await engine.vouchers.create(voucher(`NEW${i}`))
    const all = (await store.changes({ limit: 1000 })).data
    const recent = all.slice(old.length)
    expect(new Set(old.map((c) => c.seq)).size).toBe(5)

    // Paged by the limit, each commit whole: a call stops once it took `limit` changes.
    const perCommit = old.length / 5
    const first = await engine.maintenance.trimChangeFeed({ older_than_seconds: 3600, limit: perCommit + 1 })
    expect(first).toEqual({ changes: 2 * perCommit, has_more: true })
    let rest = { changes: 0, has_more: true }
    let calls = 0
    while (rest.has_more) {
      const r = await engine.maintenance.trimChangeFeed({ older_than_seconds: 3600, limit: perCommit + 1 })
      rest = { changes: rest.changes + r.changes, has_more: r.has_more }
      calls++
    }
    expect(rest.changes).toBe(3 * perCommit)
    expect(calls).toBe(2)
    expect((await store.changes({ limit: 1000 })).data).toEqual(recent)
    expect(await engine.maintenance.trimChangeFeed({ older_than_seconds: 3600 })).toEqual({
      changes: 0,
      has_more: false,
    })
    // The vouchers themselves stay.
    expect((await engine.vouchers.get('OLD0')).code).toBe('OLD0')
  })

  it('reads the oldest changes through the primary key only: a bounded few of a large recent feed', async () => {
    const schema = 'trim_bounded'
    const store = createPostgresStore({ pool: db.pool, schema })
    await store.migrate()
    // 20,000 changes of 2,000 recent commits, below every position the store will hand out.
    await db.pool.query(
      `INSERT INTO ${schema}.pe_changes (seq, pos, collection, id, op, version, value)
        SELECT g / 10 + 1, g % 10, 'vouchers', 'v_' || g, 'put', 1, '{}'::jsonb FROM generate_series(0, 19999) g`,
    )
    await db.pool.query(`ANALYZE ${schema}.pe_changes`)
    // In a transaction of the test's own, whose statistics so far the database reports.
    const client = await db.pool.connect()
    try {
      await client.query('BEGIN')
      const inTx = createPostgresStore({ client, schema })
      expect(await inTx.trimChanges({ olderThanSeconds: 3600, limit: 10 })).toEqual({ deleted: 0, has_more: false })
      const { rows } = await client.query(
        `SELECT seq_scan, coalesce(idx_tup_fetch, 0)::int AS fetched FROM pg_stat_xact_user_tables
          WHERE schemaname = $1 AND relname = 'pe_changes'`,
        [schema],
      )
      expect(rows[0].seq_scan).toBe('0')
      // The ten it looked at and a handful more (the next change, the delete's join): never the 20,000.
      expect(rows[0].fetched).toBeLessThan(25)
      await client.query('ROLLBACK')
    } finally {
      client.release()
    }
  })

  it('refuses bad input with a clear error and deletes nothing', async () => {
    const schema = 'trim_input'
    const store = createPostgresStore({ pool: db.pool, schema })
    await store.migrate()
    const engine = createEngine({ store })
    await engine.vouchers.create(voucher('KEEP'))
    const before = (await store.changes()).data
    for (const [input, path] of [
      [{ older_than_seconds: -1 }, 'older_than_seconds'],
      [{ older_than_seconds: 1.5 }, 'older_than_seconds'],
      [{}, 'older_than_seconds'],
      [{ older_than_seconds: 0, limit: 0 }, 'limit'],
      [{ older_than_seconds: 0, limit: 10_001 }, 'limit'],
    ] as const) {
      await expect(engine.raw.maintenance.trimChangeFeed(input as never)).rejects.toMatchObject({
        code: 400,
        key: 'invalid_payload',
        path,
      })
    }
    expect((await store.changes()).data).toEqual(before)
  })
})
