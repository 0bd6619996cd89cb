import { execSync, fork } from 'node:child_process'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { FLOOR_SQL } from './floor'

/*
 * `npx tsx bench/postgres/near-floor.ts [baseDist]` (not a test; docs/postgres.md#commit): on one
 * embedded PostgreSQL 17, with fsync off and then on (the same server, reloaded), the floor (what the
 * database itself commits: a guarded single-row UPDATE; one function call applying 19 JSONB inserts
 * and a guarded update) and the engine (a one-line validation and redemption from one client: p50;
 * redemptions/s from 1, 2 and 4 processes on distinct codes and on one hot code; validations/s),
 * this checkout's build (`dist/`, run `npm run build` first) and, given its `dist/` path, an earlier
 * build beside it in its own schema. Each process makes one request at a time on its own connection
 * pool. Ends with the server's statements by total time (pg_stat_statements, nested statements too)
 * for every row: where the time goes. The builds alternate row by row. A row's processes start their
 * windows together once all have loaded their build (STAGGERED=1: each as soon as it is ready, as
 * before); WARM=n: n warm-up requests per process before its window (1). REPEAT=n runs every row n
 * times (the floor's rows too, each pass in the same order) and ends each fsync setting with the
 * medians: each build's rate, this build ÷ the earlier build and ÷ the floor call from 4 connections
 * (the issue's "3× the earlier build" and "10 % of the floor"); ROWS='a;b' keeps the rows whose name and "from"
 * holds one of them (`ROWS='4 procs'`: the 4-process rows and the floor call's from 4 connections).
 */

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const REPEAT = Math.max(1, Number(process.env.REPEAT ?? 1))
const ROWS = process.env.ROWS?.split(';').map((x) => x.trim())
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2
}
const WORKER = fileURLToPath(new URL('./near-floor-worker.ts', import.meta.url))
const HERE = fileURLToPath(new URL('../../dist', import.meta.url))
const builds: { label: string; dist: string; schema: string }[] = [
  { label: 'this build', dist: HERE, schema: 'promo_engine' },
  ...(process.argv[2] ? [{ label: 'earlier build', dist: process.argv[2], schema: 'base' }] : []),
]

interface Tally {
  ops: number
  ok: number
  failed: number
  ms: number
  p50: number
  p99: number
  queries: number
  commits: number
}

/** A worker process: `ready` when it has loaded and warmed up, `tally` after its window (started by `go`). */
function worker(url: string, env: Record<string, string>) {
  const child = fork(WORKER, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, PG_URL: url, BENCH_SECONDS: String(SECONDS), ...env },
  })
  let ready: () => void = () => {}
  const readyAt = new Promise<void>((r) => {
    ready = r
  })
  const tally = new Promise<Tally>((resolve, reject) => {
    child.on('message', (m) => ((m as { ready?: true }).ready ? ready() : resolve(m as Tally)))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`worker exited ${code}`))))
  })
  return { ready: readyAt, tally, go: () => child.send('go') }
}

/**
 * A row: `n` processes, each timing its own window of SECONDS; the windows start together once every
 * process has loaded its build (one still loading would take a core from the others' windows).
 */
async function race(url: string, n: number, env: (i: number) => Record<string, string>) {
  const workers = Array.from({ length: n }, (_, i) => worker(url, { SLOT: String(i), ...env(i) }))
  // STAGGERED=1: each window starts as soon as its process is ready (as before 2026-11-27), to compare.
  if (process.env.STAGGERED === '1') for (const w of workers) void w.ready.then(w.go)
  await Promise.all(workers.map((w) => Promise.race([w.ready, w.tally])))
  if (process.env.STAGGERED !== '1') for (const w of workers) w.go()
  const tallies = await Promise.all(workers.map((w) => w.tally))
  const seconds = Math.max(...tallies.map((t) => t.ms)) / 1000
  const sum = (k: keyof Tally) => tallies.reduce((s, t) => s + t[k], 0)
  return {
    perSecond: sum('ops') / seconds,
    ok: sum('ok'),
    failed: sum('failed'),
    p50: tallies[0]?.p50 ?? 0,
    queries: sum('queries') / Math.max(1, sum('ops')),
  }
}

const voucher = (code: string) => ({
  code,
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
})

async function main(): Promise<void> {
  const server = await startEmbedded({
    shared_preload_libraries: 'pg_stat_statements',
    'pg_stat_statements.track': 'all',
  })
  const url = server.url
  const admin = new pg.Pool({ connectionString: url, max: 2 }).on('error', () => {})
  try {
    await admin.query(FLOOR_SQL)
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
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
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; ${new Date().toISOString()}; Node ${process.version}; ${SECONDS} s per row`,
    )
    console.log(`builds: ${builds.map((b) => `${b.label} = ${b.dist}`).join('; ')}\n`)
    for (const fsync of ['off', 'on']) {
      await admin.query(`ALTER SYSTEM SET fsync = ${fsync}`)
      await admin.query('SELECT pg_reload_conf()')
      await new Promise((r) => setTimeout(r, 300))
      const shown = (await admin.query('SHOW fsync')).rows[0].fsync
      console.log(`### fsync ${shown} (load before: ${uptime()})\n`)
      console.log('| what | from | per second | p50 ms | queries/op | failed |')
      console.log('| --- | --- | ---: | ---: | ---: | ---: |')
      // Every pass's rate of a row, by `what | from`, for the medians at the end.
      const rates = new Map<string, number[]>()
      const line = (what: string, from: string, r: Awaited<ReturnType<typeof race>>) => {
        rates.set(`${what} | ${from}`, [...(rates.get(`${what} | ${from}`) ?? []), r.perSecond])
        console.log(
          `| ${what} | ${from} | ${r.perSecond.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.queries ? r.queries.toFixed(1) : '—'} | ${r.failed} |`,
        )
      }
      const FLOOR_CALL = 'floor: function call: 19 JSONB inserts + guarded update'
      const kept = (what: string, from: string) => ROWS === undefined || ROWS.some((x) => `${what} ${from}`.includes(x))
      if (fsync === 'on') await admin.query('SELECT pg_stat_statements_reset()')
      // The builds alternate row by row, so a change of the machine's load falls on both alike.
      type Row = [string, string, number, (i: number) => Record<string, string>]
      const rows: Row[] = [
        ['validate', '1 client', 1, () => ({ KIND: 'validate', CODE: 'D0' })],
        ['redeem', '1 client', 1, () => ({ KIND: 'redeem', CODE: 'D0' })],
        ['redeem, distinct codes', '2 procs', 2, (i) => ({ KIND: 'redeem', CODE: `D${i}` })],
        ['redeem, distinct codes', '4 procs', 4, (i) => ({ KIND: 'redeem', CODE: `D${i}` })],
        ['redeem, one hot code', '1 procs', 1, () => ({ KIND: 'redeem', CODE: 'HOT' })],
        ['redeem, one hot code', '2 procs', 2, () => ({ KIND: 'redeem', CODE: 'HOT' })],
        ['redeem, one hot code', '4 procs', 4, () => ({ KIND: 'redeem', CODE: 'HOT' })],
        ['validate', '4 procs', 4, (i) => ({ KIND: 'validate', CODE: `D${i}` })],
        ['validate, asyncActivities', '1 client', 1, () => ({ KIND: 'validate', CODE: 'D0', ASYNC: '1' })],
        ['validate, asyncActivities', '4 procs', 4, (i) => ({ KIND: 'validate', CODE: `D${i}`, ASYNC: '1' })],
      ]
      for (let pass = 0; pass < REPEAT; pass++) {
        for (const kind of ['floor-update', 'floor-call']) {
          for (const n of [1, 4]) {
            const what = kind === 'floor-update' ? 'floor: guarded single-row UPDATE' : FLOOR_CALL
            // The floor call from 4 connections always: the rows' share of the floor is of it.
            if (kept(what, `${n} conn`) || (what === FLOOR_CALL && n === 4))
              line(what, `${n} conn`, await race(url, n, () => ({ KIND: kind })))
          }
        }
        for (const [r, [what, from, n, env]] of rows.filter(([w, f]) => kept(w, f)).entries()) {
          // The option is this build's (an earlier build would ignore it). Which build goes first turns
          // row by row (and pass by pass): the first of a pair runs right after whatever came before (the floor's
          // 4-connection rows, for the first), and always the same build first read as a difference.
          const pair = (r + pass) % 2 === 0 ? builds : [...builds].reverse()
          for (const build of what.includes('asyncActivities') ? builds.slice(0, 1) : pair) {
            line(
              `${build.label}: ${what}`,
              from,
              await race(url, n, (i) => ({ BUILD: build.dist, SCHEMA: build.schema, ...env(i) })),
            )
          }
        }
      }
      if (REPEAT > 1) {
        const floor = median(rates.get(`${FLOOR_CALL} | 4 conn`) ?? [])
        console.log(
          `\nMedians of ${REPEAT} passes (fsync ${shown}; the floor call from 4 connections: ${floor.toFixed(0)}/s):\n`,
        )
        console.log('| what | from | this build /s | earlier build /s | this ÷ earlier | this ÷ floor call |')
        console.log('| --- | --- | ---: | ---: | ---: | ---: |')
        for (const [what, from] of rows.filter(([w, f]) => kept(w, f))) {
          const mine = median(rates.get(`this build: ${what} | ${from}`) ?? [])
          const earlier = rates.get(`earlier build: ${what} | ${from}`)
          const base = earlier ? median(earlier) : undefined
          console.log(
            `| ${what} | ${from} | ${mine.toFixed(0)} | ${base?.toFixed(0) ?? '—'} | ${base ? `${(mine / base).toFixed(2)}×` : '—'} | ${floor ? `${((100 * mine) / floor).toFixed(1)} %` : '—'} |`,
          )
        }
      }
      if (fsync === 'on') {
        const top = await admin.query(
          `SELECT calls, round(total_exec_time::numeric, 1) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
           FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 20`,
        )
        console.log(
          `\nWhere the time goes on the server (fsync on, every row above, both builds: the schema names the build; nested statements included):\n`,
        )
        console.log('| calls | total ms | mean ms | statement |')
        console.log('| ---: | ---: | ---: | --- |')
        for (const r of top.rows)
          console.log(`| ${r.calls} | ${r.total_ms} | ${r.mean_ms} | \`${r.query.replace(/\|/g, '\\|')}\` |`)
        console.log('')
      }
      console.log(`\n(load after: ${uptime()})\n`)
    }
  } finally {
    await admin.end()
    await server.stop()
  }
}

await main()
