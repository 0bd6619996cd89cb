import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { createPostgresStore } from '../../src/postgres'
import { OWN_STEPS } from '../../src/postgres/changeset'
import { warmPayloads } from '../../src/postgres/warm-connections'
import { useClonedPool } from './database'

/*
 * `store.warm()` (docs/postgres.md#tuning): the pool's connections opened at once, each prepared for
 * its first commit, nothing written.
 */

const db = useClonedPool(2)

/** Rows of every table the feed names, and the feed's own. */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = await db.pool.query<{ c: string }>('SELECT DISTINCT collection AS c FROM promo_engine.pe_changes')
  const out: Record<string, number> = {}
  for (const { c } of [...tables.rows, { c: 'pe_changes' }])
    out[c] = Number((await db.pool.query(`SELECT count(*) AS n FROM promo_engine."${c}"`)).rows[0].n)
  return out
}

describe('warm', () => {
  it('opens every connection of the pool, prepares each for a commit, and writes nothing', async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 3 }).on('error', () => {})
    try {
      const store = createPostgresStore({ pool })
      const engine = createEngine({ store })
      await engine.raw.vouchers.create({
        code: 'WARM-1',
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      })
      const before = await rowCounts()
      const queries = store.stats.queries

      expect(await store.warm()).toEqual({ connections: 3, failed: [] })

      expect(pool.totalCount).toBe(3)
      expect(pool.idleCount).toBe(3)
      // Per connection: BEGIN, one commit call per payload, ROLLBACK.
      expect(store.stats.queries - queries).toBe(3 * (2 + warmPayloads().length))
      expect(await rowCounts()).toEqual(before)
      // Each connection holds the commit's statement, prepared by name.
      const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()])
      try {
        for (const client of clients) {
          const prepared = await client.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')
          expect(prepared.rows.some((r) => r.statement.includes('pe_commit('))).toBe(true)
        }
      } finally {
        for (const client of clients) client.release()
      }
      // The warmed connections commit as any other.
      const redeemed = await engine.raw.redemptions.redeemStackable({
        redeemables: [{ object: 'voucher', id: 'WARM-1' }],
        order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
        customer: { source_id: 'warm-customer' },
      })
      expect(redeemed.parent_redemption.result).toBe('SUCCESS')
      expect(pool.totalCount).toBe(3)
    } finally {
      await pool.end()
    }
  })

  it('runs every step pe_commit applies itself: the inserts and upserts in one call, each guarded increment in its own', async () => {
    const payloads = warmPayloads().map((p) => JSON.parse(p) as { steps: { k: string; rows: unknown[] }[] })
    expect(payloads.flatMap((p) => p.steps.map((s) => s.k)).sort()).toEqual([...OWN_STEPS].sort())
    const client = await db.pool.connect()
    try {
      await client.query('BEGIN')
      const answers: { ok: boolean; conflict?: { reason: string } }[] = []
      for (const payload of warmPayloads())
        answers.push((await client.query('SELECT promo_engine.pe_commit($1::jsonb) AS r', [payload])).rows[0].r)
      await client.query('ROLLBACK')
      // The first reached its end; each other reached its step's statement, which found no row.
      expect(answers[0]?.ok).toBe(true)
      expect(answers.slice(1).map((a) => a.conflict?.reason)).toEqual(payloads.slice(1).map(() => 'missing'))
      expect(answers.length).toBe(1 + OWN_STEPS.filter((k) => k.startsWith('g ')).length)
    } finally {
      client.release()
    }
  })

  it('opens no more than the pool holds, and reports what it could not open', async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 2 }).on('error', () => {})
    try {
      expect(await createPostgresStore({ pool }).warm({ connections: 5 })).toEqual({ connections: 2, failed: [] })
      expect(pool.totalCount).toBe(2)
    } finally {
      await pool.end()
    }
    const refused = new pg.Pool({
      connectionString: 'postgres://postgres:postgres@127.0.0.1:1/postgres',
      max: 2,
      connectionTimeoutMillis: 2000,
    }).on('error', () => {})
    try {
      const result = await createPostgresStore({ pool: refused }).warm()
      expect(result.connections).toBe(0)
      expect(result.failed).toHaveLength(2)
    } finally {
      await refused.end()
    }
  })

  it('warms a pool in pipeline mode and one asking for binary results as any other', async () => {
    for (const options of [{ pipeline: true }, { binary: true }]) {
      const pool = new pg.Pool({ connectionString: db.url, max: 2, ...options }).on('error', () => {})
      try {
        expect(await createPostgresStore({ pool: pool as never }).warm()).toEqual({ connections: 2, failed: [] })
        expect(pool.idleCount).toBe(2)
      } finally {
        await pool.end()
      }
    }
  })

  it("has nothing to open in a host's transaction", async () => {
    const client = await db.pool.connect()
    try {
      expect(await createPostgresStore({ client }).warm()).toEqual({ connections: 0, failed: [] })
    } finally {
      client.release()
    }
  })
})
