import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { EngineError } from '../../src/errors'
import { must, mutate } from '../../src/operations/context'
import { createPostgresStore, type PostgresStore } from '../../src/postgres'
import { cloneDatabase } from './database'

/* Database faults as EngineErrors with stable keys, and the host's own transaction. */

let pool: pg.Pool
let drop: () => Promise<void>

beforeAll(async () => {
  const db = await cloneDatabase()
  drop = db.drop
  pool = new pg.Pool({ connectionString: db.url, max: 6 }).on('error', () => {})
})

afterAll(async () => {
  await pool.end()
  await drop()
})

async function keyOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(EngineError)
  return (error as EngineError).key
}

const voucher = (code: string) => ({
  code,
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
  redemption: { quantity: 10 },
})

describe('faults', () => {
  it('an unreachable database is store_unavailable, for reads and commits', async () => {
    const store = createPostgresStore({ connectionString: 'postgres://nobody:x@127.0.0.1:1/none' })
    expect(await keyOf(store.vouchers.get('v_1'))).toBe('store_unavailable')
    expect(await keyOf(store.commit({ writes: [] }))).toBe('store_unavailable')
    await store.close()
  })

  it('a query the database refuses is store_error; a commit it refuses is commit_failed, nothing written', async () => {
    const unmigrated = createPostgresStore({ pool, schema: 'not_migrated' })
    expect(await keyOf(unmigrated.vouchers.get('v_1'))).toBe('store_error')
    const store = createPostgresStore({ pool })
    // PostgreSQL's JSONB has no NUL character: the commit function fails and its transaction rolls back.
    const bad = { id: 'v_nul', code: 'NUL', text: 'a\u0000b' }
    expect(
      await keyOf(
        store.commit({ writes: [{ op: 'put', collection: 'vouchers', value: bad as never, expectedVersion: null }] }),
      ),
    ).toBe('commit_failed')
    expect(await store.vouchers.get('v_nul')).toBeUndefined()
  })

  it('a connection lost during the commit is commit_outcome_unknown', async () => {
    const store = createPostgresStore({ pool, commitHook: { pauseAfterWrite: { after: 1, seconds: 5 } } })
    const engine = createEngine({ store: createPostgresStore({ pool }) })
    await engine.raw.vouchers.create(voucher('LOST'))
    const pending = keyOf(
      store.commit({
        writes: [{ op: 'increment', collection: 'vouchers', id: (await engine.vouchers.get('LOST')).id, by: { n: 1 } }],
      }),
    )
    // The database goes away while the commit function runs (here: its backend is terminated).
    let killed = false
    for (let i = 0; i < 100 && !killed; i++) {
      const r = await pool.query(
        "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()",
      )
      killed = r.rows.length > 0
      if (!killed) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(killed).toBe(true)
    expect(await pending).toBe('commit_outcome_unknown')
  })
})

describe("the host's own transaction", () => {
  it('the redemption commits or rolls back with the host’s rows', async () => {
    await pool.query('CREATE TABLE IF NOT EXISTS public.host_orders (id text PRIMARY KEY)')
    await createEngine({ store: createPostgresStore({ pool }) }).raw.vouchers.create(voucher('HOST'))
    for (const end of ['ROLLBACK', 'COMMIT']) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        await client.query('INSERT INTO public.host_orders VALUES ($1)', [`order-${end}`])
        const engine = createEngine({ store: createPostgresStore({ client }), maxRetries: 0 })
        const r = await engine.raw.redemptions.redeemStackable({
          redeemables: [{ object: 'voucher', id: 'HOST' }],
          order: { amount: 1000 },
        })
        expect(r.parent_redemption.result).toBe('SUCCESS')
        await client.query(end)
      } finally {
        client.release()
      }
    }
    const engine = createEngine({ store: createPostgresStore({ pool }) })
    expect((await engine.vouchers.get('HOST')).redemption.redeemed_quantity).toBe(1)
    const orders = await pool.query('SELECT id FROM public.host_orders ORDER BY id')
    expect(orders.rows).toEqual([{ id: 'order-COMMIT' }])
  })

  it('a conflict surfaces to the host, whose transaction stays usable for its own retry', async () => {
    const outside = createEngine({ store: createPostgresStore({ pool }) })
    const v = await outside.raw.vouchers.create(voucher('RACE'))
    const a = await pool.connect()
    const b = await pool.connect()
    try {
      await a.query('BEGIN')
      await b.query('BEGIN')
      const inA = createEngine({ store: createPostgresStore({ client: a }) })
      const inB = createEngine({ store: createPostgresStore({ client: b }) })
      // Both read version 1; A writes first and holds the row until its host commits.
      const readA = await must(inA.context, 'vouchers', v.id, 'voucher')
      const readB = await must(inB.context, 'vouchers', v.id, 'voucher')
      const tag = (engine: typeof inA, read: typeof readA, by: string) =>
        mutate(engine.context, async (tx) => {
          tx.update('vouchers', read, { ...read.value, metadata: { by } })
        })
      await tag(inA, readA, 'a')
      const pidB = (await b.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number
      const updateB = tag(inB, readB, 'b').then(
        () => 'ok',
        (e: EngineError) => e.key,
      )
      // B's commit waits for A's row lock.
      for (let i = 0; i < 200; i++) {
        const waiting = await pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [
          pidB,
        ])
        if (waiting.rows.length > 0) break
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      await a.query('COMMIT')
      expect(await updateB).toBe('concurrent_modification')
      // One attempt only, whatever maxRetries is: inside the host's transaction the host retries.
      expect((inB.context.store as PostgresStore).stats.commits).toBe(1)
      // B's transaction is not aborted: the host rolls back (or retries its whole transaction).
      expect((await b.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
      await b.query('ROLLBACK')
    } finally {
      a.release()
      b.release()
    }
    expect((await outside.vouchers.get(v.id)).metadata).toEqual({ by: 'a' })
  })

  it('a guard that fails in the host’s transaction is answered by the business failure in its one attempt', async () => {
    const outside = createEngine({ store: createPostgresStore({ pool }) })
    await outside.raw.vouchers.create({ ...voucher('LAST'), redemption: { quantity: 1 } })
    const redeem = (engine: typeof outside) =>
      engine.raw.redemptions.redeemStackable({
        redeemables: [{ object: 'voucher', id: 'LAST' }],
        order: { amount: 1000 },
      })
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      const store = createPostgresStore({ client })
      // Between this redemption's reads and its commit, another checkout takes the last use.
      const racing = Object.assign(Object.create(store) as PostgresStore, {
        async commit(changeset: Parameters<PostgresStore['commit']>[0]) {
          await redeem(outside)
          return store.commit(changeset)
        },
      })
      const r = await redeem(createEngine({ store: racing }))
      expect(r.parent_redemption.result).toBe('FAILURE')
      expect((r.parent_redemption as { failure_code?: string }).failure_code).toBe('quantity_exceeded')
      expect(store.stats.commits).toBe(1)
      await client.query('COMMIT')
      const stored = await outside.redemptions.get(r.parent_redemption.id)
      expect((stored as { failure_code?: string }).failure_code).toBe('quantity_exceeded')
    } finally {
      client.release()
    }
    expect((await outside.vouchers.get('LAST')).redemption.redeemed_quantity).toBe(1)
  })
})
