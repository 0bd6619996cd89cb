import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { createPostgresStore } from '../../src/postgres'
import {
  ALL_FAMILIES,
  feedMatchesStore,
  type HotShop,
  hotShop,
  type Outcome,
  operationsOf,
  tally,
} from '../support/hot-rows'
import { cloneDatabase } from './database'

/*
 * Rows shared by distinct customers (docs/storage.md#shared-rows) on PostgreSQL, from 4 processes:
 * each family of test/support/hot-rows.ts in a shop of its own (a fresh database), 4 × COUNT requests
 * by new customers at once, with the engine's default options. Exact outcomes, no 409, at most 1.2
 * commits per request, and a change feed that holds exactly what was committed. N stays modest: the
 * memory suite (test/operations/hot-rows.prop.test.ts) races 200 at a time.
 */

const CHILDREN = 4
/** Requests per process: 120 in all, past the reward's stock and the code's quantity of 100. */
const COUNT = 30
const CHILD = fileURLToPath(new URL('./processes/hot-child.ts', import.meta.url))

interface Answer {
  outcomes: Outcome[]
  commits: number
}

/** The 4 processes, started once for the file; each answers one job at a time. */
let children: ChildProcess[] = []

beforeAll(async () => {
  children = Array.from({ length: CHILDREN }, () =>
    fork(CHILD, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  )
  await Promise.all(children.map((c) => new Promise((resolve) => c.once('message', resolve))))
})

afterAll(() => {
  for (const c of children) c.kill()
})

function ask(child: ChildProcess, job: Record<string, unknown>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    child.once('message', (m: Partial<Answer> & { fatal?: string }) =>
      m.outcomes ? resolve({ outcomes: m.outcomes, commits: m.commits ?? 0 }) : reject(new Error(m.fatal)),
    )
    child.send(job)
  })
}

describe.sequential(`rows shared by distinct customers: 4 processes × ${COUNT} requests on one PostgreSQL`, () => {
  ALL_FAMILIES.forEach((family, index) => {
    it(`${family.name}: what fits, 0 × 409, ≤ ${family.commitsPerRequest ?? 1.2} commits per request, the feed as committed`, async () => {
      const db = await cloneDatabase()
      const pool = new pg.Pool({ connectionString: db.url, max: 4 }).on('error', () => {})
      try {
        const store = createPostgresStore({ pool })
        const engine = createEngine({ store, timezone: 'UTC' })
        const shop: HotShop = await hotShop(engine)
        const customers = Array.from({ length: CHILDREN }, (_, c) =>
          Array.from({ length: COUNT }, (_, i) => `cust-${c}-${i}`),
        ).flat()
        for (const c of customers) await family.before?.(engine, shop, c)
        const results = await Promise.all(
          children.map((child, c) => ask(child, { url: db.url, family: index, shop, count: COUNT, child: c })),
        )
        const n = CHILDREN * COUNT
        expect(tally(results.flatMap((r) => r.outcomes))).toEqual(family.expected(n))
        const operations = operationsOf(family, customers)
        expect(results.reduce((sum, r) => sum + r.commits, 0)).toBeLessThanOrEqual(
          Math.ceil((family.commitsPerRequest ?? 1.2) * operations),
        )
        await family.check?.(engine, shop, n)
        await feedMatchesStore(store)
      } finally {
        await pool.end()
        await db.drop()
      }
    })
  })
})
