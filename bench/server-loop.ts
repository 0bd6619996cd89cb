import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort, startEmbedded } from '../test/postgres/embedded'
import { cpuSplit, databaseCpuByRole, databaseProcesses, host, procStat } from './open-loop-probes'

/*
 * `npx tsx bench/server-loop.ts`: the reference server's CPU per request on PostgreSQL (fsync off), in
 * a closed loop of C concurrent requests (validation, redemption and paid order of new customers, in
 * turn), read from /proc before and after each window of N requests: user and kernel time of every
 * thread of the process (the main thread, V8's compiler and collector threads). Closed, not open: how
 * many requests are in flight stays fixed whatever the machine's load, so CPU per request stays
 * comparable on a shared machine, where bench/open-loop.ts's latencies do not. Each build starts on a
 * fresh database, builds alternate round by round, and successive windows of one server show its
 * warm-up (V8 still compiling the engine's code, docs/http.md#cpu-per-request).
 *
 * Environment: BUILDS (`label=path/to/cli.js[!--node-flag…],…`, default this checkout's built
 * server), ROUNDS (3), N requests per window (1500), WINDOWS per server (1), C (4), WARMUP requests
 * before the first window (600), PERF=1 (`perf record` of each window, and the share of the samples
 * in V8's optimising compiler; run the build with `!--perf-basic-prof` to name JavaScript frames).
 *
 * KINDS=get sends `GET /v1/vouchers/PUBLIC` only (authentication and one read: what a request costs
 * beside its operation's own work).
 *
 * Each window also reads the database's CPU per request (its processes from /proc, the bench's own
 * connection left out: the server's connections, and all of them) and, with STATEMENTS=1 (the
 * database then runs pg_stat_statements), the server's top-level statements per request.
 */

const N = Number(process.env.N ?? 1500)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const WINDOWS = Number(process.env.WINDOWS ?? 1)
const C = Number(process.env.C ?? 4)
const WARMUP = Number(process.env.WARMUP ?? 600)
const PERF = process.env.PERF === '1'
const STATEMENTS = process.env.STATEMENTS === '1'
const APP = { 'X-App-Id': 'load-app', 'X-App-Token': 'load-secret-of-the-bench-24chars' }
const builds = (process.env.BUILDS ?? 'this=packages/server/dist/cli.js').split(',').map((spec) => {
  const [label = '', ...rest] = spec.split('=')
  const [cli = '', ...flags] = rest.join('=').split('!')
  return { label, cli, flags }
})

function send(agent: Agent, port: number, method: string, path: string, body?: unknown): Promise<string> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const headers = {
      ...APP,
      ...(payload === undefined
        ? {}
        : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
    }
    const req = request({ host, port, method, path, agent, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
      })
      res.on('end', () =>
        (res.statusCode ?? 0) < 300 ? resolve(text) : reject(new Error(`${path}: ${res.statusCode} ${text}`)),
      )
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/** Seconds of the main thread's GC pauses so far, by kind, from the server's /metrics. */
async function gcSeconds(metricsPort: number): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    request({ host, port: metricsPort, path: '/metrics' }, (res) => {
      let t = ''
      res.on('data', (c) => {
        t += c
      })
      res.on('end', () => resolve(t))
    })
      .on('error', reject)
      .end()
  })
  let sum = 0
  for (const m of text.matchAll(/^promo_engine_nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm)) sum += Number(m[1])
  return sum
}

/** The share of a perf recording's samples whose leaf frame is in V8's optimising compiler. */
function compilerShare(file: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const child = spawn('perf', ['script', '-i', file, '-F', 'tid,ip,sym'], { stdio: ['ignore', 'pipe', 'ignore'] })
    let all = 0
    let compiler = 0
    let leaf = false
    let rest = ''
    const line = (l: string) => {
      if (/^\s*\d+\s*$/.test(l)) {
        leaf = true
        all++
      } else if (leaf && l.trim() !== '') {
        leaf = false
        if (/compiler::|Pipeline|Turbofan|RegisterAllocator|LiveRange/.test(l)) compiler++
      }
    }
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n')
      rest = lines.pop() ?? ''
      for (const l of lines) line(l)
    })
    child.on('close', () => resolve(all === 0 ? '—' : `${((100 * compiler) / all).toFixed(1)} %`))
  })
}

const rows: {
  label: string
  window: number
  cpu: number
  system: number
  dbServer: number
  dbAll: number
  statements: number | undefined
  gc: number
  rate: number
  compiler: string
}[] = []
let customer = 0
const order = { amount: 10_000, items: [{ source_id: 'shoe', quantity: 2 }] }
const redeemables = [{ object: 'voucher', id: 'PUBLIC' }]

for (let round = 0; round < ROUNDS; round++) {
  for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
    const database = await startEmbedded({
      fsync: 'off',
      ...(STATEMENTS ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top' } : {}),
    })
    // The bench's own connection: finds the postmaster, reads the statements, and is left out of the CPU.
    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    const adminPid = Number((await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid)
    const postmaster = procStat(adminPid)?.ppid ?? 0
    if (STATEMENTS) await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
    const statements = async () =>
      STATEMENTS
        ? Number(
            (
              await admin.query<{ n: string }>(
                `SELECT coalesce(sum(calls), 0) AS n FROM pg_stat_statements WHERE toplevel AND query NOT ILIKE '%pg_stat%' AND query NOT ILIKE '%pg_backend_pid%'`,
              )
            ).rows[0]?.n,
          )
        : 0
    const port = await freePort()
    let metricsPort = await freePort()
    while (metricsPort === port) metricsPort = await freePort()
    const server = spawn(process.execPath, [...build.flags, build.cli, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        PORT: String(port),
        HOST: host,
        PROMO_APP_ID: APP['X-App-Id'],
        PROMO_APP_SECRET: APP['X-App-Token'],
        PROMO_METRICS_PORT: String(metricsPort),
        PROMO_FILES_SECRET: 'bench-load-files-secret-0123456789abcdef',
      },
      // A log line per request as in production, thrown away.
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const agent = new Agent({ keepAlive: true, maxSockets: C })
    for (;;) {
      if (
        await send(agent, port, 'GET', '/readyz').then(
          () => true,
          () => false,
        )
      )
        break
      await new Promise((r) => setTimeout(r, 200))
    }
    await send(agent, port, 'POST', '/v1/products', { name: 'Shoe', source_id: 'shoe', price: 5000 })
    await send(agent, port, 'POST', '/v1/vouchers', {
      code: 'PUBLIC',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
    })
    const kinds = [
      () =>
        send(agent, port, 'POST', '/v1/validations', { customer: { source_id: `c${customer++}` }, order, redeemables }),
      () =>
        send(agent, port, 'POST', '/v1/redemptions', { customer: { source_id: `c${customer++}` }, order, redeemables }),
      () =>
        send(agent, port, 'POST', '/v1/orders', {
          customer: { source_id: `c${customer++}` },
          status: 'PAID',
          ...order,
        }),
    ]
    if (process.env.KINDS === 'get')
      kinds.splice(0, kinds.length, () => send(agent, port, 'GET', '/v1/vouchers/PUBLIC'))
    let k = 0
    const loop = async (count: number) => {
      let left = count
      await Promise.all(
        Array.from({ length: C }, async () => {
          while (left-- > 0) await (kinds[k++ % kinds.length] as () => Promise<string>)()
        }),
      )
    }
    await loop(WARMUP)
    for (let window = 0; window < WINDOWS; window++) {
      const file = join(tmpdir(), `server-loop-${process.pid}-${round}-${window}.data`)
      const perf = PERF
        ? spawn('perf', ['record', '-F', '499', '-g', '-o', file, '-p', String(server.pid)], { stdio: 'ignore' })
        : undefined
      if (perf) await new Promise((r) => setTimeout(r, 500))
      const gc0 = await gcSeconds(metricsPort)
      const statements0 = await statements()
      const db0 = databaseProcesses(postmaster, adminPid)
      const before = cpuSplit(server.pid)
      const started = performance.now()
      await loop(N)
      const after = cpuSplit(server.pid)
      const seconds = (performance.now() - started) / 1000
      const dbRoles = databaseCpuByRole(db0, databaseProcesses(postmaster, adminPid))
      const statements1 = await statements()
      const gc1 = await gcSeconds(metricsPort)
      let compiler = '—'
      if (perf) {
        perf.kill('SIGINT')
        await new Promise((r) => perf.once('exit', r))
        compiler = await compilerShare(file)
        rmSync(file, { force: true })
      }
      if (!before || !after) throw new Error('no /proc: this bench reads the server CPU from Linux /proc')
      const row = {
        label: build.label,
        window,
        cpu: (after.user + after.system - before.user - before.system) / N,
        system: (after.system - before.system) / N,
        dbServer: (dbRoles.get("server's connections") ?? 0) / N,
        dbAll: [...dbRoles].filter(([role]) => role !== 'bench sampler').reduce((sum, [, ms]) => sum + ms, 0) / N,
        statements: STATEMENTS ? (statements1 - statements0) / N : undefined,
        gc: ((gc1 - gc0) * 1000) / N,
        rate: N / seconds,
        compiler,
      }
      rows.push(row)
      console.log(
        `${row.label} round ${round} window ${window}: ${row.cpu.toFixed(3)} ms/request, database ${row.dbAll.toFixed(3)}${row.statements === undefined ? '' : `, ${row.statements.toFixed(3)} statements`} (load ${loadavg()[0]?.toFixed(1)})`,
      )
    }
    agent.destroy()
    server.kill('SIGTERM')
    await new Promise((r) => server.once('exit', r))
    await admin.end()
    await database.stop()
  }
}

console.log(
  `\nServer CPU per request, PostgreSQL fsync off, closed loop of ${C}, ${N} requests a window after ${WARMUP} (${process.env.KINDS === 'get' ? 'GET /v1/vouchers/PUBLIC' : 'validation, redemption, paid order in turn'}); load average now ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
)
console.log(
  "| build | window | CPU ms/request | of which kernel | database CPU ms/request (server's connections / all) | statements/request | GC pauses ms/request | requests/s | compiler share (perf) |",
)
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const r of rows)
  console.log(
    `| ${r.label} | ${r.window} | ${r.cpu.toFixed(3)} | ${r.system.toFixed(3)} | ${r.dbServer.toFixed(3)} / ${r.dbAll.toFixed(3)} | ${r.statements === undefined ? '—' : r.statements.toFixed(3)} | ${r.gc.toFixed(3)} | ${r.rate.toFixed(0)} | ${r.compiler} |`,
  )
for (const build of builds) {
  for (let window = 0; window < WINDOWS; window++) {
    const of = (pick: (r: (typeof rows)[number]) => number) =>
      rows
        .filter((r) => r.label === build.label && r.window === window)
        .map(pick)
        .sort((a, b) => a - b)
    const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]?.toFixed(3)
    const cpus = of((r) => r.cpu)
    const dbs = of((r) => r.dbAll)
    console.log(
      `${build.label}, window ${window}: median ${median(cpus)} ms/request (${cpus.map((c) => c.toFixed(2)).join(', ')}); database median ${median(dbs)} (${dbs.map((c) => c.toFixed(2)).join(', ')})${STATEMENTS ? `; statements median ${median(of((r) => r.statements ?? 0))}` : ''}`,
    )
  }
}
