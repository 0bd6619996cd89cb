import pg from 'pg'
import { floorRows } from './floor'

/*
 * One load-generating process of bench/postgres/near-floor.ts: runs `KIND` for `BENCH_SECONDS`, one
 * request at a time, and reports over IPC how many it made and their latencies (p50, p99). It tells
 * the parent when it is ready (`{ ready: true }`: its build loaded, its statements prepared) and
 * starts its window when told `go`, so the processes of a row measure together, none while another
 * is still loading its build.
 * KIND: `floor-update` (a guarded single-row UPDATE), `floor-call` (one function call applying 19
 * JSONB inserts and a guarded update), `validate`, `redeem` (the engine, one-line order, built from
 * `BUILD`: `src` is this checkout, a path is another checkout's `dist/`).
 */

const url = process.env.PG_URL as string
const kind = process.env.KIND as string
const slot = process.env.SLOT ?? '0'
const code = process.env.CODE ?? 'D0'
const seconds = Number(process.env.BENCH_SECONDS ?? 3)

let pool = new pg.Pool({ connectionString: url, max: 2 }).on('error', () => {})

type Op = () => Promise<boolean>

async function operation(): Promise<{ op: Op; stats: () => { queries: number; commits: number } }> {
  const none = () => ({ queries: 0, commits: 0 })
  if (kind === 'floor-update') {
    const id = Number(slot)
    return {
      op: async () =>
        (
          await pool.query({
            name: 'fu',
            text: 'UPDATE floor.counter SET n = n + 1 WHERE id = $1 AND n + 1 <= cap',
            values: [id],
          })
        ).rowCount === 1,
      stats: none,
    }
  }
  if (kind === 'floor-call') {
    const id = Number(slot)
    let k = 0
    const rows = () => floorRows(`${slot}-${process.pid}-${k}`, code)
    return {
      op: async () => {
        k++
        const r = await pool.query({
          name: 'fc',
          text: 'SELECT floor.apply($1::jsonb, $2) AS ok',
          values: [rows(), id],
        })
        return r.rows[0].ok === true
      },
      stats: none,
    }
  }
  const build = process.env.BUILD ?? 'src'
  const engineModule = build === 'src' ? '../../src/index.ts' : `${build}/index.js`
  const postgresModule = build === 'src' ? '../../src/postgres/index.ts' : `${build}/postgres.js`
  const { createEngine } = (await import(engineModule)) as typeof import('../../src/index')
  const postgres = (await import(postgresModule)) as typeof import('../../src/postgres/index')
  const { createPostgresStore } = postgres
  // The session setting the build asks of its connections (docs/postgres.md#plan-caching), as a host
  // following its docs sets it; builds before `planGenerically` have none.
  const plan = (postgres as { planGenerically?: (p: pg.Pool) => void }).planGenerically
  if (plan !== undefined) {
    await pool.end()
    pool = new pg.Pool({ connectionString: url, max: 2 }).on('error', () => {})
    plan(pool)
  }
  const store = createPostgresStore({
    pool,
    schema: process.env.SCHEMA ?? 'promo_engine',
    // ASYNC=1: validations' activity-only commits without waiting for their WAL flush (docs/postgres.md#asynchronous-activity-commits).
    ...(process.env.ASYNC === '1' ? { asyncActivities: true } : {}),
  })
  const engine = createEngine({ store })
  const body = {
    redeemables: [{ object: 'voucher' as const, id: code }],
    order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
    customer: { source_id: `bench-${slot}` },
  }
  const op: Op =
    kind === 'validate'
      ? async () => (await engine.raw.validations.validateStackable(body)).valid
      : async () => (await engine.raw.redemptions.redeemStackable(body)).parent_redemption.result === 'SUCCESS'
  // The customer exists (a validation records its activity, its one commit, only for a customer that
  // does; it creates none), and one warm-up request prepares the statements. WARM (1) warm-up requests
  // in all: the window of a process that made one runs while the JIT is still compiling the engine
  // (bench/RESULTS.md, "Helper run `nodecpu`").
  if (kind === 'validate') await engine.raw.customers.create({ source_id: body.customer.source_id })
  const warm = Math.max(1, Number(process.env.WARM ?? 1))
  for (let i = 0; i < warm; i++) await op()
  const q0 = store.stats.queries
  const c0 = store.stats.commits
  return { op, stats: () => ({ queries: store.stats.queries - q0, commits: store.stats.commits - c0 }) }
}

const { op, stats } = await operation()
await new Promise<void>((go) => {
  process.once('message', () => go())
  process.send?.({ ready: true })
})
const latencies: number[] = []
let ok = 0
let failed = 0
const start = performance.now()
const until = start + seconds * 1000
while (performance.now() < until) {
  const t = performance.now()
  try {
    if (await op()) ok++
    else failed++
  } catch (error) {
    failed++
    if (failed === 1) console.error(kind, error)
  }
  latencies.push(performance.now() - t)
}
const ms = performance.now() - start
latencies.sort((a, b) => a - b)
const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0
process.send?.({ ops: latencies.length, ok, failed, ms, p50: at(0.5), p99: at(0.99), ...stats() }, () => {
  void pool.end().then(() => process.exit(0))
})
