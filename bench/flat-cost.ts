/**
 * Flat cost (docs/storage.md#indexes): the same requests on a store holding 1,000, 10,000 and 100,000
 * rows per collection, with the growth where the requests look (half of the redemptions on the code
 * and the tier under test, one member with 5,000 spent points buckets and 10,000 activities, budget
 * rules assigned so that counters are read), and live rows that grow with the store: n/2 live session
 * locks on the code under test and n/20 live points buckets of the member (50,000 and 5,000 at
 * 100,000 rows): a member's paid order earns without reading them, a reward redemption and a
 * redemption paying with points read only the buckets they spend. Rows are written by direct store commits (on PostgreSQL by a
 * bulk load into the same tables, bench/postgres/fill.ts: 615,000 rows through the commit function
 * take too long to wait for).
 *
 *   npx tsx bench/flat-cost.ts            # 1000,10000,100000
 *   npx tsx bench/flat-cost.ts 1000 10000
 *   npx tsx bench/flat-cost.ts --postgres             # on PostgreSQL (PROMO_PG_URL, else embedded)
 *
 * Every size is set up and filled first (on PostgreSQL then vacuumed and analysed, as after any bulk
 * load), then the sizes are measured in alternation, a few calls of each operation per size and
 * round, so that a machine whose load drifts during the run slows every size alike. The scenario is
 * test/support/flat-scenario.ts, which the flat-rows tests count on.
 *
 * Prints a Markdown table of medians (ms) per operation and size, and the ratio of the largest size
 * to the smallest. Not a test: times on a shared machine are noisy.
 */
import { loadavg } from 'node:os'
import { createEngine } from '../src/engine'
import { seededRandom } from '../src/ids'
import { createMemoryStore } from '../src/memory'
import type { Store, Write } from '../src/storage/ports'
import { commitFill, type Fill, fillMember, flatOperations, flatShop, grow } from '../test/support/flat-scenario'

const POSTGRES = process.argv.includes('--postgres')
const sizes = process.argv.slice(2).map(Number).filter(Boolean)
const SIZES = sizes.length > 0 ? sizes : [1_000, 10_000, 100_000]
/** Rounds over every size, and calls of each operation per size and round (after 5 to warm up). */
const ROUNDS = 6
const PER_ROUND = 5

type Measured = Store & { stats: { queries?: number; rowsExamined?: number } }

/** The store under test: the memory store, or a fresh schema on PostgreSQL (`--postgres`). */
let pgUrl: Promise<{ url: string; stop(): Promise<void> }> | undefined
async function makeStore(n: number): Promise<{ store: Measured; fill: Fill; settle(): Promise<void> }> {
  if (!POSTGRES) {
    const store = createMemoryStore()
    return { store, fill: commitFill(store), settle: async () => {} }
  }
  const { server } = await import('./postgres/server')
  const { createPostgresStore } = await import('../src/postgres')
  const { bulkInsert, vacuumAnalyze } = await import('./postgres/fill')
  pgUrl ??= server()
  const { url } = await pgUrl
  const schema = `flat_${n}`
  const store = createPostgresStore({ connectionString: url, schema })
  await store.migrate()
  return {
    store,
    fill: (writes: Write[]) => bulkInsert(url, schema, writes),
    settle: () => vacuumAnalyze(url, schema),
  }
}

/** What a call examined: rows a memory list read, or queries sent to PostgreSQL. */
function examinedBy(store: Measured): number {
  return POSTGRES ? (store.stats.queries ?? 0) : (store.stats.rowsExamined ?? 0)
}

async function scenario(n: number) {
  const { store, fill, settle } = await makeStore(n)
  let now = Date.parse('2026-06-01T10:00:00.000Z')
  const tick = () => {
    now += 1000
    return new Date(now)
  }
  const engine = createEngine({ store, clock: { now: tick }, random: seededRandom(3) })
  const shop = await flatShop(engine, store)
  await fillMember(shop, fill, { activities: 10_000, spent: 5_000 })
  await grow(store, shop, fill, 0, n)
  await settle()
  return { store, ops: flatOperations(engine, shop) }
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')

async function main() {
  const started = Date.now()
  console.log(`load average at start: ${load()}`)
  const scenarios: { n: number; store: Measured; ops: Record<string, () => Promise<unknown>> }[] = []
  for (const n of SIZES) {
    const filling = Date.now()
    scenarios.push({ n, ...(await scenario(n)) })
    console.log(`${n} rows: set up and filled in ${((Date.now() - filling) / 1000).toFixed(1)} s`)
  }
  const names = Object.keys(scenarios[0]?.ops ?? {})
  const times = new Map<string, number[]>()
  const examined = new Map<string, number>()
  const key = (name: string, n: number) => `${name}@${n}`
  for (const { ops } of scenarios) for (const name of names) for (let i = 0; i < 5; i++) await ops[name]?.()
  console.log(`warmed up; load average ${load()}`)
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order of the sizes from one round to the next.
    const order = round % 2 === 0 ? scenarios : [...scenarios].reverse()
    for (const name of names) {
      for (const { n, store, ops } of order) {
        const op = ops[name] as () => Promise<unknown>
        const rows0 = examinedBy(store)
        const list = times.get(key(name, n)) ?? []
        for (let i = 0; i < PER_ROUND; i++) {
          const s = performance.now()
          await op()
          list.push(performance.now() - s)
        }
        times.set(key(name, n), list)
        examined.set(key(name, n), (examined.get(key(name, n)) ?? 0) + examinedBy(store) - rows0)
      }
    }
  }
  console.log(`load average at end: ${load()}; total ${((Date.now() - started) / 1000).toFixed(0)} s`)
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
  const head = SIZES.map((n) => n.toLocaleString('en-US'))
  console.log(
    `| operation | ${head.map((h) => `${h} rows (ms)`).join(' | ')} | ${head.at(-1)} ÷ ${head[0]} | ${POSTGRES ? 'queries' : 'rows examined'} per call |`,
  )
  console.log(`| --- | ${SIZES.map(() => '---:').join(' | ')} | ---: | --- |`)
  for (const name of names) {
    const medians = SIZES.map((n) => median(times.get(key(name, n)) ?? [0]))
    const ratio = (medians.at(-1) as number) / (medians[0] as number)
    const rows = SIZES.map((n) => ((examined.get(key(name, n)) ?? 0) / (ROUNDS * PER_ROUND)).toFixed(0)).join(' / ')
    console.log(`| ${name} | ${medians.map((x) => x.toFixed(3)).join(' | ')} | ${ratio.toFixed(2)}× | ${rows} |`)
  }
}

main()
  .then(async () => {
    if (pgUrl) await (await pgUrl).stop()
    process.exit(0)
  })
  .catch((e) => {
    console.error(e)
    process.exit(1)
  })
