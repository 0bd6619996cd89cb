import type pg from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'
import { bulkInsert, vacuumAnalyze } from '../../bench/postgres/fill'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { createPostgresStore, type Queryable, type QueryConfigLike, type QueryResultLike } from '../../src/postgres'
import type { Write } from '../../src/storage/ports'
import { manualClock } from '../support/engine'
import { type FlatShop, fillMember, flatOperations, flatShop, grow } from '../support/flat-scenario'
import { emptySchema, useClonedPool } from './database'

/*
 * Flat in live rows on PostgreSQL (docs/postgres.md#flat-in-live-rows), counted by the server: each
 * operation of bench/flat-cost.ts runs inside a transaction of the test's own (the store given that
 * client: docs/postgres.md#host-transaction), the server's counts for that transaction alone
 * (`pg_stat_xact_user_tables`: rows returned by sequential scans and live rows fetched through
 * indexes, per table) are read around each statement, and the transaction is rolled back, so both
 * sizes measure the same state. Growing the store tenfold (the code's live locks from 1,000 to
 * 10,000, the member's live buckets from 100 to 1,000, every other table from 2,000 to 20,000 rows)
 * must not change one count. Both sizes are large enough that the planner reads a table by its
 * indexes wherever an index fits: below a few hundred rows it scans small tables whole, as it should.
 */

const db = useClonedPool(4)
const SMALL = 2_000
const LARGE = 20_000

/** The tables the scenario grows: a sequential scan of one of them reads what grows. */
const GROWN = [
  'customers',
  'vouchers',
  'redemptions',
  'activities',
  'orders',
  'publications',
  'sessions',
  'points_buckets',
]

type Counts = Map<string, { scans: number; rows: number }>

/** Per table of the schema: sequential scans, and rows read (returned by those scans or fetched through indexes). */
async function counted(client: pg.PoolClient): Promise<Counts> {
  const { rows } = await client.query<{
    relname: string
    seq_scan: string
    seq_tup_read: string
    idx_tup_fetch: string
  }>(
    `SELECT relname, seq_scan, seq_tup_read, idx_tup_fetch FROM pg_stat_xact_user_tables WHERE schemaname = 'promo_engine'`,
  )
  return new Map(
    rows.map((r) => [r.relname, { scans: Number(r.seq_scan), rows: Number(r.seq_tup_read) + Number(r.idx_tup_fetch) }]),
  )
}

/** What one part of an operation read: rows per table, and the grown tables it scanned whole. */
interface Part {
  rows: Record<string, number>
  scanned: string[]
}

function add(part: Part, before: Counts, after: Counts): void {
  for (const [table, a] of after) {
    const b = before.get(table) ?? { scans: 0, rows: 0 }
    if (a.rows > b.rows) part.rows[table] = (part.rows[table] ?? 0) + a.rows - b.rows
    if (GROWN.includes(table) && a.scans > b.scans && !part.scanned.includes(table)) part.scanned.push(table)
  }
}

/** An operation's reads: its loads (every statement but the commit) and its commits, apart. */
async function measure(shop: FlatShop, name: string): Promise<{ loads: Part; commits: Part }> {
  const client = await db.pool.connect()
  const commits: Part = { rows: {}, scanned: [] }
  const total: Part = { rows: {}, scanned: [] }
  try {
    await client.query('BEGIN')
    // The view also holds what earlier transactions of this connection counted and the server has not
    // published yet: an operation's reads are differences.
    const start = await counted(client)
    const counting: Queryable = {
      async query<R>(text: string | QueryConfigLike, values?: unknown[]): Promise<QueryResultLike<R>> {
        const send = () => client.query(text as string, values) as unknown as Promise<QueryResultLike<R>>
        if (!(typeof text === 'string' ? text : text.text).includes('pe_commit(')) return send()
        const before = await counted(client)
        const result = await send()
        add(commits, before, await counted(client))
        return result
      },
    }
    const engine = createEngine({
      store: createPostgresStore({ client: counting }),
      clock: manualClock('2026-06-01T10:00:00.000Z'),
      random: seededRandom(9),
    })
    const op = flatOperations(engine, shop)[name]
    if (!op) throw new Error(`no operation ${name}`)
    await op()
    add(total, start, await counted(client))
  } finally {
    await client.query('ROLLBACK')
    client.release()
  }
  const loads: Part = { rows: {}, scanned: total.scanned.filter((t) => !commits.scanned.includes(t)) }
  for (const [table, n] of Object.entries(total.rows)) {
    const rest = n - (commits.rows[table] ?? 0)
    if (rest > 0) loads.rows[table] = rest
  }
  return { loads, commits }
}

type Measured = Record<string, { loads: Part; commits: Part }>

describe.sequential('rows read on PostgreSQL do not grow with the rows stored', () => {
  const sizes: Measured[] = []
  let names: string[] = []

  beforeAll(async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    const engine = createEngine({ store, clock: manualClock('2026-05-01T10:00:00.000Z'), random: seededRandom(3) })
    const shop = await flatShop(engine, store)
    const fill = (writes: Write[]) => bulkInsert(db.url, 'promo_engine', writes)
    // The member's 50 past activities are a small part of the 2,000 others at the small size, as a
    // customer's are in a shop: with 1,000 of 3,000 the planner may rightly count them by a sequential
    // scan, or page them through the index of every activity by date, when the visibility map is behind
    // (other test files' transactions on the server hold back vacuum), and either reads what grows.
    await fillMember(shop, fill, { activities: 50, spent: 1_000 })
    names = Object.keys(flatOperations(engine, shop))
    for (const [from, to] of [
      [0, SMALL],
      [SMALL, LARGE],
    ] as const) {
      await grow(store, shop, fill, from, to)
      await vacuumAnalyze(db.url, 'promo_engine')
      const measured: Measured = {}
      for (const name of names) measured[name] = await measure(shop, name)
      sizes.push(measured)
    }
  }, 300_000)

  it("every operation's loads read no more rows, each table by an index, with 10,000 live locks on its code and 1,000 live buckets of its member as with 1,000 and 100", () => {
    const [small, large] = sizes as [Measured, Measured]
    for (const name of names) {
      expect(small[name]?.loads.scanned, name).toEqual([])
      expect(large[name]?.loads.scanned, name).toEqual([])
      // The same tables, none read more at the large size. Fewer is the planner's right: at the small
      // size it may read a customer's few activities whole and sort them rather than page the index
      // (the activity page read 67 rows at the small size and 11 at the large one in a CI run).
      const grew = Object.entries(large[name]?.loads.rows ?? {}).filter(
        ([t, n]) => n > (small[name]?.loads.rows[t] ?? 0),
      )
      expect(Object.keys(large[name]?.loads.rows ?? {}).sort(), name).toEqual(
        Object.keys(small[name]?.loads.rows ?? {}).sort(),
      )
      expect(grew, name).toEqual([])
      // The live locks and buckets are never read whole: a session's own lock, a spend's first pages.
      expect(small[name]?.loads.rows.sessions ?? 0, name).toBeLessThanOrEqual(1)
      expect(small[name]?.loads.rows.points_buckets ?? 0, name).toBeLessThanOrEqual(50)
    }
  })

  /** Reads of the grown tables by one operation's commits. */
  const grown = (part: Part | undefined) =>
    Object.fromEntries(Object.entries(part?.rows ?? {}).filter(([t]) => GROWN.includes(t)))
  const SPENDS = ["member's redemption paying 50 points (with earning)", 'reward redemption']
  it("every operation's commit reads the grown tables by their indexes, as many rows at both sizes", () => {
    const [small, large] = sizes as [Measured, Measured]
    for (const name of names) {
      for (const size of [small, large]) expect(size[name]?.commits.scanned, name).toEqual([])
      expect(grown(large[name]?.commits), name).toEqual(grown(small[name]?.commits))
    }
  })

  // The commit function locks the rows a step updates with `id = ANY(ARRAY(SELECT …))`: with
  // `IN (SELECT … jsonb_array_elements(…))` the planner guessed 100 rows and, on a table under about
  // 15,000 rows, scanned all of it (a redemption's commit read 4,015 vouchers at the small size).
  it("a redemption's commit locks its codes through the primary key at every size", () => {
    const [small, large] = sizes as [Measured, Measured]
    expect(small['redeem (5 redeemables)']?.commits.scanned).not.toContain('vouchers')
    expect(grown(large['redeem (5 redeemables)']?.commits).vouchers).toBe(
      grown(small['redeem (5 redeemables)']?.commits).vouchers,
    )
  })

  // A spend's `take` (pe_take) walks the card's buckets by the declared index in its own order and
  // stops at the bucket that covers the amount (docs/postgres.md#flat-in-live-rows): it read and
  // sorted every live bucket of the card before (104 rows at the small size, 2,004 by a sequential
  // scan at the large one, for a spend of 1 or 50 points).
  it("a spend's take reads the buckets it takes, whatever the card holds", () => {
    const [small, large] = sizes as [Measured, Measured]
    for (const name of SPENDS) {
      expect(large[name]?.commits.scanned, name).not.toContain('points_buckets')
      expect(grown(large[name]?.commits).points_buckets, name).toBe(grown(small[name]?.commits).points_buckets)
      // One bucket covers each spend: the cursor fetches it, and nothing after it.
      expect(grown(small[name]?.commits).points_buckets, name).toBe(1)
    }
  })
})
