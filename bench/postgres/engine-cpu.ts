import { fork } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { cpus, loadavg } from 'node:os'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { AMOUNT_OFF, oneLineRedemption } from './one-line'

/*
 * `npx tsx bench/postgres/engine-cpu.ts dist ../base/dist` (not a test; docs/postgres.md#commit): the
 * client's own CPU per one-line validation and redemption on PostgreSQL (fsync off), one request at a
 * time from one process, the builds (built `dist/`s; the first is the one measured) alternated round
 * by round, each (round, kind, build) in its own process on its own schema. CPU time of the process
 * (`process.cpuUsage`: the engine, the pg driver and Node's sockets; not the database's) is what a
 * shared machine distorts least; the p50 of the wall time is printed beside it. ROUNDS (5), N calls
 * measured per process (1,000) after WARM (1,000); PROFILE=<dir> writes a CPU profile of each window.
 *
 * Where an operation's wall time goes, without a profiler's overhead: the time with a query in flight
 * (node-postgres's `query` called until it resolves: the driver, the socket, the server), of which the
 * server's execution time (pg_stat_statements, top-level statements), and the rest: the engine's own
 * JavaScript between queries (load, decide, build the commit) with the adapter's; and the client's
 * CPU time split the same way (with a query in flight: node-postgres, the socket, the parse of the
 * answer; between queries: the engine and the adapter, garbage collection included). On Linux, the
 * process's CPU is also split by thread: the main thread (JavaScript, the driver, the sockets) and the
 * others (V8's background compilers and garbage collector helpers). The others' share is mostly the
 * JIT still optimising functions met for the first time: it falls with WARM (bench/RESULTS.md,
 * "Helper run `clientcpu2`"), so a build's steady state wants WARM of several thousand.
 *
 * The database's side: the CPU of the pool's backends over the window (`/proc/<pid>/stat`, found by
 * the pool's `application_name`), per operation. The pool runs the session setting the build asks of
 * its connections (`planGenerically`, docs/postgres.md#plan-caching), as near-floor.ts's workers do;
 * the operation is theirs too: the same customer and the same code at every call. KINDS (both)
 * picks the operations, e.g. KINDS=redeem. A build written `dist@/path/to/node` runs its processes on
 * that Node.js binary: `dist dist@/opt/node24/bin/node` compares two Node versions on one build.
 */

const ROUNDS = Number(process.env.ROUNDS ?? 5)
const N = Number(process.env.N ?? 1000)
const WARM = Number(process.env.WARM ?? 1000)
const KINDS = (process.env.KINDS ?? 'validate,redeem').split(',')

type Out = {
  cpu: number
  p50: number
  queries: number
  wall: number
  inFlight: number
  server: number
  cpuInFlight: number
  /** CPU of the threads other than the main one (JIT compilers, GC helpers); NaN off Linux. */
  cpuOther: number
  /** CPU of the pool's backends (the database's side); NaN off Linux. */
  backend: number
}

/** CPU time of processes (utime + stime in clock ticks of 10 ms), ms; NaN when one cannot be read. */
function processCpu(pids: number[]): number {
  let sum = 0
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
      sum += (Number(f[11]) + Number(f[12])) * 10
    } catch {
      return Number.NaN
    }
  }
  return sum
}

/** The main thread's CPU time, ms (Linux: its task's utime + stime, in clock ticks of 10 ms). */
function mainThreadCpu(): number {
  try {
    const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(f[11]) + Number(f[12])) * 10
  } catch {
    return Number.NaN
  }
}

async function child(dist: string, kind: string, url: string, schema: string): Promise<void> {
  const built = (await import(pathToFileURL(resolve(dist, 'index.js')).href)) as typeof import('../../src/index')
  const postgres = (await import(
    pathToFileURL(resolve(dist, 'postgres.js')).href
  )) as typeof import('../../src/postgres/index')
  const app = `engine-cpu-${process.pid}`
  const pool = new pg.Pool({ connectionString: url, max: 2, application_name: app }).on('error', () => {})
  ;(postgres as { planGenerically?: (p: pg.Pool) => void }).planGenerically?.(pool)
  // Time with at least one query in flight (the union of their intervals).
  let inFlight = 0
  let cpuInFlight = 0
  let open = 0
  let since = 0
  let cpuSince = 0
  const cpuNow = () => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  const timed = <A extends unknown[], R>(query: (...args: A) => Promise<R>) =>
    async function (this: unknown, ...args: A): Promise<R> {
      if (open++ === 0) {
        since = performance.now()
        cpuSince = cpuNow()
      }
      try {
        return await query.apply(this, args)
      } finally {
        if (--open === 0) {
          inFlight += performance.now() - since
          cpuInFlight += cpuNow() - cpuSince
        }
      }
    }
  pool.query = timed(pool.query.bind(pool)) as typeof pool.query
  pool.on('connect', (client) => {
    client.query = timed(client.query.bind(client)) as typeof client.query
  })
  const store = postgres.createPostgresStore({ pool, schema })
  await store.migrate()
  const engine = built.createEngine({ store })
  const code = `${kind}-${process.pid}`
  await engine.raw.vouchers.create({ code, ...AMOUNT_OFF })
  const body = oneLineRedemption(code, `bench-${process.pid}`)
  await engine.raw.customers.create({ source_id: body.customer.source_id })
  const op =
    kind === 'validate'
      ? async () => (await engine.raw.validations.validateStackable(body)).valid
      : async () => (await engine.raw.redemptions.redeemStackable(body)).parent_redemption.result === 'SUCCESS'
  for (let i = 0; i < WARM; i++) if (!(await op())) throw new Error(`${kind} failed`)
  ;(globalThis as { gc?: () => void }).gc?.()
  const session = process.env.PROFILE ? new Session() : undefined
  if (session) {
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 100 })
    await session.post('Profiler.start')
  }
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query('SELECT pg_stat_statements_reset()')
  const backends = (await admin.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [app])).rows.map(
    (r) => r.pid as number,
  )
  const backend0 = processCpu(backends)
  inFlight = 0
  cpuInFlight = 0
  const q0 = store.stats.queries
  const latencies: number[] = []
  const started = performance.now()
  const main0 = mainThreadCpu()
  const cpu = process.cpuUsage()
  for (let i = 0; i < N; i++) {
    const t = performance.now()
    if (!(await op())) throw new Error(`${kind} failed`)
    latencies.push(performance.now() - t)
  }
  const used = process.cpuUsage(cpu)
  const mainUsed = mainThreadCpu() - main0
  const wall = performance.now() - started
  const backendUsed = processCpu(backends) - backend0
  const server = Number(
    (
      await admin.query(
        `SELECT coalesce(sum(total_exec_time), 0) AS ms FROM pg_stat_statements WHERE toplevel AND query NOT LIKE '%pg_stat_statements%'`,
      )
    ).rows[0].ms,
  )
  await admin.end()
  if (session) {
    const { profile } = await session.post('Profiler.stop')
    mkdirSync(process.env.PROFILE as string, { recursive: true })
    writeFileSync(
      resolve(process.env.PROFILE as string, `${kind}-${schema}-${process.pid}.cpuprofile`),
      JSON.stringify(profile),
    )
  }
  latencies.sort((a, b) => a - b)
  const out: Out = {
    cpu: (used.user + used.system) / 1000 / N,
    p50: latencies[Math.floor(N / 2)] ?? 0,
    queries: (store.stats.queries - q0) / N,
    wall: wall / N,
    inFlight: inFlight / N,
    server: server / N,
    cpuInFlight: cpuInFlight / N,
    cpuOther: ((used.user + used.system) / 1000 - mainUsed) / N,
    backend: backendUsed / N,
  }
  process.stdout.write(`${JSON.stringify(out)}\n`)
  await pool.end()
}

function run(env: Record<string, string>, args: string[], execPath?: string): Promise<Out> {
  return new Promise((done, fail) => {
    const p = fork(fileURLToPath(import.meta.url), ['--child', ...args], {
      ...(execPath === undefined ? {} : { execPath }),
      execArgv: ['--import', 'tsx', '--expose-gc'],
      silent: true,
      env: { ...process.env, ...env },
    })
    let text = ''
    p.stdout?.on('data', (d) => {
      text += d
    })
    p.stderr?.on('data', (d) => process.stderr.write(d))
    p.on('exit', (code) => (code === 0 ? done(JSON.parse(text)) : fail(new Error(`child exited ${code}`))))
  })
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = (s.length - 1) / 2
  return ((s[Math.floor(m)] as number) + (s[Math.ceil(m)] as number)) / 2
}

async function main(dists: string[]): Promise<void> {
  const server = await startEmbedded({
    fsync: 'off',
    shared_preload_libraries: 'pg_stat_statements',
    'pg_stat_statements.track': 'all',
  })
  const setup = new pg.Client({ connectionString: server.url })
  await setup.connect()
  await setup.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
  await setup.end()
  try {
    console.log(
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; ${new Date().toISOString()}; Node ${process.version}; load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${ROUNDS} rounds × ${N} calls after ${WARM}`,
    )
    const results: Record<string, Record<string, Out[]>> = {}
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of KINDS) {
        const order = dists.map((_, i) => dists[(i + round) % dists.length] as string)
        for (const dist of order) {
          const schema = `b${dists.indexOf(dist)}`
          // `dist@/path/to/node`: that build on another Node.js (the same build on two Node versions).
          const [path, node] = dist.split('@') as [string, string | undefined]
          const out = await run({}, [path, kind, server.url, schema], node)
          const byBuild = results[kind] ?? {}
          results[kind] = byBuild
          byBuild[dist] = [...(byBuild[dist] ?? []), out]
        }
      }
    }
    console.log(
      `\n(load after: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})\n`,
    )
    console.log(
      `| operation | build | client CPU ms/op (median, lowest–highest) | backend CPU ms/op (median, lowest–highest) | p50 ms | queries/op | CPU ÷ ${dists[0]} per round (median, lowest–highest) | backend CPU ÷ ${dists[0]} per round (median) |`,
    )
    console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    const rowsOf = (kind: string, dist: string) => results[kind]?.[dist] ?? []
    const tail: string[] = [
      '',
      'Where the wall time of one operation goes (ms, medians of the rounds): mean wall; with a query in flight, of which the server executing; between queries (the engine and the adapter)',
      '',
      '| operation | build | wall | query in flight | of which server | driver, socket, wake-ups | engine between queries | client CPU with a query in flight | client CPU between queries | client CPU of threads other than the main one (JIT, GC) |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ]
    for (const kind of KINDS) {
      for (const dist of dists) {
        const rows = rowsOf(kind, dist)
        const m = (f: (r: Out) => number) => median(rows.map(f))
        tail.push(
          `| ${kind} | ${dist} | ${m((r) => r.wall).toFixed(2)} | ${m((r) => r.inFlight).toFixed(2)} | ${m((r) => r.server).toFixed(2)} | ${m((r) => r.inFlight - r.server).toFixed(2)} | ${m((r) => r.wall - r.inFlight).toFixed(2)} | ${m((r) => r.cpuInFlight).toFixed(2)} | ${m((r) => r.cpu - r.cpuInFlight).toFixed(2)} | ${m((r) => r.cpuOther).toFixed(2)} |`,
        )
      }
    }
    process.on('exit', () => console.log(tail.join('\n')))
    for (const kind of KINDS) {
      const first = results[kind]?.[dists[0] as string] ?? []
      for (const dist of dists) {
        const rows = results[kind]?.[dist] ?? []
        const cpu = rows.map((r) => r.cpu)
        const ratios = rows.map((r, i) => r.cpu / (first[i]?.cpu ?? Number.NaN))
        const db = rows.map((r) => r.backend)
        const dbRatios = rows.map((r, i) => r.backend / (first[i]?.backend ?? Number.NaN))
        console.log(
          `| ${kind} | ${dist} | ${median(cpu).toFixed(3)} (${Math.min(...cpu).toFixed(3)}–${Math.max(...cpu).toFixed(3)}) | ${median(db).toFixed(3)} (${Math.min(...db).toFixed(3)}–${Math.max(...db).toFixed(3)}) | ${median(rows.map((r) => r.p50)).toFixed(2)} | ${median(rows.map((r) => r.queries)).toFixed(1)} | ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ${median(dbRatios).toFixed(2)}× |`,
        )
      }
    }
  } finally {
    await server.stop()
  }
}

if (process.argv[2] === '--child') {
  const [dist, kind, url, schema] = process.argv.slice(3) as [string, string, string, string]
  await child(dist, kind, url, schema)
} else {
  await main(process.argv.slice(2).length ? process.argv.slice(2) : ['dist'])
}
