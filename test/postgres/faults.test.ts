import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, engineContext } from '../../src/engine'
import { EngineError } from '../../src/errors'
import { must, mutate } from '../../src/operations/kernel/unit-of-work'
import { createPostgresStore, type PoolLike, type PostgresStore } from '../../src/postgres'
import { commitFault, storeFault } from '../../src/postgres/connection'
import { cloneDatabase } from './database'

/* Database faults as EngineErrors with stable keys, and the host's own transaction. */

let pool: pg.Pool
let url: string
let drop: () => Promise<void>

beforeAll(async () => {
  const db = await cloneDatabase()
  url = db.url
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
    expect(await keyOf(store.changes())).toBe('store_unavailable')
    expect(await keyOf(store.migrate())).toBe('store_unavailable')
    await store.close()
  })

  it('a database that times out fails each request with store_unavailable and leaves no rejection unhandled', async () => {
    // A pool whose every query times out, as a saturated pool does: reads an operation starts early and
    // awaits later must not outlive its failure as unhandled rejections (they end a Node process).
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const timedOut = {
        query: async () => {
          throw new Error('timeout exceeded when trying to connect')
        },
      } as unknown as PoolLike
      const engine = createEngine({ store: createPostgresStore({ pool: timedOut }), authentication: 'keys' })
      const order = { amount: 10_000, items: [{ source_id: 'shoe', quantity: 2 }] }
      const body = { customer: { source_id: 'c' }, order, redeemables: [{ object: 'voucher' as const, id: 'CODE' }] }
      const keys = await Promise.all([
        keyOf(
          engine.auth.authenticate({
            family: 'server',
            headers: { 'x-app-id': 'a', 'x-app-token': 'b' },
            operation: 'redemptions.redeemStackable',
          }),
        ),
        keyOf(engine.validations.validateStackable(body)),
        keyOf(engine.redemptions.redeemStackable(body)),
        keyOf(engine.orders.create({ customer: { source_id: 'c' }, status: 'PAID', ...order })),
      ])
      expect(keys).toEqual(Array(4).fill('store_unavailable'))
      await new Promise((r) => setTimeout(r, 50))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('a query the database refuses is store_error; a commit it refuses is commit_failed, nothing written', async () => {
    const unmigrated = createPostgresStore({ pool, schema: 'not_migrated' })
    expect(await keyOf(unmigrated.vouchers.get('v_1'))).toBe('store_error')
    // A migration the database refuses (here: a schema holding a table of that name it did not make).
    await pool.query('CREATE SCHEMA foreign_made; CREATE TABLE foreign_made.pe_migrations (other text)')
    expect(await keyOf(createPostgresStore({ pool, schema: 'foreign_made' }).migrate())).toBe('store_error')
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

describe('faults as keys (docs/postgres.md#faults)', () => {
  const fault = (code?: string) => Object.assign(new Error('boom'), code === undefined ? {} : { code })
  it.each([
    [undefined, 'store_unavailable', 'commit_outcome_unknown'],
    ['ECONNRESET', 'store_unavailable', 'commit_outcome_unknown'],
    ['08006', 'store_unavailable', 'commit_outcome_unknown'],
    ['57P01', 'store_unavailable', 'commit_outcome_unknown'],
    ['57014', 'store_unavailable', 'commit_failed'],
    ['53100', 'store_unavailable', 'commit_failed'],
    ['40001', 'concurrent_modification', 'commit_failed'],
    ['40P01', 'concurrent_modification', 'commit_failed'],
    ['42P01', 'store_error', 'commit_failed'],
    ['22P05', 'store_error', 'commit_failed'],
  ])('%s: a read gives %s, a commit %s', (code, read, commit) => {
    expect(storeFault(fault(code)).key).toBe(read)
    expect(commitFault(fault(code)).key).toBe(commit)
  })
})

describe('faults of the network and of the pool', () => {
  it('a connection that drops without a word during the commit is commit_outcome_unknown, and nothing crashes', async () => {
    const engine = createEngine({ store: createPostgresStore({ pool }) })
    const v = await engine.raw.vouchers.create(voucher('CUT'))
    // A pool whose connections the test can cut (the socket closes: no error message from the server).
    const taken: pg.PoolClient[] = []
    const cutting: PoolLike = {
      query: (text, values) => pool.query(text, values) as never,
      connect: async () => {
        const client = await pool.connect()
        taken.push(client)
        return client as never
      },
      end: async () => {},
    }
    const store = createPostgresStore({ pool: cutting, commitHook: { pauseAfterWrite: { after: 1, seconds: 2 } } })
    const pending = keyOf(
      store.commit({ writes: [{ op: 'increment', collection: 'vouchers', id: v.id, by: { n: 1 } }] }),
    )
    while (taken.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    await new Promise((resolve) => setTimeout(resolve, 200))
    ;(taken[0] as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy()
    expect(await pending).toBe('commit_outcome_unknown')
    // The store goes on with new connections.
    expect((await createPostgresStore({ pool }).vouchers.get(v.id))?.version).toBeGreaterThan(0)
  })

  it('an exhausted pool (every connection taken past its timeout) is store_unavailable, for reads and commits', async () => {
    const small = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 200 }).on('error', () => {})
    const held = await small.connect()
    try {
      const store = createPostgresStore({ pool: small })
      expect(await keyOf(store.vouchers.get('v_1'))).toBe('store_unavailable')
      expect(await keyOf(store.commit({ writes: [] }))).toBe('store_unavailable')
      expect(await keyOf(store.changes())).toBe('store_unavailable')
    } finally {
      held.release()
      await small.end()
    }
  })

  it('a statement cut by statement_timeout: a read is store_unavailable, a commit commit_failed with nothing written', async () => {
    const engine = createEngine({ store: createPostgresStore({ pool }) })
    const v = await engine.raw.vouchers.create(voucher('SLOW'))
    const slow = new pg.Pool({ connectionString: url, max: 2, statement_timeout: 300 }).on('error', () => {})
    const locker = await pool.connect()
    try {
      // Another transaction holds the table: every statement on it waits, past the timeout.
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE promo_engine.vouchers IN ACCESS EXCLUSIVE MODE')
      const store = createPostgresStore({ pool: slow })
      expect(await keyOf(store.vouchers.get(v.id))).toBe('store_unavailable')
      expect(
        await keyOf(store.commit({ writes: [{ op: 'increment', collection: 'vouchers', id: v.id, by: { n: 1 } }] })),
      ).toBe('commit_failed')
      await locker.query('ROLLBACK')
      expect((await store.vouchers.get(v.id))?.value).not.toHaveProperty('n')
    } finally {
      await locker.query('ROLLBACK')
      locker.release()
      await slow.end()
    }
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
      const readA = await must(engineContext(inA), 'vouchers', v.id, 'voucher')
      const readB = await must(engineContext(inB), 'vouchers', v.id, 'voucher')
      const tag = (engine: typeof inA, read: typeof readA, by: string) =>
        mutate(engineContext(engine), async (tx) => {
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
      expect((engineContext(inB).store as PostgresStore).stats.commits).toBe(1)
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
