import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { createPostgresStore } from '../../src/postgres'
import { useClonedPool } from './database'

/*
 * The change feed's retention on PostgreSQL (docs/postgres.md#trimming-the-feed): a trim marks
 * the time and the readers' horizon; changes below the newest mark old enough go, whole commits, read
 * oldest first through the primary key, so a trim reads what it deletes and a bounded few more, never
 * the recent feed.
 */

const db = useClonedPool(4)

const voucher = (code: string) => ({
  code,
  type: 'DISCOUNT_VOUCHER' as const,
  discount: { type: 'AMOUNT' as const, amount_off: 100 },
})

/** A store on its own schema, migrated, and an engine on it. */
async function migrated(schema: string) {
  const store = createPostgresStore({ pool: db.pool, schema })
  await store.migrate()
  return { store, engine: createEngine({ store }) }
}

describe('PostgreSQL store: trimming the change feed', () => {
  it('deletes the commits made long enough ago, whole, and keeps the recent ones', async () => {
    const schema = 'trim_by_age'
    const { store, engine } = await migrated(schema)
    for (let i = 0; i < 5; i++) await engine.vouchers.create(voucher(`OLD${i}`))
    // A trim now deletes nothing (no mark is an hour old) and marks the feed; that mark made two hours ago.
    expect(await engine.maintenance.trimChangeFeed({ older_than_seconds: 3600 })).toEqual({
      changes: 0,
      has_more: false,
    })
    await db.pool.query(`UPDATE ${schema}.pe_feed_marks SET at = at - interval '2 hours'`)
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
    // The vouchers themselves stay; of the marks, the one that cut and those made since.
    expect((await engine.vouchers.get('OLD0')).code).toBe('OLD0')
    const marks = await db.pool.query(
      `SELECT at < now() - interval '1 hour' AS old FROM ${schema}.pe_feed_marks ORDER BY at`,
    )
    expect(marks.rows[0]).toEqual({ old: true })
    expect(marks.rows.slice(1).every((m) => m.old === false)).toBe(true)
    // A loop of trims leaves at most a mark a second: counted against the seconds the loop took.
    const count = async () =>
      (await db.pool.query(`SELECT count(*)::int AS n FROM ${schema}.pe_feed_marks`)).rows[0].n as number
    const before = await count()
    const started = Date.now()
    for (let i = 0; i < 20; i++) await engine.maintenance.trimChangeFeed({ older_than_seconds: 3600 })
    const seconds = Math.ceil((Date.now() - started) / 1000)
    expect(await count()).toBeLessThanOrEqual(before + seconds + 1)
  })

  it('reads the oldest changes through the primary key only: a bounded few of a large recent feed', async () => {
    const schema = 'trim_bounded'
    const store = createPostgresStore({ pool: db.pool, schema })
    await store.migrate()
    // 20,000 changes of 2,000 commits, below every position the store will hand out, and a mark two
    // hours old past the first four of them.
    await db.pool.query(
      `INSERT INTO ${schema}.pe_changes (seq, pos, collection, id, op, version, value)
        SELECT g / 10 + 1, g % 10, 'vouchers', 'v_' || g, 'put', 1, '{}'::jsonb FROM generate_series(0, 19999) g`,
    )
    await db.pool.query(`INSERT INTO ${schema}.pe_feed_marks VALUES (now() - interval '2 hours', 5)`)
    await db.pool.query(`ANALYZE ${schema}.pe_changes`)
    // The connection's own counts of scans and rows not yet reported (pg_stat_xact_user_tables): what
    // its statements since `since` read.
    const client = await db.pool.connect()
    const counts = async () => {
      const { rows } = await client.query(
        `SELECT seq_scan::int AS seq, coalesce(idx_tup_fetch, 0)::int AS fetched FROM pg_stat_xact_user_tables
          WHERE schemaname = $1 AND relname = 'pe_changes'`,
        [schema],
      )
      return { seq: rows[0].seq as number, fetched: rows[0].fetched as number }
    }
    let since = { seq: 0, fetched: 0 }
    const fetched = async () => {
      const now = await counts()
      return { seqScans: now.seq - since.seq, fetched: now.fetched - since.fetched }
    }
    try {
      // As a host's pool plans (docs/postgres.md#plan-caching), and with each execution planned for its values.
      for (const mode of ['force_generic_plan', 'force_custom_plan']) {
        await client.query('BEGIN')
        await client.query(`SET LOCAL plan_cache_mode = ${mode}`)
        const inTx = createPostgresStore({ client, schema })
        since = await counts()
        expect(await inTx.trimChanges({ olderThanSeconds: 3600, limit: 10 })).toEqual({ deleted: 10, has_more: true })
        // The ten it took and a handful more (the next change, the delete's probes): never the 20,000.
        const first = await fetched()
        expect(first.seqScans).toBe(0)
        expect(first.fetched).toBeLessThan(25)
        expect(await inTx.trimChanges({ olderThanSeconds: 3600 })).toEqual({ deleted: 30, has_more: false })
        const second = await fetched()
        expect(second.seqScans).toBe(0)
        expect(second.fetched - first.fetched).toBeLessThan(80)
        const left = await client.query(`SELECT min(seq)::int AS first, count(*)::int AS n FROM ${schema}.pe_changes`)
        expect(left.rows[0]).toEqual({ first: 5, n: 19_960 })
        await client.query('ROLLBACK')
      }
    } finally {
      client.release()
    }
  })

  it('numbers new commits above every position handed out, after the whole feed was trimmed and the database restored', async () => {
    const schema = 'trim_restored'
    const { store, engine } = await migrated(schema)
    await engine.vouchers.create(voucher('A'))
    expect((await engine.maintenance.trimChangeFeed({ older_than_seconds: 0 })).changes).toBeGreaterThan(0)
    expect((await store.changes()).data).toEqual([])
    // A dump restored into a new cluster restarts transaction ids low: here, positions handed out
    // before stand far above the next transaction's id, and only the newest mark remembers them.
    const far = 1e12
    await db.pool.query(`UPDATE ${schema}.pe_feed_marks SET seq = seq + ${far}`)
    const { rows } = await db.pool.query(`SELECT max(seq)::float8 AS top FROM ${schema}.pe_feed_marks`)
    await store.migrate()
    await engine.vouchers.create(voucher('B'))
    const [next] = (await store.changes()).data
    expect(next?.id).toMatch(/^v_/)
    expect(next?.seq).toBeGreaterThan(rows[0].top as number)
  })

  it('refuses bad input with a clear error and deletes nothing', async () => {
    const schema = 'trim_input'
    const { store, engine } = await migrated(schema)
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
