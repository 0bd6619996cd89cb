import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { JsonRowQuery } from '../../src/postgres/connection'
import { namer } from '../../src/postgres/read-batching'
import { startEmbedded } from '../../test/postgres/embedded'
import { recordPerf } from '../open-loop-probes'
import { buildsBeside } from './floor'

/*
 * `npx tsx bench/postgres/read-replay.ts <earlier dist>` (not a test; docs/postgres.md#loads): the
 * database's CPU for the READ statements of a one-line validation and redemption, this checkout's
 * against an earlier build's, on one server. Each build's engine runs a few validations and
 * redemptions of one code for one known customer (hinted: steady state) and for new customers, and the
 * read statements of the last of each are kept (text and parameters). They are then replayed as prepared statements
 * (bound and executed, as the store sends them) `READ_N` times per round from one connection, the
 * builds alternating round by round (`READ_ROUNDS`), with `SELECT 1` as a floor of what any statement
 * costs. Per statement: the backend's CPU time (/proc/<pid>/schedstat, read around each
 * block of executions: what the database spends, whoever else holds the cores) and the client's p50.
 * `PLAN_MODE` sets `plan_cache_mode` on the replaying connection (`force_custom_plan`: every
 * execution planned again, so the difference is what planning costs). `READ_PERF=<file>`: instead,
 * `perf record -g` samples the backend for `PERF_SECONDS` (8) while it replays this build's
 * redemption reads, then prints `perf report` (`READ_PERF_KIND=validate` for the validation's).
 */

/**
 * The backend's CPU time so far, ms: the scheduler's count of nanoseconds on a core
 * (/proc/<pid>/schedstat), where /proc/<pid>/stat counts whole 10 ms ticks.
 */
function cpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
}

const N = Number(process.env.READ_N ?? 2000)
const ROUNDS = Number(process.env.READ_ROUNDS ?? 6)
const PLAN_MODE = process.env.PLAN_MODE
const earlier = process.argv[2]
if (!earlier) throw new Error('usage: read-replay.ts <earlier dist>')

interface Captured {
  text: string
  values: unknown[]
}

const server = await startEmbedded()
const pool = new pg.Pool({ connectionString: server.url, max: 2 }).on('error', () => {})
try {
  const builds = buildsBeside(earlier)
  /** Per build and kind, the read statements of the last operation. */
  const levels: { label: string; kind: string; reads: Captured[] }[] = []
  for (const b of builds) {
    const { createPostgresStore } = (await import(b.mod)) as typeof import('../../src/postgres/index')
    const { createEngine } = (await import(
      b.mod.replace('postgres/index.ts', 'index.ts').replace('postgres.js', 'index.js')
    )) as typeof import('../../src/index')
    let captured: Captured[] = []
    const recording = {
      query: (q: { text?: string; values?: unknown[] }, v?: never) => {
        if (typeof q === 'object' && q.text !== undefined && !q.text.includes('pe_commit('))
          captured.push({ text: q.text, values: q.values ?? [] })
        return pool.query(q as never, v)
      },
      connect: () => pool.connect(),
      end: async () => undefined,
    }
    const store = createPostgresStore({ pool: recording as never, schema: b.schema })
    await store.migrate()
    const engine = createEngine({ store })
    await engine.raw.vouchers.create({
      code: 'D0',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
    })
    await engine.raw.customers.create({ source_id: 'read-0' })
    const body = {
      redeemables: [{ object: 'voucher' as const, id: 'D0' }],
      order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
      customer: { source_id: 'read-0' },
    }
    // A known customer's, and a new customer's (the open loop's: every request a customer not seen
    // before, whose statement PostgreSQL may keep planning at every execution).
    let k = 0
    const fresh = () => ({ ...body, customer: { source_id: `read-new-${k++}` } })
    for (const [kind, op] of [
      ['validate', () => engine.raw.validations.validateStackable(body)],
      ['redeem', () => engine.raw.redemptions.redeemStackable(body)],
      ['validate, new customer', () => engine.raw.validations.validateStackable(fresh())],
      ['redeem, new customer', () => engine.raw.redemptions.redeemStackable(fresh())],
    ] as const) {
      for (let i = 0; i < 8; i++) {
        captured = []
        await op()
      }
      levels.push({ label: b.label, kind, reads: captured })
    }
  }
  const named = namer()
  const client = await pool.connect()
  const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p as number
  if (PLAN_MODE) await client.query(`SET plan_cache_mode = ${PLAN_MODE}`)
  const run = (c: Captured) => client.query(new JsonRowQuery(named(c.text) ?? '', c.text, c.values) as never)
  const floor: Captured = { text: 'SELECT 1', values: [] }
  const all = [
    ...levels.map((l) => ({ name: `${l.label}: ${l.kind}`, reads: l.reads })),
    { name: 'SELECT 1', reads: [floor] },
  ]
  for (const x of all) for (let i = 0; i < 20; i++) for (const c of x.reads) await run(c)
  if (process.env.READ_PERF) {
    const out = process.env.READ_PERF
    const reads = levels.find((l) => l.label === 'this build' && l.kind === (process.env.READ_PERF_KIND ?? 'redeem'))
    let done = false
    const recorded = recordPerf({
      pids: [pid],
      file: out,
      seconds: process.env.PERF_SECONDS ?? '8',
      ...(process.env.PERF_CALLGRAPH ? { callGraph: process.env.PERF_CALLGRAPH } : { callGraph: 'fp' }),
      verbose: true,
    }).finally(() => {
      done = true
    })
    let n = 0
    while (!done) {
      for (const c of reads?.reads ?? []) await run(c)
      n++
    }
    console.log(`${n} executions while sampled${(await recorded) ? '' : ' (perf failed)'}`)
    client.release()
  } else {
    const cpu = new Map<string, number>()
    const times = new Map<string, number[]>()
    const load = execSync('uptime').toString().trim()
    for (let round = 0; round < ROUNDS; round++) {
      for (const x of round % 2 ? [...all].reverse() : all) {
        const t = times.get(x.name) ?? []
        times.set(x.name, t)
        const c0 = cpuMs(pid)
        for (let i = 0; i < N; i++) {
          const t0 = performance.now()
          for (const c of x.reads) await run(c)
          t.push(performance.now() - t0)
        }
        cpu.set(x.name, (cpu.get(x.name) ?? 0) + cpuMs(pid) - c0)
      }
    }
    client.release()
    console.log(
      `${new Date().toISOString()}; ${ROUNDS} rounds × ${N} per operation's reads${PLAN_MODE ? `; plan_cache_mode = ${PLAN_MODE}` : ''}\n(load before: ${load}; after: ${execSync('uptime').toString().trim()})\n`,
    )
    console.log('| reads of | statements | reads | backend CPU µs per operation | client p50 µs |')
    console.log('| --- | ---: | ---: | ---: | ---: |')
    for (const x of all) {
      const t = (times.get(x.name) as number[]).sort((a, b) => a - b)
      const reads = x.reads.reduce((s, c) => s + (c.text.match(/ AS r\d+/g)?.length ?? 0), 0)
      console.log(
        `| ${x.name} | ${x.reads.length} | ${reads} | ${(((cpu.get(x.name) ?? 0) / t.length) * 1000).toFixed(1)} | ${((t[Math.floor(t.length / 2)] ?? 0) * 1000).toFixed(0)} |`,
      )
    }
    if (process.env.READ_SHOW)
      for (const l of levels)
        for (const c of l.reads) console.log(`\n${l.label} ${l.kind}: ${c.text}\n${JSON.stringify(c.values)}`)
  }
} finally {
  await pool.end().catch(() => {})
  await server.stop()
}
