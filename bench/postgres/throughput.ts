import { fork } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { createEngine } from '../../src/engine'
import { createMemoryStore } from '../../src/memory'
import { createPostgresStore } from '../../src/postgres'
import { server } from './server'

/*
 * `npx tsx bench/postgres/throughput.ts` (not a test): validate and redeem per second on PostgreSQL
 * with 1, 2 and 4 processes, on distinct codes (one per process) and on one hot code, beside the
 * memory store in one process; then the queries one validation and one redemption cost as the data
 * grows (flat cost). Uses PROMO_PG_URL when set, else starts an embedded PostgreSQL (default settings
 * but fsync off: the figures measure the engine and the round trips, not the disk; `BENCH_FSYNC=on`
 * for the disk too).
 */

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4)
const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url))

const voucher = (code: string) => ({
  code,
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
})

interface Tally {
  ops: number
  success: number
  refused: number
  conflict: number
  commits: number
  queries: number
  ms: number
}

function run(url: string, op: string, code: string): Promise<Tally> {
  return new Promise((resolve, reject) => {
    const child = fork(WORKER, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, PG_URL: url, OP: op, CODE: code, BENCH_SECONDS: String(SECONDS) },
    })
    child.once('message', (m) => resolve(m as Tally))
    child.once('error', reject)
  })
}

function row(label: string, tallies: Tally[]): string {
  const sum = (k: keyof Tally) => tallies.reduce((n, t) => n + t[k], 0)
  const seconds = Math.max(...tallies.map((t) => t.ms)) / 1000
  const perSuccess = sum('success') > 0 ? (sum('commits') / sum('success')).toFixed(2) : '—'
  return `| ${label} | ${(sum('ops') / seconds).toFixed(0)} | ${sum('success')} | ${sum('refused')} | ${sum('conflict')} | ${perSuccess} | ${(sum('queries') / Math.max(1, sum('ops'))).toFixed(1)} |`
}

async function main(): Promise<void> {
  const { url, stop } = await server()
  const admin = new pg.Pool({ connectionString: url, max: 2 })
  // The embedded server stops at the end: its idle connections' errors are expected.
  admin.on('error', () => {})
  const setup = createPostgresStore({ pool: admin })
  await setup.migrate()
  const engine = createEngine({ store: setup })
  for (let i = 0; i < 4; i++) await engine.raw.vouchers.create(voucher(`D${i}`))
  await engine.raw.vouchers.create(voucher('HOT'))

  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; load average ${loadavg()[0]?.toFixed(1)}; ${new Date().toISOString().slice(0, 10)}; Node ${process.version}; fsync ${(await admin.query('SHOW fsync')).rows[0].fsync}`,
  )
  console.log(`${SECONDS} s per row\n`)
  console.log('| store, op, processes, codes | ops/s | successes | refusals | 409s | commits/success | queries/op |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
  // The memory store, in one process, one request at a time.
  for (const op of ['validate', 'redeem']) {
    const store = createMemoryStore()
    const mem = createEngine({ store })
    await mem.raw.vouchers.create(voucher('M'))
    const body = {
      redeemables: [{ object: 'voucher', id: 'M' }],
      order: { amount: 10_000 },
      customer: { source_id: 'bench' },
    }
    const tally: Tally = { ops: 0, success: 0, refused: 0, conflict: 0, commits: 0, queries: 0, ms: 0 }
    const start = Date.now()
    const commits0 = store.stats.commits
    while (Date.now() - start < SECONDS * 1000) {
      const ok =
        op === 'validate'
          ? (await mem.raw.validations.validateStackable(body)).valid
          : (await mem.raw.redemptions.redeemStackable(body)).parent_redemption.result === 'SUCCESS'
      tally.ops++
      if (ok) tally.success++
      else tally.refused++
    }
    tally.ms = Date.now() - start
    tally.commits = store.stats.commits - commits0
    console.log(row(`memory, ${op}, 1, one`, [tally]))
  }
  for (const op of ['validate', 'redeem']) {
    for (const procs of [1, 2, 4]) {
      for (const hot of [false, true]) {
        const tallies = await Promise.all(Array.from({ length: procs }, (_, i) => run(url, op, hot ? 'HOT' : `D${i}`)))
        console.log(row(`postgres, ${op}, ${procs}, ${hot ? 'one hot' : 'distinct'}`, tallies))
      }
    }
  }

  // Flat cost: queries per operation as a customer's history and a campaign's codes grow.
  console.log('\n| earlier redemptions of the code and customer | queries per validate | queries per redeem |')
  console.log('| ---: | ---: | ---: |')
  let done = 0
  await engine.raw.vouchers.create(voucher('FLAT'))
  const body = {
    redeemables: [{ object: 'voucher', id: 'FLAT' }],
    order: { amount: 10_000 },
    customer: { source_id: 'flat' },
  }
  for (const target of [0, 10, 100, 1000]) {
    for (; done < target; done++) await engine.raw.redemptions.redeemStackable(body)
    let q = setup.stats.queries
    await engine.raw.validations.validateStackable(body)
    const validateQueries = setup.stats.queries - q
    q = setup.stats.queries
    await engine.raw.redemptions.redeemStackable(body)
    done++
    console.log(`| ${target} | ${validateQueries} | ${setup.stats.queries - q} |`)
  }
  await admin.end()
  await stop()
}

await main()
