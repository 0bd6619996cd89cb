import pg from 'pg'
import { createEngine } from '../../src/engine'
import { EngineError } from '../../src/errors'
import { createPostgresStore } from '../../src/postgres'

/*
 * One process of bench/postgres/throughput.ts: runs `OP` (validate | redeem) on `CODE` for `SECONDS`
 * and reports what it counted over IPC.
 */
const pool = new pg.Pool({ connectionString: process.env.PG_URL as string, max: 2 })
const store = createPostgresStore({ pool })
const engine = createEngine({ store })
const code = process.env.CODE as string
const op = process.env.OP as 'validate' | 'redeem'
const until = Date.now() + Number(process.env.BENCH_SECONDS ?? 5) * 1000
const tally = { ops: 0, success: 0, refused: 0, conflict: 0, commits: 0, queries: 0, ms: 0 }
const body = {
  redeemables: [{ object: 'voucher', id: code }],
  order: { amount: 10_000 },
  customer: { source_id: 'bench' },
}
const start = Date.now()
while (Date.now() < until) {
  try {
    if (op === 'validate') {
      const r = await engine.raw.validations.validateStackable(body)
      if (r.valid) tally.success++
      else tally.refused++
    } else {
      const r = await engine.raw.redemptions.redeemStackable(body)
      if (r.parent_redemption.result === 'SUCCESS') tally.success++
      else tally.refused++
    }
  } catch (error) {
    if (error instanceof EngineError && error.key === 'concurrent_modification') tally.conflict++
    else throw error
  }
  tally.ops++
}
tally.ms = Date.now() - start
tally.commits = store.stats.commits
tally.queries = store.stats.queries
process.send?.(tally, () => {
  void pool.end().then(() => process.exit(0))
})
