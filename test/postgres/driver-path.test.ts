import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src'
import { createPostgresStore, type PoolLike, type Queryable } from '../../src/postgres'
import { JsonRowQuery } from '../../src/postgres/connection'
import { emptySchema, useClonedPool } from './database'

/*
 * The adapter sends its levels of reads and its commits as a query object of its own
 * (docs/postgres.md#driver-path). Whatever node-postgres is handed (a pool, a pool in pipeline mode,
 * which refuses such objects, a pool asking for binary results, one client), an operation reads and
 * writes the same, in the same number of statements, and a statement is prepared once per connection.
 */

const db = useClonedPool(2)

const body = (code: string) => ({
  redeemables: [{ object: 'voucher' as const, id: code }],
  order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
  customer: { source_id: `customer-${code}` },
})

async function redeemTwice(db: Queryable, kind: 'pool' | 'client') {
  const store = createPostgresStore(kind === 'pool' ? { pool: db as PoolLike } : { client: db })
  const engine = createEngine({ store })
  const code = `DP-${Math.random().toString(36).slice(2, 10)}`
  await engine.raw.vouchers.create({
    code,
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
  })
  const counts: number[] = []
  const discounts: unknown[] = []
  for (let i = 0; i < 2; i++) {
    const before = store.stats.queries
    const validation = await engine.raw.validations.validateStackable(body(code))
    const redemption = await engine.raw.redemptions.redeemStackable(body(code))
    counts.push(store.stats.queries - before)
    discounts.push(validation.order?.total_discount_amount, redemption.order?.total_discount_amount)
    expect(redemption.parent_redemption.result).toBe('SUCCESS')
  }
  const voucher = await engine.raw.vouchers.get(code)
  return { counts, discounts, redeemed: voucher.redemption?.redeemed_quantity }
}

describe.sequential('the driver path on PostgreSQL', () => {
  it('a pool, a pool in pipeline mode, one asking for binary results and one client: same answers, same statements', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const plain = await redeemTwice(db.pool, 'pool')
    expect(plain.discounts).toEqual([100, 100, 100, 100])
    expect(plain.redeemed).toBe(2)
    for (const options of [{ pipeline: true }, { binary: true }]) {
      const pool = new pg.Pool({ connectionString: db.url, max: 2, ...options }).on('error', () => {})
      try {
        expect(await redeemTwice(pool as unknown as PoolLike, 'pool')).toEqual(plain)
      } finally {
        await pool.end()
      }
    }
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      expect(await redeemTwice(client as unknown as Queryable, 'client')).toEqual(plain)
    } finally {
      await client.end()
    }
    // A host's own pool that runs every query as a plain config (its text, name and values), as a
    // tracing or retrying wrapper may: the query object comes back as a driver's result.
    const wrapped: PoolLike = {
      query: (q: string | { text: string; name?: string; values?: unknown[] }, values?: unknown[]) =>
        (typeof q === 'string'
          ? db.pool.query(q, values)
          : db.pool.query({ text: q.text, ...(q.name ? { name: q.name } : {}), values: q.values ?? [] })) as never,
      connect: () => db.pool.connect() as never,
      end: async () => {},
    }
    expect(await redeemTwice(wrapped, 'pool')).toEqual(plain)
  })

  it('each statement is prepared once per connection: the same operations again prepare nothing new', async () => {
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    const prepared = async () =>
      Number((await client.query('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0].n)
    try {
      await redeemTwice(client as unknown as Queryable, 'client')
      const after = await prepared()
      expect(after).toBeGreaterThan(0)
      await redeemTwice(client as unknown as Queryable, 'client')
      expect(await prepared()).toBe(after)
    } finally {
      await client.end()
    }
  })
})

describe("the adapter's query object on node-postgres before 8.23", () => {
  it('writes to a connection without the registry of statements sent but not yet parsed (8.19 to 8.22)', () => {
    const sent: string[] = []
    const connection = {
      parsedStatements: {} as Record<string, string>,
      stream: {},
      parse: () => sent.push('parse'),
      bind: () => sent.push('bind'),
      execute: () => sent.push('execute'),
      sync: () => sent.push('sync'),
    }
    expect(new JsonRowQuery('pe_x', 'SELECT 1', []).submit(connection as never)).toBeNull()
    expect(sent).toEqual(['parse', 'bind', 'execute', 'sync'])
    // node-postgres records a statement at its ParseComplete: the next use only binds.
    connection.parsedStatements.pe_x = 'SELECT 1'
    sent.length = 0
    expect(new JsonRowQuery('pe_x', 'SELECT 1', []).submit(connection as never)).toBeNull()
    expect(sent).toEqual(['bind', 'execute', 'sync'])
    // Another text under a prepared name is refused, as node-postgres refuses it.
    expect(new JsonRowQuery('pe_x', 'SELECT 2', []).submit(connection as never)?.message).toMatch(
      /Prepared statements must be unique/,
    )
  })
})
