import pg from 'pg'
import { createEngine } from '../../../src/engine'
import { createPostgresStore } from '../../../src/postgres'
import { ALL_FAMILIES, type HotShop, outcomeOf } from '../../support/hot-rows'

/*
 * One process of test/postgres/hot-rows.test.ts, run with `node --import tsx`. For each job the parent
 * sends (a database, a family of test/support/hot-rows.ts, its shop), it makes `count` requests by
 * distinct customers, all at once, with the engine's default options, and answers with each outcome
 * and how many commits it sent. It stays up between jobs, so its start is paid once.
 */

interface Job {
  url: string
  family: number
  shop: HotShop
  count: number
  child: number
}

async function run(job: Job): Promise<{ outcomes: string[]; commits: number }> {
  const family = ALL_FAMILIES[job.family]
  if (!family) throw new Error(`no family ${job.family}`)
  const pool = new pg.Pool({ connectionString: job.url, max: 4 }).on('error', () => {})
  try {
    const store = createPostgresStore({ pool })
    const engine = createEngine({ store, timezone: 'UTC' })
    const outcomes = await Promise.all(
      Array.from({ length: job.count }, (_, i) =>
        outcomeOf(() => family.request(engine, job.shop, `cust-${job.child}-${i}`)),
      ),
    )
    return { outcomes, commits: store.stats.commits }
  } finally {
    await pool.end()
  }
}

process.on('message', (job: Job) => {
  run(job).then(
    (result) => process.send?.(result),
    (error: unknown) => process.send?.({ fatal: String(error) }),
  )
})
process.send?.({ ready: true })
