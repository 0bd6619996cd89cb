import { cpus, loadavg } from 'node:os'
import pg from 'pg'
import { createEngine } from '../../src/engine'
import { createPostgresStore, planGenerically } from '../../src/postgres'
import { AMOUNT_OFF, oneLineRedemption } from './one-line'
import { server } from './server'

/*
 * `npx tsx bench/postgres/updated-in-place.ts` (not a test; docs/postgres.md#rows-updated-in-place):
 * one code redeemed N (1,500) times, one request at a time, in two schemas of this checkout: one as
 * `migrate()` makes it (`vouchers` with `fillfactor = 80`) and one with the table's `fillfactor`
 * reset to PostgreSQL's default, the two taking turns in blocks of 100 redemptions. Reports per
 * schema the share of the code's updates that were HOT (`pg_stat_user_tables`), the pages of
 * `vouchers` and of its indexes at the end, and the redemption's p50. fsync off unless
 * `BENCH_FSYNC=on`; autovacuum as the server has it.
 */

const N = Number(process.env.N ?? 1500)
const BLOCK = 100

const pgServer = await server()
const admin = new pg.Pool({ connectionString: pgServer.url, max: 2 })
try {
  const setups = [
    { label: 'fillfactor 80 (migrate)', schema: 'ff_migrated', reset: false },
    { label: 'default fillfactor', schema: 'ff_default', reset: true },
  ]
  const runs = []
  for (const s of setups) {
    const pool = new pg.Pool({ connectionString: pgServer.url, max: 2 })
    planGenerically(pool)
    const store = createPostgresStore({ pool, schema: s.schema })
    await store.migrate()
    if (s.reset) await admin.query(`ALTER TABLE ${s.schema}.vouchers RESET (fillfactor)`)
    const engine = createEngine({ store })
    await engine.raw.vouchers.create({ code: 'HOT', ...AMOUNT_OFF })
    const body = oneLineRedemption('HOT', 'customer-1')
    await engine.raw.redemptions.redeemStackable(body)
    runs.push({ ...s, pool, store, redeem: () => engine.raw.redemptions.redeemStackable(body), ms: [] as number[] })
  }
  const stats = async (schema: string) =>
    (
      await admin.query(
        `SELECT n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot, pg_relation_size(relid)::int AS heap,
           pg_indexes_size(relid)::int AS indexes FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'vouchers'`,
        [schema],
      )
    ).rows[0]
  const before = new Map<string, { upd: number; hot: number }>()
  await new Promise((r) => setTimeout(r, 1000))
  for (const r of runs) before.set(r.schema, await stats(r.schema))
  for (let done = 0; done < N; done += BLOCK) {
    for (const r of done % (2 * BLOCK) === 0 ? runs : [...runs].reverse()) {
      for (let i = 0; i < BLOCK; i++) {
        const t = performance.now()
        await r.redeem()
        r.ms.push(performance.now() - t)
      }
    }
  }
  // A backend reports its statistics when it ends (an idle one only every few seconds): the pools
  // are closed before the views are read.
  for (const r of runs) {
    await r.store.close()
    await r.pool.end()
  }
  await new Promise((r) => setTimeout(r, 1000))
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; ${new Date().toISOString()}; Node ${process.version}; load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; fsync ${process.env.BENCH_FSYNC === 'on' ? 'on' : 'off'}; ${N} redemptions of one code per schema\n`,
  )
  console.log('| vouchers table | HOT updates | heap pages | index pages | redemption p50 ms |')
  console.log('| --- | ---: | ---: | ---: | ---: |')
  for (const r of runs) {
    const s = await stats(r.schema)
    const b = before.get(r.schema) ?? { upd: 0, hot: 0 }
    const upd = s.upd - b.upd
    const sorted = [...r.ms].sort((x, y) => x - y)
    console.log(
      `| ${r.label} | ${s.hot - b.hot} of ${upd} (${((100 * (s.hot - b.hot)) / Math.max(1, upd)).toFixed(1)} %) | ${s.heap / 8192} | ${s.indexes / 8192} | ${(sorted[sorted.length >> 1] ?? 0).toFixed(2)} |`,
    )
  }
} finally {
  await admin.end()
  await pgServer.stop()
}
