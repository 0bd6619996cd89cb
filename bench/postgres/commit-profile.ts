import { execSync } from 'node:child_process'
import { cpus } from 'node:os'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { FLOOR_SQL } from './floor'

/*
 * `npx tsx bench/postgres/commit-profile.ts [earlier dist]` (not a test; docs/postgres.md#commit):
 * where a one-line redemption's commit spends its time on the server. One embedded PostgreSQL 17
 * with `pg_stat_statements` (nested statements tracked) and `track_functions = 'all'`, fsync off
 * then on; this checkout (`src/`) and, given its `dist/`, an earlier build, each in its own schema,
 * redeem one code from one client in alternating rounds (`PROFILE_ROUNDS` × `PROFILE_N`, default
 * 4 × 100), with the floor call (19 JSONB inserts and a guarded update in one function) between
 * them. Then per commit of each build: each function's total and self time (pg_stat_user_functions)
 * and each statement inside them (pg_stat_statements).
 */

const N = Number(process.env.PROFILE_N ?? 100)
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 4)
const builds = [
  { label: 'this build', dist: '', schema: 'promo_engine' },
  ...(process.argv[2] ? [{ label: 'earlier build', dist: process.argv[2], schema: 'base' }] : []),
]

const body = {
  redeemables: [{ object: 'voucher' as const, id: 'P' }],
  order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
  customer: { source_id: 'profiled' },
}

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
    const engines = []
    for (const build of builds) {
      const engineModule = build.dist ? `${build.dist}/index.js` : '../../src/index.ts'
      const postgresModule = build.dist ? `${build.dist}/postgres.js` : '../../src/postgres/index.ts'
      const { createEngine } = (await import(engineModule)) as typeof import('../../src/index')
      const { createPostgresStore } = (await import(postgresModule)) as typeof import('../../src/postgres/index')
      const store = createPostgresStore({ pool, schema: build.schema })
      await store.migrate()
      const engine = createEngine({ store })
      await engine.raw.vouchers.create({
        code: 'P',
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
        redemption: { quantity: 1_000_000 },
      })
      engines.push({ build, engine, ms: 0 })
    }
    let k = 0
    const floorCall = () =>
      pool.query({
        name: 'fc',
        text: 'SELECT floor.apply($1::jsonb, 0)',
        values: [
          JSON.stringify(
            Array.from({ length: 19 }, (_, i) => ({
              id: `${k++}-${i}`,
              value: { id: `x${i}`, type: 'customer.redemption.succeeded', customer_id: 'cust_1', amount: 100 * i },
            })),
          ),
        ],
      })
    console.log(
      `${new Date().toISOString()}; ${cpus().length} × ${cpus()[0]?.model}; ${ROUNDS} × ${N} redemptions per build, one client, alternating; builds: ${builds.map((b) => `${b.label} = ${b.dist || 'src/'}`).join(', ')}`,
    )
    for (const fsync of ['off', 'on']) {
      await pool.query(`ALTER SYSTEM SET fsync = ${fsync}`)
      await pool.query('SELECT pg_reload_conf()')
      for (const e of engines) for (let i = 0; i < 20; i++) await e.engine.raw.redemptions.redeemStackable(body)
      for (let i = 0; i < 20; i++) await floorCall()
      await new Promise((r) => setTimeout(r, 1000)) // function statistics reach the view after a short delay
      await pool.query('SELECT pg_stat_statements_reset(), pg_stat_reset()')
      let floorMs = 0
      for (const e of engines) e.ms = 0
      const load = execSync('uptime').toString().trim()
      for (let round = 0; round < ROUNDS; round++) {
        for (const e of engines) {
          const t = performance.now()
          for (let i = 0; i < N; i++) await e.engine.raw.redemptions.redeemStackable(body)
          e.ms += performance.now() - t
        }
        const t = performance.now()
        for (let i = 0; i < N; i++) await floorCall()
        floorMs += performance.now() - t
      }
      const total = ROUNDS * N
      await new Promise((r) => setTimeout(r, 1000))
      console.log(`\n### fsync ${fsync} (load before: ${load})\n`)
      console.log(
        `At the client, per request: ${engines.map((e) => `${e.build.label} redeem ${(e.ms / total).toFixed(2)} ms`).join('; ')}; floor call ${(floorMs / total).toFixed(2)} ms\n`,
      )
      const fns = await pool.query(
        `SELECT schemaname AS s, funcname AS f, calls, total_time, self_time FROM pg_stat_user_functions
         WHERE calls > 0 ORDER BY schemaname, total_time DESC`,
      )
      console.log('| schema | function | calls per commit | total ms per commit | self ms per commit |')
      console.log('| --- | --- | ---: | ---: | ---: |')
      for (const r of fns.rows)
        console.log(
          `| ${r.s} | ${r.f} | ${(r.calls / total).toFixed(1)} | ${(r.total_time / total).toFixed(3)} | ${(r.self_time / total).toFixed(3)} |`,
        )
      const st = await pool.query(
        `SELECT toplevel, calls, total_exec_time, left(regexp_replace(query, '\\s+', ' ', 'g'), 150) AS q FROM pg_stat_statements
         WHERE query NOT LIKE '%pg_stat%' AND total_exec_time > $1 ORDER BY total_exec_time DESC LIMIT 40`,
        [total * 0.005],
      )
      console.log('\n| top | calls per commit | ms per commit | statement |')
      console.log('| --- | ---: | ---: | --- |')
      for (const r of st.rows)
        console.log(
          `| ${r.toplevel ? 'y' : ''} | ${(r.calls / total).toFixed(2)} | ${(r.total_exec_time / total).toFixed(3)} | \`${r.q.replace(/\|/g, '\\|')}\` |`,
        )
    }
  } finally {
    await pool.end()
    await server.stop()
  }
}

await main()
