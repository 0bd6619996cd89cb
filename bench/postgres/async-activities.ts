import { execSync } from 'node:child_process'
import pg from 'pg'
import { createEngine } from '../../src/index'
import { createPostgresStore } from '../../src/postgres/index'
import { startEmbedded } from '../../test/postgres/embedded'

/*
 * `npx tsx bench/postgres/async-activities.ts` (not a test; docs/postgres.md#asynchronous-activity-commits):
 * a one-line validation from one client, on one embedded PostgreSQL 17 with fsync on (the default a
 * production server runs), with the store's `asyncActivities` off and on, alternating in rounds
 * (`ASYNC_ROUNDS` × `ASYNC_N`); then `ASYNC_N` more per setting, each alone, with the WAL syncs the
 * server counted (pg_stat_wal). Per setting: the client's p50 and mean, and WAL syncs per validation.
 */

const N = Number(process.env.ASYNC_N ?? 200)
const ROUNDS = Number(process.env.ASYNC_ROUNDS ?? 6)
const server = await startEmbedded({})
const pool = new pg.Pool({ connectionString: server.url, max: 2 }).on('error', () => {})
try {
  await pool.query('ALTER SYSTEM SET fsync = on')
  await pool.query('ALTER SYSTEM SET synchronous_commit = on')
  await pool.query('SELECT pg_reload_conf()')
  const setups = [false, true].map((asyncActivities) => {
    const store = createPostgresStore({ pool, asyncActivities })
    return { asyncActivities, store, engine: createEngine({ store }), times: [] as number[], syncs: 0 }
  })
  await setups[0]?.store.migrate()
  await setups[0]?.engine.raw.vouchers.create({
    code: 'V',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
  })
  const body = {
    redeemables: [{ object: 'voucher' as const, id: 'V' }],
    order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
    customer: { source_id: 'validating' },
  }
  // A validation records its activity only for a customer that exists (it creates none).
  await setups[0]?.engine.raw.customers.create({ source_id: 'validating' })
  for (const s of setups) for (let i = 0; i < 20; i++) await s.engine.raw.validations.validateStackable(body)
  const walSyncs = async () => Number((await pool.query('SELECT wal_sync FROM pg_stat_wal')).rows[0].wal_sync)
  const load = execSync('uptime').toString().trim()
  const commits0 = setups.map((s) => s.store.stats.commits)
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 ? [...setups].reverse() : setups) {
      for (let i = 0; i < N; i++) {
        const t = performance.now()
        await s.engine.raw.validations.validateStackable(body)
        s.times.push(performance.now() - t)
      }
    }
  }
  // WAL syncs, per setting in a phase of its own: a backend reports its counts when idle, within 10 s.
  const settle = () => new Promise((r) => setTimeout(r, 11_000))
  const commits = setups.map((s, i) => (s.store.stats.commits - (commits0[i] ?? 0)) / (ROUNDS * N))
  for (const s of setups) {
    await settle()
    const before = await walSyncs()
    for (let i = 0; i < N; i++) await s.engine.raw.validations.validateStackable(body)
    await settle()
    s.syncs = ((await walSyncs()) - before) / N
  }
  console.log(
    `${new Date().toISOString()}; fsync on; ${ROUNDS} × ${N} validations per setting, alternating; load: ${load}\n`,
  )
  console.log('| asyncActivities | p50 ms | mean ms | commits per validation | WAL syncs per validation |')
  console.log('| --- | ---: | ---: | ---: | ---: |')
  for (const [i, s] of setups.entries()) {
    const t = s.times.sort((a, b) => a - b)
    console.log(
      `| ${s.asyncActivities} | ${(t[Math.floor(t.length / 2)] ?? 0).toFixed(2)} | ${(t.reduce((a, x) => a + x, 0) / t.length).toFixed(2)} | ${(commits[i] ?? 0).toFixed(2)} | ${s.syncs.toFixed(2)} |`,
    )
  }
} finally {
  await pool.end()
  await server.stop()
}
