import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { createPostgresStore, planGenerically } from '../../src/postgres'
import { loyaltyChains, seedChainShop, seedOneLineShop, seedPublicationShop } from '../support/chain-shop'
import { manualClock } from '../support/engine'
import { emptySchema, useClonedPool } from './database'

/*
 * docs/postgres.md#plan-caching: the store's connections run with `plan_cache_mode =
 * force_generic_plan` (`planGenerically`), so each statement is planned once per connection without its
 * parameters' values. Generic plans must still read by indexes only: on tables holding rows enough
 * that a sequential scan is a choice for the planner (2,000 per table, analysed), the statements of
 * a chain of operations (one-line validations and redemptions of a known and of new customers, four
 * redeemables, a member paying with points and earning, a paid order, a reward redemption,
 * publications) move no table's count of sequential scans, the commit function's own statements
 * included; and each read statement the store sent, explained as a generic plan, shows no
 * sequential scan.
 */

const db = useClonedPool(2)
const FILL = 2000

/**
 * Filler rows in every collection's table, every derived column set (the trigger computes none);
 * not in `earning_rules`, which a project keeps under a limit the engine checks.
 */
async function fill(admin: pg.Pool): Promise<string[]> {
  const tables = (
    await admin.query<{ t: string }>(
      `SELECT table_name AS t FROM information_schema.tables
        WHERE table_schema = 'promo_engine' AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'pe\\_%'
          AND table_name <> 'earning_rules'`,
    )
  ).rows.map((r) => r.t)
  for (const t of tables) {
    const columns = (
      await admin.query<{ c: string; type: string }>(
        `SELECT column_name AS c, data_type AS type FROM information_schema.columns
          WHERE table_schema = 'promo_engine' AND table_name = $1 AND (column_name LIKE 'k\\_%' OR column_name LIKE 'f\\_%')`,
        [t],
      )
    ).rows
    // Natural keys unique per row; declared fields in 97 groups (a list's equality matches ~20 rows).
    const value = ({ c, type }: { c: string; type: string }) =>
      c.startsWith('k_')
        ? `'zz' || g`
        : type === 'numeric'
          ? 'g % 97'
          : type === 'boolean'
            ? 'g % 2 = 0'
            : type.startsWith('timestamp')
              ? `timestamptz '2020-01-01' + g * interval '1 minute'`
              : type === 'jsonb'
                ? `jsonb_build_array('zz' || g % 97)`
                : `'zz' || g % 97`
    await admin.query(
      `INSERT INTO promo_engine."${t}" (id, value, version, shape${columns.map((x) => `, "${x.c}"`).join('')})
       SELECT 'zz' || g, '{}'::jsonb, 1, 1${columns.map((x) => `, ${value(x)}`).join('')} FROM generate_series(1, ${FILL}) g`,
    )
  }
  await admin.query('ANALYZE')
  return tables
}

async function scans(admin: pg.Pool): Promise<Map<string, { seq: number; idx: number }>> {
  await admin.query('SELECT pg_stat_clear_snapshot()')
  const rows = await admin.query<{ t: string; seq: string; idx: string | null }>(
    `SELECT relname AS t, seq_scan AS seq, idx_scan AS idx FROM pg_stat_user_tables WHERE schemaname = 'promo_engine'`,
  )
  return new Map(rows.rows.map((r) => [r.t, { seq: Number(r.seq), idx: Number(r.idx ?? 0) }]))
}

describe.sequential('plan caching on PostgreSQL', () => {
  it("sets the plan mode in the pool's connect hook, after the host's own hook, before the first query", async () => {
    const pool = new pg.Pool({
      connectionString: db.url,
      max: 1,
      onConnect: async (client) => {
        await client.query(`SET application_name = 'host-hook'`)
      },
    }).on('error', () => {})
    planGenerically(pool)
    try {
      const first = await pool.query(
        `SELECT current_setting('application_name') AS app, current_setting('plan_cache_mode') AS mode`,
      )
      expect(first.rows[0]).toEqual({ app: 'host-hook', mode: 'force_generic_plan' })
    } finally {
      await pool.end()
    }
  })

  it('under generic plans, a chain of operations reads and writes by indexes only: no sequential scan, nested statements included', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const tables = await fill(db.pool)
    const pool = new pg.Pool({
      connectionString: db.url,
      max: 2,
      application_name: 'plan-cache',
    }).on('error', () => {})
    planGenerically(pool)
    const sent: string[] = []
    const recording = {
      query: (q: { text: string } | string, v?: unknown[]) => {
        sent.push(typeof q === 'string' ? q : q.text)
        return pool.query(q as never, v as never)
      },
      connect: () => pool.connect(),
      end: async () => undefined,
    }
    try {
      expect((await pool.query('SHOW plan_cache_mode')).rows[0].plan_cache_mode).toBe('force_generic_plan')
      const engine = createEngine({
        store: createPostgresStore({ pool: recording as never }),
        clock: manualClock(),
        random: seededRandom(7),
      })
      const oneLine = await seedOneLineShop(engine)
      const four = await seedChainShop(engine)
      await seedPublicationShop(engine)
      // Each statement the chain sends is planned (generically) at its first use on the connection.
      const before = await scans(db.pool)
      for (let i = 0; i < 3; i++) {
        expect((await engine.raw.validations.validateStackable(oneLine)).valid).toBe(true)
        expect((await engine.raw.redemptions.redeemStackable(oneLine)).parent_redemption.result).toBe('SUCCESS')
        const someone = { source_id: `new-${i}` }
        expect((await engine.raw.validations.validateStackable({ ...oneLine, customer: someone })).valid).toBe(true)
        const redeemed = await engine.raw.redemptions.redeemStackable({ ...oneLine, customer: someone })
        expect(redeemed.parent_redemption.result).toBe('SUCCESS')
        expect((await engine.raw.validations.validateStackable(four)).valid).toBe(true)
        const publication = await engine.publications.create({
          campaign: { name: 'Welcome' },
          customer: { source_id: i === 0 ? 'known' : `reader-${i}` },
        })
        expect(publication.vouchers_id).toHaveLength(1)
      }
      const counted = { reset() {}, depth: 0 }
      await loyaltyChains(engine, counted)
      await pool.end()
      // A backend's counts reach the statistics when it exits.
      for (let i = 0; i < 100; i++) {
        const open = await db.pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'plan-cache'`,
        )
        if (open.rows[0].n === 0) break
        await new Promise((r) => setTimeout(r, 50))
      }
      const after = await scans(db.pool)
      const seq = tables.filter((t) => (after.get(t)?.seq ?? 0) > (before.get(t)?.seq ?? 0))
      expect(seq).toEqual([])
      const indexed = tables.filter((t) => (after.get(t)?.idx ?? 0) > (before.get(t)?.idx ?? 0))
      expect(indexed).toEqual(expect.arrayContaining(['vouchers', 'customers', 'counters', 'redemptions']))
    } finally {
      await pool.end().catch(() => {})
    }
    // The read statements themselves, explained as generic plans: every filled table read by an
    // index, never a sequential scan (earning rules, a table the engine keeps small and not filled
    // here, may be: on a few rows that is the planner's cheaper choice). Left out: the one statement
    // asking a total, the loyalty setup's count of a project's earning rules against their limit.
    const reads = [
      ...new Set(sent.filter((t) => t.startsWith('SELECT') && !t.includes('pe_commit(') && !t.includes('count(*)'))),
    ]
    expect(reads.length).toBeGreaterThan(10)
    for (const text of reads) {
      const [plan] = (await db.pool.query(`EXPLAIN (GENERIC_PLAN, FORMAT JSON) ${text}`)).rows[0]['QUERY PLAN']
      const scanned: string[] = []
      const walk = (node: { 'Node Type': string; 'Relation Name'?: string; Plans?: unknown[] }) => {
        if (node['Node Type'] === 'Seq Scan') scanned.push(node['Relation Name'] ?? '')
        for (const child of node.Plans ?? []) walk(child as typeof node)
      }
      walk(plan.Plan)
      expect(
        scanned.filter((t) => tables.includes(t)),
        text,
      ).toEqual([])
      expect(JSON.stringify(plan), text).toContain('Index')
    }
  })
})
