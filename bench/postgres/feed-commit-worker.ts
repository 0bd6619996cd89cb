import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { currentShape } from '../../src/operations/kernel/shape-versions'

/*
 * One process of bench/postgres/feed-before-after.ts that commits without the engine: changesets
 * shaped like a one-line redemption's (6 inserts of fresh rows, then 9 increments of counter rows,
 * made by their first increment), through `store.commit` of the build at `BUILD`, in the schema
 * `SCHEMA`. `ROWS=own` increments counter rows of this process alone, `ROWS=hot` rows every process
 * shares. What it measures is the commit, so a row every commit takes shows here first.
 */

const seconds = Number(process.env.BENCH_SECONDS ?? 3)
const slot = process.env.SLOT ?? '0'
const rows = process.env.ROWS === 'hot' ? 'hot' : `own${slot}`
const pool = new pg.Pool({ connectionString: process.env.PG_URL as string, max: 2 }).on('error', () => {})
const { createPostgresStore } = (await import(
  `${process.env.BUILD as string}/postgres.js`
)) as typeof import('../../src/postgres/index')
const store = createPostgresStore({ pool, schema: process.env.SCHEMA ?? 'promo_engine' })

const changeset = () => ({
  writes: [
    ...Array.from({ length: 6 }, () => ({
      op: 'put' as const,
      collection: 'categories' as const,
      value: { id: `cat_${randomUUID()}`, name: randomUUID() } as never,
      expectedVersion: null,
      shape: currentShape('categories'),
    })),
    ...Array.from({ length: 9 }, (_, k) => ({
      op: 'increment' as const,
      collection: 'counters' as const,
      id: `bench_${rows}_${k}`,
      by: { n: 1 },
      create: {},
    })),
  ],
})

const latencies: number[] = []
let failed = 0
const start = Date.now()
while (Date.now() - start < seconds * 1000) {
  const t = performance.now()
  const r = await store.commit(changeset())
  latencies.push(performance.now() - t)
  if (!r.ok) failed++
}
const ms = Date.now() - start
latencies.sort((a, b) => a - b)
process.send?.({ ops: latencies.length, failed, ms, p50: latencies[Math.floor(latencies.length / 2)] ?? 0 })
await pool.end()
process.exit(0)
