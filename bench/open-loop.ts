import { type ChildProcess, execSync, spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort, startEmbedded } from '../test/postgres/embedded'
import { type MachineProbe, probeSummary, type Reading, startMachineProbe, worstBetween } from './machine-probe'
import {
  cpuSplit,
  databaseCpuByRole,
  databaseProcesses,
  host,
  perfRecord,
  procStat,
  ROLES,
  sampleBackends,
  scrapeAll,
  summarisePerf,
  total,
} from './open-loop-probes'
import { FLOOR_SQL, floorRows } from './postgres/floor'

/*
 * `npm run bench:open-loop`: the reference server (its built CLI, as `npm run serve` runs it) on an
 * embedded PostgreSQL, a shop set up over HTTP, then OPEN-LOOP runs: requests are scheduled at a fixed
 * rate (Poisson arrivals, seeded) whatever the server answers, and each latency is measured from the
 * request's scheduled start, so a slow answer delays nothing it should not and no waiting is hidden
 * (no coordinated omission). The mix: validations and redemptions of a public code by distinct
 * customers, and paid orders (auto-join program with an earning rule) by distinct customers.
 *
 * For fsync off, then on (the same database, reloaded): the floor (what the database itself commits
 * from one connection: a guarded single-row UPDATE, and one function call applying 19 JSONB inserts
 * and a guarded update, as bench/postgres/near-floor.ts) and that call at each rate of the sweep, open
 * loop (FLOOR_SECONDS, 10: the latencies the database and the disk alone give at that rate), then a
 * rate sweep. Per rate: requests
 * scheduled and answered per second, p50/p90/p99/max from the scheduled start, status counts, and the
 * load generator's own lag (how late it sent). After each fsync setting: the database's time by
 * statement during the sweep (pg_stat_statements, nested statements included, `pe_commit` beside the
 * reads).
 *
 * Each rate also shows the CPU time per request of the server, the database's processes and the
 * generator (from /proc), which stays meaningful on a shared machine where latencies do not, and the
 * database's CPU by process (the server's connections, the bench's own sampling connection, autovacuum,
 * checkpointer, WAL writer, children that exited); and where a request's time goes: the server's own
 * request-duration and pool-wait histograms and its event-loop delay (its /metrics, read before and
 * after the rate), and, with the instruments on, what the database's backends were doing
 * (pg_stat_activity sampled every ~10 ms: on CPU or runnable, waiting on a lock by lock type, other
 * waits). The instruments cost CPU of their own (the sampling connection alone ~0.35 ms of the
 * database's CPU per request at 150–200/s), so each sweep runs without them and again with them
 * (INSTRUMENTS). The sweep stops at the first rate the server could not keep up with.
 *
 * Environment: RATES (default 100,200,300,400), SECONDS per rate (20), FSYNC (off,on), MIX
 * (validations:redemptions:orders, default 2:2:1), VALIDATORS=returning (validations by 100
 * customers the shop made, so each records an activity; by default every request is a new
 * customer's), POOL (the server's PROMO_DB_POOL_SIZE, default its own), BUILDS (`label=path/to/cli.js[@pool][%in-flight][*processes][+async][!--node-flag…],…`: other server builds, each on a
 * fresh database, in turn for each fsync setting; `%6` sets PROMO_MAX_IN_FLIGHT (`%0`: no limit); `*2` runs two server processes on the database,
 * requests sent to each in turn; `+async` with PROMO_DB_ASYNC_ACTIVITIES=on; default this
 * checkout's, built first), STORE=memory (the server on
 * its memory store: the HTTP layer and the engine without a database), PROFILE=1 (the server runs
 * with `--cpu-prof`; its profile is summarised by source module and by function at the end;
 * KEEP_PROFILE=1 keeps the file), INSTRUMENTS and PERF (below), PROGRAM=none (a shop without the loyalty program: no enrolment, no card code
 * generated per new customer), WARMUP (seconds of uncounted requests first, default 10), REPEAT (the
 * builds' sessions this many times in turn, default 1), WAL (`fresh`, `recycled`: below). Figures in
 * bench/RESULTS.md.
 */

const RATES = (process.env.RATES ?? '100,200,300,400').split(',').map(Number)
const SECONDS = Number(process.env.SECONDS ?? 20)
const FSYNC = (process.env.FSYNC ?? 'off,on').split(',')
const MIX = (process.env.MIX ?? '2:2:1').split(':').map(Number)
const PROFILE = process.env.PROFILE === '1'
/**
 * INSTRUMENTS (default `off,on`): `on` runs the database with pg_stat_statements (every statement
 * nested in PL/pgSQL timed), track_functions, and pg_stat_activity sampled every ~10 ms, for the
 * tables of where the time goes; `off` without any of them, for latencies and CPU as a production
 * database would show them. Each setting in the list runs the sweep on a fresh database.
 */
const INSTRUMENTS = (process.env.INSTRUMENTS ?? 'off,on').split(',')
/**
 * PERF=1: `perf record` (DWARF call graphs) of the server's database connections during the highest
 * rate of an instrumented sweep, told by phase at the end: the commit function, planning and parsing the statements the server
 * sends, executing its reads, transaction commit. Needs `perf` and the right to trace those processes.
 */
const PERF = process.env.PERF === '1'
/**
 * TRACE=1: each request carries `X-Trace-Id` and the servers run with PROMO_TRACE_FILE (builds without
 * it write none); after each session, per rate, the slowest 1 % of requests against the median band,
 * phase by phase: the generator's lag, send to the handler's start, pool waits, reads, the commit,
 * the handler's own time, writing the answer, back to the generator, GC pauses during the request.
 */
const TRACE = process.env.TRACE === '1'
/** Seconds of the floor call at each rate, open loop, before the shop (the floor the p99 stands beside). */
const FLOOR_SECONDS = Number(process.env.FLOOR_SECONDS ?? 10)
/** Seconds of uncounted requests before the first rate, at that rate (at most 100/s) per process. */
const WARMUP = Number(process.env.WARMUP ?? 10)
/** REPEAT: the builds' sessions this many times in turn (a p99 over one run swings by 2× at 200/s). */
const REPEAT = Number(process.env.REPEAT ?? 1)
/**
 * WAL (default `fresh`; a list runs each in turn): `recycled` writes WAL_MB (384) of WAL into a table
 * it then drops, and checkpoints, before the shop, so the sweep's commits land in WAL segments the
 * server recycled, as on a server that has been running: on a new database every 16 MB segment is
 * created on demand, zero-filled and (fsync on) flushed while every commit waits for it, tens of ms
 * a segment on this machine's disk (docs/postgres.md#tuning). Each rate reports the WAL it wrote and
 * the segment files created during it.
 */
const WAL = (process.env.WAL ?? 'fresh').split(',')
const WAL_MB = Number(process.env.WAL_MB ?? 384)
/** VALIDATORS=returning: validations by 100 customers made with the shop, so each records an activity. */
const RETURNING = process.env.VALIDATORS === 'returning'
const APP = {
  'X-App-Id': 'load-app',
  'X-App-Token': 'load-secret-of-the-bench-24chars',
  'Content-Type': 'application/json',
}

// One process, keep-alive sockets reused: the generator's own cost stays small beside the server's.
let agent = new Agent({ keepAlive: true, maxSockets: 512 })
/** The servers' ports (several with `*N` in BUILDS); requests go round them in turn. */
let ports: number[] = []
/** TRACE=1: the machine probe over a session's rates. */
let machine: MachineProbe | undefined

interface Answer {
  status: number
  body: string
}

function send(method: string, path: string, body?: unknown, port = ports[0], traceId?: string): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host,
        port,
        method,
        path,
        agent,
        headers: {
          ...APP,
          ...(payload === undefined ? {} : { 'Content-Length': Buffer.byteLength(payload) }),
          ...(traceId === undefined ? {} : { 'X-Trace-Id': traceId }),
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

async function must(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const a = await send(method, path, body)
  if (a.status >= 300) throw new Error(`${method} ${path}: ${a.status} ${a.body.slice(0, 300)}`)
  return a.body ? (JSON.parse(a.body) as Record<string, unknown>) : {}
}

async function shop(): Promise<void> {
  await must('POST', '/v1/products', { name: 'Shoe', source_id: 'shoe', price: 5000 })
  if (RETURNING) {
    for (let k = 0; k < 100; k++) await must('POST', '/v1/customers', { source_id: `regular-${k}` })
  }
  await must('POST', '/v1/vouchers', {
    code: 'PUBLIC',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100 },
  })
  if (process.env.PROGRAM === 'none') return
  const club = await must('POST', '/v1/loyalties', {
    name: 'Club',
    type: 'AUTO_UPDATE',
    auto_join: true,
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'CLUB-########' } },
  })
  await must('POST', '/v1/async-actions/run-pending', {})
  await must('POST', `/v1/loyalties/${club.id}/earning-rules`, [
    { event: 'order.paid', loyalty: { type: 'FIXED', points: 10 } },
  ])
}

const order = { amount: 10_000, items: [{ source_id: 'shoe', quantity: 2 }] }

type Kind = 'validation' | 'redemption' | 'order'

/** Every request of the run from a customer never seen before (a run's prefix plus its number). */
function requestOf(kind: Kind, customer: string, n: number): [string, unknown] {
  if (kind === 'validation')
    return [
      '/v1/validations',
      {
        // A customer the store does not know records no activity: the validation then commits nothing.
        customer: { source_id: RETURNING ? `regular-${n % 100}` : customer },
        order,
        redeemables: [{ object: 'voucher', id: 'PUBLIC' }],
      },
    ]
  if (kind === 'redemption')
    return [
      '/v1/redemptions',
      { customer: { source_id: customer }, order, redeemables: [{ object: 'voucher', id: 'PUBLIC' }] },
    ]
  return ['/v1/orders', { customer: { source_id: customer }, status: 'PAID', ...order }]
}

/** Seeded so runs compare: mulberry32. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

interface Sample {
  kind: Kind
  status: number
  /** From the scheduled start to the last byte of the answer. */
  ms: number
  /** How late the generator sent it. */
  lag: number
  /** TRACE=1: the request's name (`X-Trace-Id`), its scheduled start and when it was sent and answered (ms since the epoch). */
  id?: string | undefined
  at?: number
  sent?: number
  received?: number
}

async function openLoop(rate: number, seconds: number, prefix: string) {
  const next = random(rate * 7919 + seconds)
  const kinds: Kind[] = ['validation', 'redemption', 'order']
  const total = MIX.reduce((s, w) => s + w, 0)
  const pick = (): Kind => {
    let r = next() * total
    for (let k = 0; k < kinds.length; k++) {
      r -= MIX[k] ?? 0
      if (r < 0) return kinds[k] as Kind
    }
    return 'validation'
  }
  // Poisson arrivals: exponential gaps of mean 1/rate.
  const schedule: { at: number; kind: Kind }[] = []
  for (let t = 0; ; ) {
    t += (-Math.log(1 - next()) / rate) * 1000
    if (t >= seconds * 1000) break
    schedule.push({ at: t, kind: pick() })
  }
  const samples: Sample[] = []
  const failures = new Map<string, number>()
  const pending: Promise<void>[] = []
  const start = performance.now()
  let i = 0
  while (i < schedule.length) {
    const now = performance.now() - start
    while (i < schedule.length && (schedule[i] as { at: number }).at <= now) {
      const { at, kind } = schedule[i] as { at: number; kind: Kind }
      const [path, body] = requestOf(kind, `${prefix}-${i}`, i)
      const lag = performance.now() - start - at
      const id = TRACE ? `${prefix}-${i}` : undefined
      const sent = TRACE ? performance.timeOrigin + performance.now() : 0
      pending.push(
        send('POST', path, body, ports[i % ports.length], id).then(
          (a) => {
            const ms = performance.now() - start - at
            samples.push(
              TRACE
                ? {
                    kind,
                    status: a.status,
                    ms,
                    lag,
                    id,
                    sent,
                    at: performance.timeOrigin + start + at,
                    received: performance.timeOrigin + performance.now(),
                  }
                : { kind, status: a.status, ms, lag },
            )
          },
          (error: NodeJS.ErrnoException) => {
            samples.push({ kind, status: 0, ms: performance.now() - start - at, lag })
            failures.set(error.code ?? error.message, (failures.get(error.code ?? error.message) ?? 0) + 1)
          },
        ),
      )
      i++
    }
    const wait = i < schedule.length ? (schedule[i] as { at: number }).at - (performance.now() - start) : 0
    await new Promise((r) => (wait >= 1 ? setTimeout(r, Math.floor(wait)) : setImmediate(r)))
  }
  const sentIn = (performance.now() - start) / 1000
  await Promise.all(pending)
  const doneIn = (performance.now() - start) / 1000
  return { rate, scheduled: schedule.length, sentIn, doneIn, samples, failures }
}

function summary(samples: Sample[]) {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b)
  const pct = (p: number) => ms[Math.min(ms.length - 1, Math.ceil((p / 100) * ms.length) - 1)] ?? 0
  const statuses: Record<string, number> = {}
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1
  const lags = samples.map((s) => s.lag).sort((a, b) => a - b)
  return {
    n: samples.length,
    p50: pct(50),
    p90: pct(90),
    p99: pct(99),
    max: ms[ms.length - 1] ?? 0,
    statuses,
    lagP99: lags[Math.min(lags.length - 1, Math.ceil(0.99 * lags.length) - 1)] ?? 0,
  }
}

/**
 * WAL_MB of WAL written into a table then dropped, and a checkpoint: the segments behind it are
 * recycled (renamed for reuse) instead of removed, as on a server that has been running. Returns the
 * segment files in pg_wal afterwards.
 */
async function recycleWal(admin: pg.Client): Promise<number> {
  // md5 text: about 1 kB of WAL per 10 rows' worth of heap, compressed by nothing.
  await admin.query(
    `CREATE TABLE pe_wal_warm AS SELECT g, md5(g::text) || md5((g + 1)::text) AS v FROM generate_series(1, ${Math.round(WAL_MB * 9000)}) g`,
  )
  await admin.query('DROP TABLE pe_wal_warm')
  await admin.query('CHECKPOINT')
  return (await walPosition(admin)).files
}

/** The WAL's insert position (bytes) and the segment files in pg_wal. */
async function walPosition(admin: pg.Client): Promise<{ lsn: number; files: number }> {
  const row = (
    await admin.query<{ lsn: string; files: string }>(
      "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text AS lsn, (SELECT count(*) FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$')::text AS files",
    )
  ).rows[0]
  return { lsn: Number(row?.lsn ?? 0), files: Number(row?.files ?? 0) }
}

/** The database's own rate from one connection for `seconds`: the same statements as near-floor.ts. */
async function floor(url: string, kind: 'update' | 'call', seconds: number): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  let n = 0
  const end = performance.now() + seconds * 1000
  try {
    while (performance.now() < end) {
      if (kind === 'update') {
        await client.query({
          name: 'fu',
          text: 'UPDATE floor.counter SET n = n + 1 WHERE id = $1 AND n + 1 <= cap',
          values: [0],
        })
      } else {
        const rows = Array.from({ length: 19 }, (_, i) => ({
          id: `${process.pid}-${Date.now()}-${n}-${i}`,
          value: {
            id: `x${i}`,
            type: 'customer.redemption.succeeded',
            customer_id: 'cust_1',
            amount: 100 * i,
            data: { code: 'PUBLIC', order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1 }] } },
          },
        }))
        await client.query({ name: 'fc', text: 'SELECT floor.apply($1::jsonb, 0)', values: [JSON.stringify(rows)] })
      }
      n++
    }
  } finally {
    await client.end()
  }
  return n / seconds
}

/**
 * The floor at the rate: the floor call (19 JSONB inserts and the guarded update of one row, as every
 * redemption of the sweep's one code updates its row) scheduled as the sweep's requests are (Poisson
 * arrivals, open loop, latency from the scheduled start), from a pool of 10 connections, as the
 * server's: the latencies the database and the disk alone give at that rate, with no server, no
 * engine and no reads. Its p99 is what the engine's p99 stands beside.
 */
async function floorLoop(url: string, rate: number, seconds: number) {
  const pool = new pg.Pool({ connectionString: url, max: 10 }).on('error', () => {})
  const next = random(rate * 104_729 + seconds)
  const at: number[] = []
  for (let t = 0; ; ) {
    t += (-Math.log(1 - next()) / rate) * 1000
    if (t >= seconds * 1000) break
    at.push(t)
  }
  const samples: Sample[] = []
  const pending: Promise<void>[] = []
  const start = performance.now()
  try {
    let i = 0
    while (i < at.length) {
      const now = performance.now() - start
      while (i < at.length && (at[i] as number) <= now) {
        const due = at[i] as number
        const rows = floorRows(`fl-${rate}-${i}`)
        pending.push(
          pool.query({ name: 'fc', text: 'SELECT floor.apply($1::jsonb, 0)', values: [rows] }).then(() => {
            samples.push({ kind: 'redemption', status: 200, ms: performance.now() - start - due, lag: 0 })
          }),
        )
        i++
      }
      const wait = i < at.length ? (at[i] as number) - (performance.now() - start) : 0
      await new Promise((r) => (wait >= 1 ? setTimeout(r, Math.floor(wait)) : setImmediate(r)))
    }
    await Promise.all(pending)
  } finally {
    await pool.end()
  }
  return summary(samples)
}

async function waitForServer(child: ChildProcess, port: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error('the server exited')
    try {
      // The listener opens before the engine is ready (it answers 503 `starting` until then).
      if ((await send('GET', '/readyz', undefined, port)).status === 200) return
      await new Promise((r) => setTimeout(r, 200))
    } catch {
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  throw new Error('the server did not start')
}

/** Self time of a V8 CPU profile by file (node_modules package or our source) and by function. */
function summariseProfile(dir: string): void {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
  if (!file) {
    console.log('(no CPU profile written)')
    return
  }
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]
    samples: number[]
    timeDeltas: number[]
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]))
  const source = bundleSources()
  const self = new Map<number, number>()
  profile.samples.forEach((id, k) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[k] ?? 0))
  })
  const byFile = new Map<string, number>()
  const byFunction = new Map<string, number>()
  let all = 0
  for (const [id, us] of self) {
    const frame = byId.get(id)
    if (!frame) continue
    all += us
    const url = frame.url
    const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1]
    const where =
      frame.functionName === '(idle)' ||
      frame.functionName === '(program)' ||
      frame.functionName === '(garbage collector)'
        ? frame.functionName
        : pkg
          ? `node_modules/${pkg}`
          : url.startsWith('node:')
            ? `node:${url.slice(5).split('/')[0]}`
            : url === ''
              ? '(native)'
              : url.endsWith('/packages/server/dist/cli.js')
                ? `server bundle: ${source(url, frame.lineNumber)}`
                : url.replace(/^.*\/packages\/server\/dist\//, 'server bundle: ')
    byFile.set(where, (byFile.get(where) ?? 0) + us)
    const fn = `${frame.functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us)
  }
  const busy = all - (byFile.get('(idle)') ?? 0)
  console.log(
    `\nServer CPU profile (${file}): ${(all / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy\n`,
  )
  console.log('| where (self time) | s | % of busy |')
  console.log('| --- | ---: | ---: |')
  for (const [k, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    if (k === '(idle)') continue
    console.log(`| ${k} | ${(us / 1e6).toFixed(2)} | ${((100 * us) / busy).toFixed(1)} |`)
  }
  console.log('\n| function (self time) | s | % of busy |')
  console.log('| --- | ---: | ---: |')
  for (const [k, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    if (k.startsWith('(idle)')) continue
    console.log(`| \`${k}\` | ${(us / 1e6).toFixed(2)} | ${((100 * us) / busy).toFixed(1)} |`)
  }
}

/**
 * The source file of a line of the server's bundle: esbuild marks where each module starts
 * (`// ../../src/http/handler.ts`), so a profile's self time is told by module, not by bundle.
 */
function bundleSources(): (url: string, line: number) => string {
  const marks = new Map<string, { line: number; file: string }[]>()
  return (url, line) => {
    let list = marks.get(url)
    if (!list) {
      list = []
      try {
        const lines = readFileSync(new URL(url), 'utf8').split('\n')
        lines.forEach((text, i) => {
          const m = /^\/\/ (?:\.\.\/\.\.\/)?((?:src|node_modules)\/\S+)$/.exec(text)
          if (m?.[1])
            list?.push({ line: i, file: m[1].startsWith('src/') && !text.includes('../../') ? `server ${m[1]}` : m[1] })
        })
      } catch {}
      marks.set(url, list)
    }
    let lo = 0
    let hi = list.length - 1
    let found = 'cli.js'
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const mark = list[mid] as { line: number; file: string }
      if (mark.line <= line) {
        found = mark.file
        lo = mid + 1
      } else hi = mid - 1
    }
    return found
  }
}

interface Build {
  label: string
  cli: string
  /** The server's PROMO_DB_POOL_SIZE; its own default when absent. */
  pool?: string | undefined
  /** PROMO_DB_ASYNC_ACTIVITIES=on for this build (`+async` after its path). */
  asyncActivities?: boolean
  /** The server's PROMO_MAX_IN_FLIGHT (`%N` after the path or pool; `%0` no limit); its own default when absent. */
  inFlight?: string | undefined
  /** Server processes on the one database (`*N` after the path or pool), requests spread round them. */
  processes?: number
  /** Node flags for the server (`!--flag` after everything else, repeatable), e.g. `!--max-semi-space-size=32`. */
  nodeFlags?: string[]
}

/**
 * `label=path/to/cli.js[@pool]` from BUILDS (a pool size after `@`); this checkout's server (built
 * first) with POOL, else its default, when BUILDS is not set.
 */
function builds(): Build[] {
  const given = process.env.BUILDS
  if (!given) return [{ label: 'this build', cli: 'packages/server/dist/cli.js', pool: process.env.POOL }]
  return given.split(',').map((pair) => {
    const [label = '', ...rest] = pair.split('=')
    const [given = '', ...nodeFlags] = rest.join('=').split('!')
    const spec = given.replace(/\+async$/, '')
    const [, cli = '', pool, inFlight, processes] = /^([^@%*]+)(?:@(\d+))?(?:%(\d+))?(?:\*(\d+))?$/.exec(spec) ?? []
    return {
      label,
      cli,
      pool,
      inFlight,
      asyncActivities: spec !== given,
      processes: Number(processes ?? 1),
      nodeFlags,
    }
  })
}

const uptime = () => execSync('uptime').toString().trim()

/**
 * One fresh database (fsync as given) and one server build: the floors, the shop, a warm-up, the sweep,
 * then the database's time by statement.
 */
async function session(fsync: string, build: Build, memory: boolean, instruments: boolean, wal: string): Promise<void> {
  const pgServer = await startEmbedded({
    fsync,
    ...(instruments
      ? {
          track_functions: 'pl',
          shared_preload_libraries: 'pg_stat_statements',
          'pg_stat_statements.track': 'all',
          'pg_stat_statements.track_planning': 'on',
        }
      : {}),
  })
  const count = build.processes ?? 1
  ports = []
  const metricsPorts: number[] = []
  // A port just closed can be handed out again at once: draw until the server's and the metrics
  // listener's ports all differ.
  const taken = new Set<number>()
  const distinctPort = async (): Promise<number> => {
    for (;;) {
      const port = await freePort()
      if (taken.has(port)) continue
      taken.add(port)
      return port
    }
  }
  for (let k = 0; k < count; k++) {
    ports.push(await distinctPort())
    metricsPorts.push(await distinctPort())
  }
  const profileDir = join(tmpdir(), `open-loop-prof-${process.pid}-${fsync}-${build.label.replace(/\W+/g, '_')}`)
  if (PROFILE) mkdirSync(profileDir, { recursive: true })
  const traceFile = (k: number) => join(tmpdir(), `open-loop-trace-${process.pid}-${k}.jsonl`)
  const traced: { rate: number; samples: Sample[] }[] = []
  const servers = ports.map((port, k) =>
    spawn(
      process.execPath,
      [
        ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
        ...(build.nodeFlags ?? []),
        build.cli,
        'serve',
      ],
      {
        env: {
          ...process.env,
          ...(memory ? {} : { DATABASE_URL: pgServer.url }),
          PORT: String(port),
          HOST: host,
          PROMO_APP_ID: APP['X-App-Id'],
          PROMO_APP_SECRET: APP['X-App-Token'],
          PROMO_FILES_SECRET: 'bench-load-files-secret-0123456789abcdef',
          PROMO_METRICS_PORT: String(metricsPorts[k]),
          ...(build.pool ? { PROMO_DB_POOL_SIZE: build.pool } : {}),
          ...(build.inFlight ? { PROMO_MAX_IN_FLIGHT: build.inFlight } : {}),
          ...(build.asyncActivities ? { PROMO_DB_ASYNC_ACTIVITIES: 'on' } : {}),
          ...(TRACE ? { PROMO_TRACE_FILE: traceFile(k) } : {}),
        },
        // The server logs a line per request as in production; what it writes is thrown away here.
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    ),
  )
  /** CPU of the server processes together. */
  const serversCpu = () => {
    const splits = servers.map((server) => cpuSplit(server.pid))
    return {
      all: splits.reduce((sum, x) => sum + (x ? x.user + x.system : 0), 0),
      system: splits.reduce((sum, x) => sum + (x?.system ?? 0), 0),
    }
  }
  /**
   * The servers' main threads' time runnable but waiting for a core (the second field of
   * /proc/<pid>/schedstat, ns), ms: while it waits, every request in that process waits.
   */
  const serversQueued = () =>
    servers.reduce((sum, server) => {
      try {
        return sum + Number(readFileSync(`/proc/${server.pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6
      } catch {
        return sum
      }
    }, 0)
  const admin = new pg.Client({ connectionString: pgServer.url })
  /** The postmaster (the parent of the bench's own backend) and that backend, found once connected. */
  let postmaster = 0
  let adminPid = 0
  /**
   * The server's top-level statements so far (pg_stat_statements, the bench's own left out) and the
   * database's sessions opened: per request, they show how many requests share a read statement at
   * each rate, and whether the pool reconnects (each new connection prepares its statements again).
   */
  const databaseCounts = async (): Promise<{ statements: number; sessions: number; plans: number; planMs: number }> => {
    if (memory || !instruments) return { statements: Number.NaN, sessions: 0, plans: Number.NaN, planMs: Number.NaN }
    const row = (
      await admin.query<{ statements: string | null; sessions: string; plans: string | null; plan_ms: number | null }>(
        `SELECT (SELECT sum(calls) FROM pg_stat_statements WHERE toplevel AND query NOT ILIKE '%floor%' AND query NOT ILIKE '%pg_stat%') AS statements,
                (SELECT sum(plans) FROM pg_stat_statements WHERE toplevel AND query NOT ILIKE '%floor%' AND query NOT ILIKE '%pg_stat%') AS plans,
                (SELECT sum(total_plan_time) FROM pg_stat_statements WHERE toplevel AND query NOT ILIKE '%floor%' AND query NOT ILIKE '%pg_stat%') AS plan_ms,
                (SELECT sessions FROM pg_stat_database WHERE datname = current_database()) AS sessions`,
      )
    ).rows[0]
    return {
      statements: Number(row?.statements ?? 0),
      sessions: Number(row?.sessions ?? 0),
      plans: Number(row?.plans ?? 0),
      planMs: Number(row?.plan_ms ?? 0),
    }
  }
  try {
    for (const [k, server] of servers.entries()) await waitForServer(server, ports[k] as number)
    await admin.connect()
    adminPid = Number((await admin.query('SELECT pg_backend_pid() AS pid')).rows[0].pid)
    postmaster = procStat(adminPid)?.ppid ?? 0
    const walReady = wal === 'recycled' ? await recycleWal(admin) : undefined
    await admin.query(FLOOR_SQL)
    // The floor's own tables (its 3 s write some 130,000 rows) are no part of the requests' cost: no
    // autovacuum of them during the sweep, whose workers' CPU the "exited" column counts.
    await admin.query('ALTER TABLE floor.rows SET (autovacuum_enabled = false)')
    await admin.query('ALTER TABLE floor.counter SET (autovacuum_enabled = false)')
    if (instruments) await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
    // The floors first, then the warm-up right before the sweep: the floors' seconds of commits at full
    // speed (with fsync on, tens of MB of WAL and of dirty pages behind them) are no part of the first
    // moments of a rate, and the server is not left idle between its warm-up and the sweep.
    // Started before anything is measured: its own start (a process loading tsx) takes a core for a while.
    machine = TRACE ? startMachineProbe() : undefined
    const floors = memory
      ? undefined
      : {
          update: await floor(pgServer.url, 'update', 3),
          call: await floor(pgServer.url, 'call', 3),
          atRates: await (async () => {
            const out: { rate: number; r: ReturnType<typeof summary> }[] = []
            for (const rate of RATES) out.push({ rate, r: await floorLoop(pgServer.url, rate, FLOOR_SECONDS) })
            return out
          })(),
        }
    await shop()
    // Warm-up (not counted): JIT, the pool's connections, prepared statements; as many requests per
    // process. 3 s at 50/s left the first rate paying for them (server CPU per request 3.1 ms at 100/s
    // first, 2.0 ms at 100/s again after 150/s, with 4 sessions opened during the first).
    await openLoop(Math.min(100, RATES[0] ?? 100) * count, WARMUP, 'warm')
    const shown = memory ? 'memory store' : `fsync ${(await admin.query('SHOW fsync')).rows[0].fsync}`
    console.log(
      `\n### ${shown}, instruments ${instruments ? 'on' : 'off'}, ${memory ? '' : walReady === undefined ? 'WAL fresh, ' : `WAL recycled (${walReady} segment files ready), `}${build.label} (${build.cli}${build.pool ? `, pool ${build.pool}` : ''}${build.asyncActivities ? ', PROMO_DB_ASYNC_ACTIVITIES=on' : ''}${count > 1 ? `, ${count} processes` : ''}) (load before: ${uptime()})\n`,
    )
    if (floors) {
      console.log(
        `floor from 1 connection: guarded single-row UPDATE ${floors.update.toFixed(0)}/s; function call (19 JSONB inserts + guarded update) ${floors.call.toFixed(0)}/s`,
      )
      for (const { rate, r } of floors.atRates)
        console.log(
          `floor at ${rate}/s (the function call, open loop, ${FLOOR_SECONDS} s, pool of 10, before the shop): p50 ${r.p50.toFixed(1)}, p90 ${r.p90.toFixed(1)}, p99 ${r.p99.toFixed(1)}, max ${r.max.toFixed(1)} ms`,
        )
      console.log('')
      if (instruments) await admin.query('SELECT pg_stat_statements_reset()')
    }
    console.log(
      '| rate/s | scheduled | answered/s | p50 ms | p90 ms | p99 ms | max ms | statuses | p99 ms: validate / redeem / order | CPU ms/request: server (kernel %) / database / generator | generator lag p99 ms | WAL MB / segment files created |',
    )
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | ---: | --- |')
    const started = performance.now()
    const saturated: string[] = []
    const where: string[] = []
    const processRows: string[] = []
    const perfFiles: { rate: number; file: string | null }[] = []
    for (const rate of RATES) {
      const serverBefore = serversCpu()
      const queuedBefore = serversQueued()
      const dbBefore = databaseProcesses(postmaster, adminPid)
      const countsBefore = await databaseCounts()
      const walBefore = memory ? undefined : await walPosition(admin)
      const metricsBefore = await scrapeAll(metricsPorts)
      const backends = instruments ? sampleBackends(admin) : null
      const ownBefore = process.cpuUsage()
      const perf =
        PERF && instruments && !memory && rate === Math.max(...RATES) ? perfRecord(postmaster, adminPid, SECONDS) : null
      const r = await openLoop(rate, SECONDS, `r${rate}`)
      if (TRACE) traced.push({ rate, samples: r.samples })
      if (perf) perfFiles.push({ rate, file: await perf })
      const own = process.cpuUsage(ownBefore)
      const states = (await backends?.stop()) ?? null
      const metricsAfter = await scrapeAll(metricsPorts)
      const countsAfter = await databaseCounts()
      const walAfter = memory ? undefined : await walPosition(admin)
      const walShown =
        walBefore && walAfter
          ? `${((walAfter.lsn - walBefore.lsn) / 2 ** 20).toFixed(0)} / ${walAfter.files - walBefore.files}`
          : '—'
      const serverCpu = serversCpu().all - serverBefore.all
      const serverSystem = serversCpu().system - serverBefore.system
      const serverQueued = serversQueued() - queuedBefore
      const dbRoles = databaseCpuByRole(dbBefore, databaseProcesses(postmaster, adminPid))
      // The database's CPU for the requests: everything but the bench's own sampling backend.
      let dbCpu = 0
      for (const [role, ms] of dbRoles) if (role !== 'bench sampler') dbCpu += ms
      processRows.push(
        `| ${rate} | ${[...ROLES].map((role) => ((dbRoles.get(role) ?? 0) / r.scheduled).toFixed(2)).join(' | ')} |`,
      )
      const all = summary(r.samples)
      const of = (k: Kind) => summary(r.samples.filter((s) => s.kind === k))
      const f = (x: number) => x.toFixed(1)
      const per = (ms: number) => (ms / r.scheduled).toFixed(2)
      console.log(
        `| ${rate} | ${r.scheduled} | ${(r.scheduled / r.doneIn).toFixed(0)} | ${f(all.p50)} | ${f(all.p90)} | ${f(all.p99)} | ${f(all.max)} | ${Object.entries(
          all.statuses,
        )
          .map(([k, v]) => `${k} × ${v}`)
          .join(
            ', ',
          )} | ${f(of('validation').p99)} / ${f(of('redemption').p99)} / ${f(of('order').p99)} | ${per(serverCpu)} (${serverCpu > 0 ? ((100 * serverSystem) / serverCpu).toFixed(0) : 0} %) / ${memory ? '—' : per(dbCpu)} / ${per((own.user + own.system) / 1000)} | ${f(all.lagP99)} | ${walShown} |`,
      )
      {
        const delta = (name: string) => total(metricsAfter, name) - total(metricsBefore, name)
        const gauge = (name: string) => total(metricsAfter, name) * 1000
        const answeredPerSecond = r.scheduled / r.doneIn
        const perRequest = (backendsInState: number) => (backendsInState * 1000) / answeredPerSecond
        const mean = states?.mean ?? new Map<string, number>()
        const shown = [...mean].sort((a, b) => b[1] - a[1])
        const state = (key: string) => mean.get(key) ?? 0
        const locks = shown.filter(([k]) => k.startsWith('Lock:'))
        const lock = locks.reduce((sum, [, n]) => sum + n, 0)
        const lockShown = `${perRequest(lock).toFixed(2)}${locks.length > 0 ? ` (${locks.map(([k, n]) => `${k.slice(5)} ${perRequest(n).toFixed(2)}`).join(', ')})` : ''}`
        const other = shown
          .filter(([k]) => k !== 'running' && k !== 'idle' && !k.startsWith('Lock:'))
          .map(([k, n]) => `${k} ${perRequest(n).toFixed(2)}`)
          .join(', ')
        const clientMean = r.samples.reduce((sum, x) => sum + x.ms, 0) / Math.max(1, r.samples.length)
        const waits = delta('promo_engine_db_pool_wait_seconds_count')
        where.push(
          `| ${rate} | ${f(clientMean)} | ${f((1000 * delta('promo_engine_http_request_duration_seconds_sum')) / delta('promo_engine_http_request_duration_seconds_count'))} | ${waits > 0 ? `${((1000 * delta('promo_engine_db_pool_wait_seconds_sum')) / r.scheduled).toFixed(2)} (${(waits / r.scheduled).toFixed(1)} waits)` : '—'} | ${f(gauge('promo_engine_nodejs_eventloop_lag_p50_seconds'))} / ${f(gauge('promo_engine_nodejs_eventloop_lag_p99_seconds'))} / ${f(gauge('promo_engine_nodejs_eventloop_lag_max_seconds'))} | ${(serverQueued / r.scheduled).toFixed(2)} | ${((1000 * delta('promo_engine_nodejs_gc_duration_seconds_sum')) / r.scheduled).toFixed(2)} | ${memory || !states ? '—' : `${perRequest(state('running')).toFixed(2)} / ${lockShown} / ${other || '—'}`} | ${memory || !states ? '—' : (state('running') + lock + shown.filter(([k]) => k !== 'running' && k !== 'idle' && !k.startsWith('Lock:')).reduce((sum, [, n]) => sum + n, 0)).toFixed(1)} | ${memory || !instruments ? '—' : `${((countsAfter.statements - countsBefore.statements) / r.scheduled).toFixed(2)} / ${countsAfter.sessions - countsBefore.sessions}`} | ${memory || !instruments ? '—' : `${((countsAfter.plans - countsBefore.plans) / r.scheduled).toFixed(2)} / ${((countsAfter.planMs - countsBefore.planMs) / r.scheduled).toFixed(3)}`} |`,
        )
      }
      if (r.failures.size > 0) saturated.push(`${rate}/s: ${[...r.failures].map(([k, v]) => `${k} × ${v}`).join(', ')}`)
      // Past saturation every higher rate only queues longer: the sweep stops at the first rate the
      // server could not answer at (what it answered fell 10 % behind what was scheduled).
      if (r.scheduled / r.doneIn < 0.9 * rate) {
        saturated.push(`saturated at ${rate}/s: higher rates not run`)
        break
      }
      await new Promise((res) => setTimeout(res, 1000))
    }
    if (saturated.length > 0) console.log(`\n${saturated.join('; ')}`)
    console.log(
      `\nWhere a request's time goes: the client's mean latency; the server's mean time from the request to its answer's headers (its request-duration histogram); the wait for a pool connection per request (its pool-wait histogram, absent from older builds); the server's event-loop delay (p50 / p99 / max over the rate); the time its main thread was runnable but waiting for a core, per request (/proc schedstat); its GC time per request; and the database backends serving it, sampled from pg_stat_activity every ~10 ms, as ms per request (Little's law: mean backends in the state / answered per second): on CPU or runnable / waiting on a row or transaction lock / other waits; the mean number of busy backends; the statements the server sent per request (concurrent requests' reads share one) and the database sessions opened during the rate (the pool reconnecting); the server's statements planned per request and their planning time (pg_stat_statements.track_planning: a text new to a connection, or sent unnamed):\n`,
    )
    console.log(
      '| rate/s | client mean ms | server mean ms | pool wait ms/request | event loop delay ms p50 / p99 / max | main thread waiting for a core ms/request | GC ms/request | database ms/request: running / lock waits / other waits | busy backends | statements/request / sessions opened | plans / planning ms per request |',
    )
    console.log('| ---: | ---: | ---: | --- | --- | ---: | ---: | --- | ---: | --- | --- |')
    for (const row of where) console.log(row)
    if (!memory) {
      console.log(
        `\nThe database's CPU by process (ms per request, from /proc: the postmaster's children by their title; "exited" is what children that ended during the rate used, from the postmaster's reaped-children time: autovacuum workers, closed connections):\n`,
      )
      console.log(`| rate/s | ${[...ROLES].join(' | ')} |`)
      console.log(`| ---: | ${[...ROLES].map(() => '---:').join(' | ')} |`)
      for (const row of processRows) console.log(row)
    }
    if (!memory && instruments) {
      const wall = performance.now() - started
      const top = await admin.query(
        `SELECT calls, round(total_exec_time::numeric) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms, toplevel,
                left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query
         FROM pg_stat_statements WHERE query NOT ILIKE '%floor%' AND query NOT ILIKE '%pg_stat%'
         ORDER BY total_exec_time DESC LIMIT 12`,
      )
      const level = await admin.query(
        `SELECT sum(calls) AS calls, round(sum(total_exec_time)::numeric) AS total_ms
         FROM pg_stat_statements WHERE toplevel AND query NOT ILIKE '%floor%' AND query NOT ILIKE '%pg_stat%'`,
      )
      console.log(
        `\nThe database's time during the sweep (${(wall / 1000).toFixed(0)} s of wall time; top-level statements: ${level.rows[0]?.calls} calls, ${level.rows[0]?.total_ms} ms):\n`,
      )
      console.log('| calls | total ms | mean ms | top level | statement |')
      console.log('| ---: | ---: | ---: | --- | --- |')
      for (const r of top.rows)
        console.log(
          `| ${r.calls} | ${r.total_ms} | ${r.mean_ms} | ${r.toplevel ? 'yes' : 'nested'} | \`${String(r.query).replace(/\|/g, '\\|')}\` |`,
        )
      // Round trips: the statements the server sent itself, by calls.
      const trips = await admin.query(
        `SELECT calls, round(mean_exec_time::numeric, 3) AS mean_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query
         FROM pg_stat_statements WHERE toplevel AND query NOT ILIKE '%floor%' AND query NOT ILIKE '%pg_stat%'
           AND query NOT ILIKE '%pg_reload_conf%' AND query NOT ILIKE 'SHOW%'
         ORDER BY calls DESC LIMIT 10`,
      )
      // Levels of reads from requests in flight together are combined into one statement: a text seen
      // a few times only is parsed and planned again at (nearly) every use.
      const distinct = await admin.query(
        `SELECT count(*) AS texts, sum(calls) AS calls, sum(calls) FILTER (WHERE calls <= 5) AS rare
         FROM pg_stat_statements WHERE toplevel AND query NOT ILIKE '%floor%' AND query NOT ILIKE '%pg_stat%'
           AND query NOT ILIKE '%pe_commit%' AND query NOT ILIKE '%pg_reload_conf%' AND query NOT ILIKE 'SHOW%'`,
      )
      const d = distinct.rows[0] as { texts: string; calls: string | null; rare: string | null }
      console.log(
        `\nThe server's other statements (its reads): ${d.calls ?? 0} calls of ${d.texts} distinct texts; ${d.rare ?? 0} calls of texts sent at most 5 times in the sweep (each connection plans a statement's first 5 executions itself)`,
      )
      // Planning (pg_stat_statements.track_planning): the server's statements planned on their
      // connections (a new text, a new connection), the commit function's own statements under it.
      const planning = await admin.query(
        `SELECT toplevel, sum(plans) AS plans, round(sum(total_plan_time)::numeric) AS plan_ms, round(sum(total_exec_time)::numeric) AS exec_ms
         FROM pg_stat_statements WHERE query NOT ILIKE '%floor%' AND query NOT ILIKE '%pg_stat%' GROUP BY toplevel ORDER BY toplevel DESC`,
      )
      console.log(
        `\nPlanning during the sweep: ${planning.rows.map((r) => `${r.toplevel ? 'top-level' : 'nested'} ${r.plans} plans, ${r.plan_ms} ms planning beside ${r.exec_ms} ms executing`).join('; ')}`,
      )
      console.log('\nThe statements the server sent, by calls:\n')
      console.log('| calls | mean ms | statement |')
      console.log('| ---: | ---: | --- |')
      for (const r of trips.rows)
        console.log(`| ${r.calls} | ${r.mean_ms} | \`${String(r.query).replace(/\|/g, '\\|')}\` |`)
      // The rows every request of the mix increments: their locks last until each commit ends.
      const hot = await admin.query(`SELECT id, version FROM "promo_engine".counters ORDER BY version DESC LIMIT 6`)
      console.log(`\nMost incremented counter rows: ${hot.rows.map((r) => `${r.id} (${r.version})`).join(', ')}`)
    }
    if (!memory) {
      // Autovacuum during the session (its workers' CPU is the "exited" column above): which tables, how often.
      const vacuumed = await admin.query(
        `SELECT relname, autovacuum_count AS v, autoanalyze_count AS a, n_live_tup AS live, n_dead_tup AS dead
         FROM pg_stat_user_tables WHERE autovacuum_count + autoanalyze_count > 0 ORDER BY autovacuum_count + autoanalyze_count DESC, relname`,
      )
      console.log(
        `\nAutovacuum during the session (vacuums / analyses, live rows): ${vacuumed.rows.map((r) => `${r.relname} ${r.v}/${r.a} (${r.live})`).join(', ') || 'none'}`,
      )
      // Rows updated in place (docs/postgres.md#rows-updated-in-place): an update that is not HOT
      // writes a new entry in each of its table's indexes and, when its page is full, lands on another.
      const updated = await admin.query(
        `SELECT relname, n_tup_upd AS upd, n_tup_hot_upd AS hot, pg_relation_size(relid) AS heap, pg_indexes_size(relid) AS idx
         FROM pg_stat_user_tables WHERE schemaname = 'promo_engine' AND n_tup_upd > 0 ORDER BY n_tup_upd DESC, relname`,
      )
      console.log(
        `\nUpdates during the session (HOT share; heap and index pages at the end): ${
          updated.rows
            .map(
              (r) =>
                `${r.relname} ${r.upd} (${((100 * Number(r.hot)) / Math.max(1, Number(r.upd))).toFixed(1)} % HOT; ${Number(r.heap) / 8192} / ${Number(r.idx) / 8192})`,
            )
            .join(', ') || 'none'
        }`,
      )
    }
    for (const { rate, file } of perfFiles) summarisePerf(file, rate)
    console.log(`\n(load after: ${uptime()})`)
  } finally {
    await admin.end().catch(() => {})
    agent.destroy()
    agent = new Agent({ keepAlive: true, maxSockets: 512 })
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            if (server.exitCode !== null) return resolve()
            server.once('exit', () => resolve())
            server.kill('SIGTERM')
          }),
      ),
    )
    await pgServer.stop()
  }
  if (TRACE) {
    printTrace(
      traced,
      ports.map((_, k) => traceFile(k)),
      (await machine?.stop()) ?? [],
    )
  }
  if (PROFILE) {
    summariseProfile(profileDir)
    if (process.env.KEEP_PROFILE === '1') console.log(`\n(profile kept in ${profileDir})`)
    else rmSync(profileDir, { recursive: true, force: true })
  }
}

/**
 * TRACE=1: the generator's samples joined with the servers' spans (packages/server/src/trace.ts) by
 * trace id: for each rate, the mean of each phase over the slowest 1 % against the 45th–55th
 * percentiles, and the slowest 1 %'s kinds.
 */
function printTrace(traced: { rate: number; samples: Sample[] }[], files: string[], machine: Reading[]): void {
  const spans = new Map<string, number[]>()
  const gcs: [number, number][] = []
  const gcKinds = new Map<number, [number, number, number]>()
  for (const file of files) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
      rmSync(file, { force: true })
    } catch {
      console.log('\n(no trace written: a build without PROMO_TRACE_FILE)')
      return
    }
    for (const line of text.split('\n')) {
      if (!line) continue
      const row = JSON.parse(line) as [string, ...number[]]
      if (row[0] === 'gc') {
        gcs.push([row[1] as number, row[2] as number])
        const kind = gcKinds.get(row[3] as number) ?? [0, 0, 0]
        gcKinds.set(row[3] as number, [kind[0] + 1, kind[1] + (row[2] as number), Math.max(kind[2], row[2] as number)])
      } else spans.set(row[0], row.slice(1) as number[])
    }
  }
  gcs.sort((a, b) => a[0] - b[0])
  const gcDuring = (from: number, to: number) => {
    let ms = 0
    for (const [at, d] of gcs) if (at < to && at + d > from) ms += Math.min(to, at + d) - Math.max(from, at)
    return ms
  }
  const phases = [
    'total',
    'generator lag',
    'sent → handler',
    'pool wait',
    'reads',
    'commit',
    'handler other',
    'answer → written',
    'written → generator',
    'GC during',
    'in flight at arrival',
  ]
  console.log(
    `\nTrace: where the slowest 1 % of requests spend their time against the median band (means, ms; "reads" and "commit" include their pool waits; "handler other" is the handler's time outside the store, its own CPU and its turns waiting for the event loop; "in flight at arrival": requests the server held when this one reached the handler):\n`,
  )
  const bursts: { rate: number; text: string }[] = []
  console.log(`| rate/s | requests | ${phases.join(' | ')} | kinds |`)
  console.log(`| --- | ---: | ${phases.map(() => '---:').join(' | ')} | --- |`)
  for (const { rate, samples } of traced) {
    const rows = samples
      .filter((s) => s.id !== undefined && spans.has(s.id))
      .map((s) => {
        const [arrive = 0, reads = 0, , commit = 0, poolWait = 0, , answered = 0, written = 0] = spans.get(
          s.id as string,
        ) as number[]
        return { s, arrive, reads, commit, poolWait, answered, written }
      })
      .sort((a, b) => a.s.ms - b.s.ms)
    if (rows.length === 0) continue
    const band = (label: string, from: number, to: number) => {
      const part = rows.slice(
        Math.floor(from * rows.length),
        Math.max(Math.floor(from * rows.length) + 1, Math.floor(to * rows.length)),
      )
      const mean = (f: (r: (typeof part)[number]) => number) =>
        (part.reduce((sum, r) => sum + f(r), 0) / part.length).toFixed(1)
      const kinds = new Map<string, number>()
      for (const r of part) kinds.set(r.s.kind, (kinds.get(r.s.kind) ?? 0) + 1)
      const cells = [
        mean((r) => r.s.ms),
        mean((r) => r.s.lag),
        mean((r) => r.arrive - (r.s.sent ?? 0)),
        mean((r) => r.poolWait),
        mean((r) => r.reads),
        mean((r) => r.commit),
        mean((r) => r.answered - r.arrive - r.reads - r.commit),
        mean((r) => (r.written > 0 ? r.written - r.answered : 0)),
        mean((r) => (r.s.received ?? 0) - (r.written > 0 ? r.written : r.answered)),
        mean((r) => gcDuring(r.arrive, r.written > 0 ? r.written : r.answered)),
        mean((r) => rows.filter((o) => o.arrive < r.arrive && (o.written || o.answered) > r.arrive).length),
      ]
      console.log(
        `| ${rate} ${label} | ${part.length} | ${cells.join(' | ')} | ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')} |`,
      )
    }
    band('p45–p55', 0.45, 0.55)
    band('slowest 1 %', 0.99, 1)
    bursts.push({
      rate,
      text: burstsOf(
        rows.map((r) => r.s),
        machine,
      ),
    })
  }
  // A tail made by a few stalls (many requests scheduled within a moment of each other, all late
  // together) reads differently from one spread over the run (queueing at every moment).
  console.log(
    "\nThe slowest 1 % by when they were scheduled (bursts: requests less than 250 ms apart; seconds into the rate, requests; in brackets what the machine probe saw from the burst's first scheduled start to its last answer: its timer's worst lateness, the hypervisor's steal, its worst `fdatasync`, bench/machine-probe.ts):\n",
  )
  for (const { rate, text } of bursts) console.log(`- ${rate}/s: ${text}`)
  if (machine.length > 0)
    console.log(`\nMachine probe over the session (the floors, the warm-up and the rates): ${probeSummary(machine)}`)
  const gcTotal = gcs.reduce((sum, [, d]) => sum + d, 0)
  const longest = gcs.reduce((m, [, d]) => Math.max(m, d), 0)
  // Node's kinds: 1 scavenge (young generation), 2 mark-compact, 4 incremental marking, 8 weak callbacks.
  const kindName = (k: number) =>
    ({ 1: 'scavenge', 2: 'mark-compact', 4: 'incremental marking', 8: 'weak callbacks' })[k] ?? `kind ${k}`
  const byKind = [...gcKinds].map(
    ([k, [n, ms, max]]) => `${kindName(k)} ${n}, ${ms.toFixed(0)} ms, longest ${max.toFixed(1)}`,
  )
  console.log(
    `\nGC over the whole session: ${gcs.length} pauses, ${gcTotal.toFixed(0)} ms, longest ${longest.toFixed(1)} ms (${byKind.join('; ')})`,
  )
}

/**
 * The slowest 1 % of a rate's samples grouped into bursts of scheduled starts less than 250 ms apart,
 * each with the machine probe's worst from its first scheduled start to its last answer.
 */
function burstsOf(samples: readonly Sample[], machine: readonly Reading[]): string {
  const start = Math.min(...samples.map((s) => s.at ?? Number.POSITIVE_INFINITY))
  const slow = [...samples].sort((a, b) => a.ms - b.ms).slice(Math.floor(0.99 * samples.length))
  const byStart = slow.map((s) => ({ at: s.at ?? start, end: (s.at ?? start) + s.ms })).sort((a, b) => a.at - b.at)
  const groups: { at: number; end: number }[][] = []
  for (const s of byStart) {
    const last = groups.at(-1)
    if (last && s.at - (last.at(-1) as { at: number }).at < 250) last.push(s)
    else groups.push([s])
  }
  const largest = groups.reduce((m, g) => Math.max(m, g.length), 0)
  const probe = (g: { at: number; end: number }[]) => {
    if (machine.length === 0) return ''
    const w = worstBetween(machine, (g[0] as { at: number }).at, Math.max(...g.map((s) => s.end)))
    return ` [late ${w.lateMs.toFixed(0)}, steal ${w.stealMs}, flush ${w.flushMs.toFixed(0)} ms]`
  }
  const shown = groups
    .map((g) => `${(((g[0] as { at: number }).at - start) / 1000).toFixed(1)} s (${g.length})${probe(g)}`)
    .join(', ')
  return `${slow.length} requests in ${groups.length} bursts, the largest ${largest} (the rate began ${new Date(start).toISOString().slice(11, 23)}): ${shown}`
}

async function main(): Promise<void> {
  const memory = process.env.STORE === 'memory'
  if (!process.env.BUILDS) execSync('npm run --silent build:server', { stdio: 'inherit' })
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; ${new Date().toISOString()}; Node ${process.version}; ${SECONDS} s per rate; mix validations:redemptions:orders ${MIX.join(':')}${memory ? '; MEMORY store' : ''}${process.env.PROGRAM === 'none' ? '; no loyalty program' : ''}${process.env.POOL ? `; pool ${process.env.POOL}` : ''}${PROFILE ? '; server under --cpu-prof' : ''}`,
  )
  // Each fsync setting with every build in turn, each on a fresh database: the builds see the same load.
  for (const fsync of memory ? ['off'] : FSYNC)
    for (const instruments of memory ? ['off'] : INSTRUMENTS)
      for (let round = 0; round < REPEAT; round++)
        for (const wal of memory ? ['fresh'] : WAL)
          for (const build of builds()) await session(fsync, build, memory, instruments === 'on', wal)
}

await main()
