import { fork } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { AMOUNT_OFF, oneLineRedemption } from './one-line'

/*
 * `npx tsx bench/postgres/paired-cpu.ts dist ../base/dist` (not a test; docs/postgres.md#tuning): the
 * CPU of a one-line redemption on PostgreSQL (fsync off) as near-floor.ts's "distinct codes" rows
 * make it (one process, one request at a time, its own code and customer at every call), for two
 * builds side by side: a process per build, both alive throughout, taking turns at batches of BATCH
 * calls (the other one idle meanwhile), so that every pair of batches meets the same load of a
 * shared machine. Per batch: the main thread's CPU (`/proc/self/task/<pid>/schedstat`, in ns), the
 * process's (every thread: the JIT's compilers and the GC's helpers too) and its backend's
 * (`/proc/<pid>/schedstat`). Prints the medians per build and of the ratios of each pair, after WARM calls
 * per process; PAIRS pairs (40).
 */

const PAIRS = Number(process.env.PAIRS ?? 40)
const BATCH = Number(process.env.BATCH ?? 200)
const WARM = Number(process.env.WARM ?? 1000)

type Batch = { main: number; proc: number; backend: number }

/** A task's CPU time so far, ns (`/proc/…/schedstat`: time on a CPU, waiting, slices). */
const ranNs = (path: string) => Number(readFileSync(path, 'utf8').split(' ')[0])

async function child(dist: string, url: string, schema: string): Promise<void> {
  const built = (await import(pathToFileURL(resolve(dist, 'index.js')).href)) as typeof import('../../src/index')
  const postgres = (await import(
    pathToFileURL(resolve(dist, 'postgres.js')).href
  )) as typeof import('../../src/postgres/index')
  const app = `paired-${process.pid}`
  const pool = new pg.Pool({ connectionString: url, max: 2, application_name: app }).on('error', () => {})
  ;(postgres as { planGenerically?: (p: pg.Pool) => void }).planGenerically?.(pool)
  const store = postgres.createPostgresStore({ pool, schema })
  await store.migrate()
  const engine = built.createEngine({ store })
  const code = `P${process.pid}`
  await engine.raw.vouchers.create({ code, ...AMOUNT_OFF })
  const body = oneLineRedemption(code, `bench-${process.pid}`)
  const op = async () => {
    if ((await engine.raw.redemptions.redeemStackable(body)).parent_redemption.result !== 'SUCCESS')
      throw new Error('redeem failed')
  }
  for (let i = 0; i < WARM; i++) await op()
  const backends = (await pool.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [app])).rows.map(
    (r) => r.pid as number,
  )
  const mainNs = () => ranNs(`/proc/self/task/${process.pid}/schedstat`)
  const backendNs = () => backends.reduce((s, pid) => s + ranNs(`/proc/${pid}/schedstat`), 0)
  process.on('message', async (m) => {
    if (m === 'end') {
      await pool.end()
      process.exit(0)
    }
    const m0 = mainNs()
    const c0 = process.cpuUsage()
    const b0 = backendNs()
    for (let i = 0; i < BATCH; i++) await op()
    const c = process.cpuUsage(c0)
    const out: Batch = {
      main: (mainNs() - m0) / 1e6 / BATCH,
      proc: (c.user + c.system) / 1000 / BATCH,
      backend: (backendNs() - b0) / 1e6 / BATCH,
    }
    process.send?.(out)
  })
  process.send?.('ready')
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = (s.length - 1) / 2
  return ((s[Math.floor(m)] as number) + (s[Math.ceil(m)] as number)) / 2
}

async function main([a, b]: string[]): Promise<void> {
  if (!a || !b) throw new Error('usage: paired-cpu.ts <dist> <other dist>')
  const server = await startEmbedded({ fsync: 'off' })
  try {
    const line = () =>
      `load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`
    console.log(
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; ${new Date().toISOString()}; Node ${process.version}; ${line()}; ${PAIRS} pairs of ${BATCH} calls after ${WARM}`,
    )
    const spawn = (dist: string, schema: string) => {
      const p = fork(fileURLToPath(import.meta.url), ['--child', dist, server.url, schema], {
        execArgv: ['--import', 'tsx'],
      })
      let waiting: ((m: unknown) => void) | undefined
      p.on('message', (m) => waiting?.(m))
      const next = () =>
        new Promise<unknown>((r) => {
          waiting = r
        })
      return { p, next }
    }
    // One after the other: two migrations of one database at once would wait on each other's locks.
    const x = spawn(a, 'pa')
    await x.next()
    const y = spawn(b, 'pb')
    await y.next()
    const rows: { x: Batch; y: Batch }[] = []
    for (let i = 0; i < PAIRS; i++) {
      // Which goes first turns pair by pair.
      const first = i % 2 === 0 ? x : y
      const second = first === x ? y : x
      first.p.send('go')
      const f = (await first.next()) as Batch
      second.p.send('go')
      const s = (await second.next()) as Batch
      rows.push(first === x ? { x: f, y: s } : { x: s, y: f })
    }
    x.p.send('end')
    y.p.send('end')
    console.log(`(${line()})\n`)
    console.log(
      `| CPU ms per redemption (median of ${PAIRS} batches) | ${a} | ${b} | ${b} ÷ ${a} (median of pairs, quartiles) |`,
    )
    console.log('| --- | ---: | ---: | ---: |')
    for (const k of ['main', 'proc', 'backend'] as const) {
      const ratios = rows.map((r) => r.y[k] / r.x[k]).sort((p, q) => p - q)
      const q = (f: number) => ratios[Math.floor(f * (ratios.length - 1))] as number
      const what = { main: 'Node main thread', proc: 'Node process (all threads)', backend: 'backend' }[k]
      console.log(
        `| ${what} | ${median(rows.map((r) => r.x[k])).toFixed(3)} | ${median(rows.map((r) => r.y[k])).toFixed(3)} | ${median(ratios).toFixed(3)}× (${q(0.25).toFixed(3)}–${q(0.75).toFixed(3)}) |`,
      )
    }
  } finally {
    await server.stop()
  }
}

if (process.argv[2] === '--child') {
  const [dist, url, schema] = process.argv.slice(3) as [string, string, string]
  await child(dist, url, schema)
} else {
  await main(process.argv.slice(2))
}
