import { execSync, fork } from 'node:child_process'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { FLOOR_SQL } from './floor'

/*
 * `npx tsx bench/postgres/feed-before-after.ts <earlier build's dist>` (not a test;
 * docs/postgres.md#change-feed-and-late-commits): redemptions per second from 1 and 4 processes, on
 * distinct codes and on one hot code, of this checkout's build (`dist/`, run `npm run build` first)
 * and an earlier one (its own schema), alternated row by row for `ROUNDS` rounds (the earlier build
 * first in odd rounds, second in even ones) so that a machine whose load drifts weighs on both alike,
 * and the same for commits alone, without the engine (bench/postgres/feed-commit-worker.ts);
 * the floor call (one function applying 19 JSONB inserts and a guarded update) in the same run, and
 * how many backends wait for a lock on average while each row runs; fsync
 * off, then on, on one embedded PostgreSQL. Uses bench/postgres/near-floor-worker.ts.
 */

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Number(process.env.ROUNDS ?? 2)
const WORKER = fileURLToPath(new URL('./near-floor-worker.ts', import.meta.url))
const COMMIT_WORKER = fileURLToPath(new URL('./feed-commit-worker.ts', import.meta.url))
const HERE = fileURLToPath(new URL('../../dist', import.meta.url))
const earlier = process.argv[2]
if (!earlier) throw new Error('usage: feed-before-after.ts <earlier build dist>')
const builds = [
  { label: 'before', dist: earlier, schema: 'base' },
  { label: 'after', dist: HERE, schema: 'promo_engine' },
]

interface Tally {
  ops: number
  failed: number
  ms: number
  p50: number
}

function worker(url: string, env: Record<string, string>): Promise<Tally> {
  return new Promise((resolve, reject) => {
    const child = fork(env.KIND === 'commit' ? COMMIT_WORKER : WORKER, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, PG_URL: url, BENCH_SECONDS: String(SECONDS), ...env },
    })
    child.once('message', (m) => resolve(m as Tally))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`worker exited ${code}`))))
  })
}

let admin: pg.Pool

async function race(url: string, n: number, env: (i: number) => Record<string, string>) {
  // Backends waiting for a lock, sampled while the workers run: commits queueing on a row every commit
  // takes show here whatever the machine's load does to the rates.
  const samples: number[] = []
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await admin.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
      )
      samples.push(rows[0]?.n ?? 0)
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  const tallies = await Promise.all(
    Array.from({ length: n }, (_, i) => worker(url, { SLOT: String(i), ...env(i) })),
  ).finally(() => {
    sampling = false
  })
  await sampler
  const seconds = Math.max(...tallies.map((t) => t.ms)) / 1000
  return {
    waiting: samples.reduce((s, x) => s + x, 0) / Math.max(1, samples.length),
    perSecond: tallies.reduce((s, t) => s + t.ops, 0) / seconds,
    failed: tallies.reduce((s, t) => s + t.failed, 0),
    p50: tallies[0]?.p50 ?? 0,
  }
}

const voucher = (code: string) => ({
  code,
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
})

async function main(): Promise<void> {
  const server = await startEmbedded({})
  const url = server.url
  admin = new pg.Pool({ connectionString: url, max: 3 }).on('error', () => {})
  try {
    await admin.query(FLOOR_SQL)
    for (const build of builds) {
      const { createEngine } = (await import(`${build.dist}/index.js`)) as typeof import('../../src/index')
      const { createPostgresStore } = (await import(
        `${build.dist}/postgres.js`
      )) as typeof import('../../src/postgres/index')
      const store = createPostgresStore({ pool: admin, schema: build.schema })
      await store.migrate()
      const engine = createEngine({ store })
      for (let i = 0; i < 4; i++) await engine.raw.vouchers.create(voucher(`D${i}`))
      await engine.raw.vouchers.create(voucher('HOT'))
    }
    const uptime = () => execSync('uptime').toString().trim()
    console.log(
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; ${new Date().toISOString()}; Node ${process.version}; ${SECONDS} s per row, ${ROUNDS} rounds`,
    )
    console.log(`builds: ${builds.map((b) => `${b.label} = ${b.dist}`).join('; ')}\n`)
    for (const fsync of ['off', 'on']) {
      await admin.query(`ALTER SYSTEM SET fsync = ${fsync}`)
      await admin.query('SELECT pg_reload_conf()')
      await new Promise((r) => setTimeout(r, 300))
      const shown = (await admin.query('SHOW fsync')).rows[0].fsync
      console.log(`### fsync ${shown} (load before: ${uptime()})\n`)
      console.log('| round | what | from | per second | p50 ms | waiting for a lock | failed |')
      console.log('| ---: | --- | --- | ---: | ---: | ---: | ---: |')
      const line = (round: string, what: string, from: string, r: Awaited<ReturnType<typeof race>>) =>
        console.log(
          `| ${round} | ${what} | ${from} | ${r.perSecond.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.waiting.toFixed(2)} | ${r.failed} |`,
        )
      for (const n of [1, 4]) {
        line(
          '—',
          'floor: function call, 19 JSONB inserts + guarded update',
          `${n} conn`,
          await race(url, n, () => ({ KIND: 'floor-call' })),
        )
      }
      const cases = [
        { what: 'redeem', n: 1, env: () => ({ KIND: 'redeem', CODE: 'D0' }) },
        { what: 'redeem, distinct codes', n: 4, env: (i: number) => ({ KIND: 'redeem', CODE: `D${i}` }) },
        { what: 'redeem, one hot code', n: 4, env: () => ({ KIND: 'redeem', CODE: 'HOT' }) },
        { what: 'commit alone (6 inserts, 9 increments)', n: 1, env: () => ({ KIND: 'commit', ROWS: 'own' }) },
        { what: 'commit alone, distinct counter rows', n: 4, env: () => ({ KIND: 'commit', ROWS: 'own' }) },
        { what: 'commit alone, shared counter rows', n: 4, env: () => ({ KIND: 'commit', ROWS: 'hot' }) },
      ]
      for (let round = 1; round <= ROUNDS; round++) {
        for (const c of cases) {
          const order = round % 2 === 1 ? builds : [...builds].reverse()
          for (const build of order) {
            const env = { BUILD: build.dist, SCHEMA: build.schema }
            line(
              String(round),
              `${build.label}: ${c.what}`,
              `${c.n} ${c.n === 1 ? 'client' : 'procs'}`,
              await race(url, c.n, (i) => ({ ...env, ...c.env(i) })),
            )
          }
        }
      }
      console.log(`\n(load after: ${uptime()})\n`)
    }
  } finally {
    await admin.end()
    await server.stop()
  }
}

await main()
