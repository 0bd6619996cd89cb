import { execSync } from 'node:child_process'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'

/*
 * `npx tsx bench/postgres/commit-profile.ts [dist]` (not a test; docs/postgres.md#commit): where a
 * one-line redemption's commit spends its time on the server. One embedded PostgreSQL 17 with
 * `pg_stat_statements` (nested statements tracked) and `track_functions = 'all'`, fsync off then on;
 * one client redeems one code `PROFILE_N` times (default 400) after a warm-up, then the server's
 * own figures per commit: each function's total and self time (pg_stat_user_functions) and each
 * statement inside them (pg_stat_statements), beside the floor call (19 JSONB inserts and a guarded
 * update in one function) run as many times on the same server.
 */

const N = Number(process.env.PROFILE_N ?? 400)
const DIST = process.argv[2]

const FLOOR_SQL = `
CREATE SCHEMA IF NOT EXISTS floor;
CREATE TABLE IF NOT EXISTS floor.counter (id integer PRIMARY KEY, n bigint NOT NULL, cap bigint NOT NULL);
CREATE TABLE IF NOT EXISTS floor.rows (id text PRIMARY KEY, value jsonb NOT NULL, version integer NOT NULL);
INSERT INTO floor.counter SELECT g, 0, 1000000000000 FROM generate_series(0, 7) g ON CONFLICT DO NOTHING;
CREATE OR REPLACE FUNCTION floor.apply(p jsonb, which integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO floor.rows (id, value, version) SELECT x ->> 'id', x -> 'value', 1 FROM jsonb_array_elements(p) x;
  UPDATE floor.counter SET n = n + 1 WHERE id = which AND n + 1 <= cap;
  RETURN FOUND;
END $$;`

async function main(): Promise<void> {
  const server = await startEmbedded({
    shared_preload_libraries: 'pg_stat_statements',
    'pg_stat_statements.track': 'all',
    track_functions: 'all',
  })
  const pool = new pg.Pool({ connectionString: server.url, max: 2 }).on('error', () => {})
  try {
    await pool.query(FLOOR_SQL)
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
    const engineModule = DIST ? `${DIST}/index.js` : '../../src/index.ts'
    const postgresModule = DIST ? `${DIST}/postgres.js` : '../../src/postgres/index.ts'
    const { createEngine } = (await import(engineModule)) as typeof import('../../src/index')
    const { createPostgresStore } = (await import(postgresModule)) as typeof import('../../src/postgres/index')
    const store = createPostgresStore({ pool })
    await store.migrate()
    const engine = createEngine({ store })
    await engine.raw.vouchers.create({
      code: 'P',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
    })
    const body = {
      redeemables: [{ object: 'voucher' as const, id: 'P' }],
      order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
      customer: { source_id: 'profiled' },
    }
    const rows = (k: number) =>
      JSON.stringify(
        Array.from({ length: 19 }, (_, i) => ({
          id: `${k}-${i}-${Math.random()}`,
          value: { id: `x${i}`, type: 'customer.redemption.succeeded', customer_id: 'cust_1', amount: 100 * i },
        })),
      )
    console.log(`${new Date().toISOString()}; ${N} redemptions, one client; ${execSync('uptime').toString().trim()}`)
    for (const fsync of ['off', 'on']) {
      await pool.query(`ALTER SYSTEM SET fsync = ${fsync}`)
      await pool.query('SELECT pg_reload_conf()')
      await new Promise((r) => setTimeout(r, 300))
      for (let i = 0; i < 20; i++) await engine.raw.redemptions.redeemStackable(body)
      for (let i = 0; i < 20; i++) await pool.query({ name: 'fc', text: 'SELECT floor.apply($1::jsonb, 0)', values: [rows(i)] })
      await pool.query('SELECT pg_stat_statements_reset(), pg_stat_reset()')
      const t0 = performance.now()
      for (let i = 0; i < N; i++) await engine.raw.redemptions.redeemStackable(body)
      const redeemMs = (performance.now() - t0) / N
      const t1 = performance.now()
      for (let i = 0; i < N; i++) await pool.query({ name: 'fc', text: 'SELECT floor.apply($1::jsonb, 0)', values: [rows(i)] })
      const floorMs = (performance.now() - t1) / N
      await new Promise((r) => setTimeout(r, 700)) // function statistics reach the view after a short delay
      console.log(`\n### fsync ${fsync}: redeem ${redeemMs.toFixed(2)} ms per request at the client, floor call ${floorMs.toFixed(2)} ms\n`)
      const fns = await pool.query(
        `SELECT schemaname || '.' || funcname AS f, calls, total_time, self_time FROM pg_stat_user_functions
         WHERE schemaname IN ('promo_engine', 'floor') AND calls > 0 ORDER BY total_time DESC`,
      )
      console.log('| function | calls per commit | total ms per commit | self ms per commit |')
      console.log('| --- | ---: | ---: | ---: |')
      for (const r of fns.rows) {
        const per = r.f.startsWith('floor.') ? N : N
        console.log(
          `| ${r.f} | ${(r.calls / per).toFixed(1)} | ${(r.total_time / per).toFixed(3)} | ${(r.self_time / per).toFixed(3)} |`,
        )
      }
      const st = await pool.query(
        `SELECT toplevel, calls, total_exec_time, left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS q FROM pg_stat_statements
         WHERE query NOT LIKE '%pg_stat%' ORDER BY total_exec_time DESC LIMIT 30`,
      )
      console.log('\n| top | calls per commit | ms per commit | statement |')
      console.log('| --- | ---: | ---: | --- |')
      for (const r of st.rows)
        console.log(
          `| ${r.toplevel ? 'y' : ''} | ${(r.calls / N).toFixed(2)} | ${(r.total_exec_time / N).toFixed(3)} | \`${r.q.replace(/\|/g, '\\|')}\` |`,
        )
    }
  } finally {
    await pool.end()
    await server.stop()
  }
}

await main()
