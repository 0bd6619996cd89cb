import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine'
import { createPostgresStore, type PostgresStore } from '../../src/postgres'
import { noticeChannel } from '../../src/postgres/read-cache'
import { emptySchema, useClonedPool } from './database'

/*
 * The read cache (docs/postgres.md#read-cache): a request's credential (and bearer token) read with no
 * statement once cached; a write by another store on the same database (another process) seen at its
 * notice; no cache while the listener is down, and again once it is back; none in a host's transaction.
 * Every wait is for an event the store reports (its `cacheHook`), never a sleep.
 */

const db = useClonedPool(6)
const opened: { store: PostgresStore; pool: pg.Pool }[] = []

type Event = { type: string; collection?: string }

/** A store on a pool of its own (as another process has), with its hook's events awaitable. */
function processStore(schema = 'promo_engine', options: { readCache?: boolean; deaf?: boolean } = {}) {
  const { deaf, ...storeOptions } = options
  const pool = (
    deaf ? new DeafPool({ connectionString: db.url, max: 3 }) : new pg.Pool({ connectionString: db.url, max: 3 })
  ).on('error', () => {})
  const waiting: { test: (e: Event) => boolean; resolve: () => void }[] = []
  const seen: Event[] = []
  const store = createPostgresStore({
    pool: pool as never,
    schema,
    ...storeOptions,
    cacheHook: (event) => {
      seen.push(event)
      for (const w of waiting.splice(0)) {
        if (w.test(event)) w.resolve()
        else waiting.push(w)
      }
    },
  })
  opened.push({ store, pool })
  const engine = createEngine({ store, authentication: 'keys' })
  return {
    store,
    pool,
    engine,
    seen,
    /** Resolves at the next event that passes `test`. */
    next(test: (e: Event) => boolean): Promise<void> {
      return new Promise((resolve) => waiting.push({ test, resolve }))
    },
    /** Resolves when the listener is ready: now, if its last state event says so. */
    ready(): Promise<void> {
      const last = seen.filter((e) => e.type === 'ready' || e.type === 'down').at(-1)
      return last?.type === 'ready'
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ test: (e) => e.type === 'ready', resolve }))
    },
  }
}

/**
 * A pool whose notices go nowhere, as behind a pooler in transaction mode, where the session that
 * ran LISTEN is not the one told: its pings run, and never reach the listener.
 */
class DeafPool extends pg.Pool {
  // biome-ignore lint/suspicious/noExplicitAny: node-postgres' query overloads, passed through
  override query(text: any, values?: any): any {
    return super.query(
      typeof text === 'string' && text.includes('pg_notify') ? 'SELECT $1::text, $2::text' : text,
      values,
    )
  }
}

afterAll(async () => {
  for (const { store, pool } of opened) {
    await store.close()
    await pool.end()
  }
})

const request = (appId: string, secret: string) => ({
  family: 'server' as const,
  headers: { 'X-App-Id': appId, 'X-App-Token': secret },
  operation: 'vouchers.get',
})

/** Statements the store sends for one authentication. */
async function statementsOf(store: PostgresStore, run: () => Promise<unknown>): Promise<number> {
  const before = store.stats.queries
  await run()
  return store.stats.queries - before
}

/** Authenticates until the store is serving from its cache (the listener connects at the first read). */
async function warm(p: ReturnType<typeof processStore>, appId: string, secret: string) {
  // The first read (this one, or an earlier one of the store) starts the listener.
  await p.engine.auth.authenticate(request(appId, secret))
  await p.ready()
  await p.engine.auth.authenticate(request(appId, secret))
}

async function refusal(engine: Engine, appId: string, secret: string): Promise<string | undefined> {
  return engine.auth.authenticate(request(appId, secret)).then(
    () => undefined,
    (e: { key?: string }) => e.key,
  )
}

describe('the read cache', () => {
  beforeAll(async () => {
    await emptySchema(db.pool, 'promo_engine')
    await emptySchema(db.pool, 'promo_engine_b')
  })

  it('authenticates with no statement at steady state', async () => {
    const a = processStore()
    await a.engine.auth.createApplication({ family: 'server', app_id: 'app_steady', secret: 's'.repeat(32) })
    await warm(a, 'app_steady', 's'.repeat(32))
    const cachedBefore = a.store.stats.cached
    for (let i = 0; i < 5; i++) {
      expect(await statementsOf(a.store, () => a.engine.auth.authenticate(request('app_steady', 's'.repeat(32))))).toBe(
        0,
      )
    }
    expect(a.store.stats.cached - cachedBefore).toBe(5)
    // A wrong secret is refused from the cache too; an unknown app id is read every time (not cached).
    expect(await refusal(a.engine, 'app_steady', 'x'.repeat(32))).toBe('unauthorized')
    expect(await statementsOf(a.store, () => refusal(a.engine, 'app_nobody', 'x'.repeat(32)))).toBe(1)
    expect(await statementsOf(a.store, () => refusal(a.engine, 'app_nobody', 'x'.repeat(32)))).toBe(1)
  })

  it('refuses a rotated secret in the rotating store at once, and in another store at its notice', async () => {
    const a = processStore()
    const b = processStore()
    const old = 'o'.repeat(32)
    await a.engine.auth.createApplication({ family: 'server', app_id: 'app_rotated', secret: old })
    await warm(a, 'app_rotated', old)
    await warm(b, 'app_rotated', old)
    expect(await statementsOf(b.store, () => b.engine.auth.authenticate(request('app_rotated', old)))).toBe(0)

    const noticed = b.next((e) => e.type === 'notice' && e.collection === 'credentials')
    const { secret } = await a.engine.auth.rotateSecret('app_rotated')
    // The rotating store dropped its own entry when its commit ended, before any notice.
    expect(await refusal(a.engine, 'app_rotated', old)).toBe('unauthorized')
    await noticed
    expect(await refusal(b.engine, 'app_rotated', old)).toBe('unauthorized')
    await b.engine.auth.authenticate(request('app_rotated', secret))
    expect(await statementsOf(b.store, () => b.engine.auth.authenticate(request('app_rotated', secret)))).toBe(0)
  })

  it('serves nothing from memory while the listener is down, and caches again once it is back', async () => {
    const a = processStore()
    const secret = 'd'.repeat(32)
    await a.engine.auth.createApplication({ family: 'server', app_id: 'app_dropped', secret })
    await warm(a, 'app_dropped', secret)
    expect(await statementsOf(a.store, () => a.engine.auth.authenticate(request('app_dropped', secret)))).toBe(0)

    const down = a.next((e) => e.type === 'down')
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE '%pe_notify%' AND pid <> pg_backend_pid()`,
    )
    expect(rows[0]?.n).toBeGreaterThanOrEqual(1)
    await down
    // Read from the database (the read also starts the new listener), every time until it is ready.
    const ready = a.next((e) => e.type === 'ready')
    expect(await statementsOf(a.store, () => a.engine.auth.authenticate(request('app_dropped', secret)))).toBe(1)
    await ready
    // Cleared when ready: read once more, then from memory.
    expect(await statementsOf(a.store, () => a.engine.auth.authenticate(request('app_dropped', secret)))).toBe(1)
    expect(await statementsOf(a.store, () => a.engine.auth.authenticate(request('app_dropped', secret)))).toBe(0)
  })

  it('caches bearer tokens and sees their revocation', async () => {
    const a = processStore()
    const b = processStore()
    const secret = 't'.repeat(32)
    await a.engine.auth.createApplication({ family: 'server', app_id: 'app_tokens', secret })
    const keys = { 'X-App-Id': 'app_tokens', 'X-App-Token': secret }
    const { access_token } = await a.engine.auth.issueToken(keys, {
      grant_type: 'client_credentials',
      scope: 'api',
    })
    const withToken = {
      family: 'server' as const,
      headers: { ...keys, Authorization: `Bearer ${access_token}` },
      operation: 'vouchers.get',
    }
    await warm(b, 'app_tokens', secret)
    await b.engine.auth.authenticate(withToken)
    expect(await statementsOf(b.store, () => b.engine.auth.authenticate(withToken))).toBe(0)
    const noticed = b.next((e) => e.type === 'notice' && e.collection === 'access_tokens')
    await a.engine.auth.revokeToken(keys, { access_token })
    await noticed
    await expect(b.engine.auth.authenticate(withToken)).rejects.toMatchObject({ key: 'token_revoked' })
  })

  it('listens on a channel of its schema: another schema on the same database is not told', async () => {
    const a = processStore('promo_engine')
    const other = processStore('promo_engine_b')
    const secret = 'c'.repeat(32)
    await a.engine.auth.createApplication({ family: 'server', app_id: 'app_schema', secret })
    await other.engine.auth.createApplication({ family: 'server', app_id: 'app_schema', secret })
    await warm(a, 'app_schema', secret)
    await warm(other, 'app_schema', secret)
    expect(noticeChannel('promo_engine')).not.toBe(noticeChannel('promo_engine_b'))
    // A marker sent on the other schema's channel: a listener gets notices in commit order, so once a
    // marker is in, every notice committed before it is too (its own createApplication's among them).
    // The marker names the tokens' table, so the credential this test reads stays cached.
    const barrier = async () => {
      const arrived = other.next((e) => e.type === 'notice' && e.collection === 'access_tokens')
      await db.pool.query('SELECT pg_notify($1, $2)', [noticeChannel('promo_engine_b'), 'access_tokens'])
      await arrived
    }
    await barrier()
    const before = other.seen.length
    const noticedHere = a.next((e) => e.type === 'notice')
    await a.engine.auth.rotateSecret('app_schema')
    await noticedHere
    await barrier()
    // The other schema's listener got no notice of its credentials between the markers; its store
    // still serves its own row from memory.
    expect(other.seen.slice(before).filter((e) => e.type === 'notice' && e.collection === 'credentials')).toEqual([])
    expect(await statementsOf(other.store, () => other.engine.auth.authenticate(request('app_schema', secret)))).toBe(0)
    expect(noticeChannel('s'.repeat(80)).length).toBeLessThanOrEqual(63)
  })

  it('is off with readCache: false, and in a host transaction, which reads its own uncommitted writes', async () => {
    const off = processStore('promo_engine', { readCache: false })
    const secret = 'f'.repeat(32)
    await off.engine.auth.createApplication({ family: 'server', app_id: 'app_off', secret })
    for (let i = 0; i < 3; i++) {
      expect(await statementsOf(off.store, () => off.engine.auth.authenticate(request('app_off', secret)))).toBe(1)
    }
    expect(off.store.stats.cached).toBe(0)

    const client = await db.pool.connect()
    try {
      await client.query('BEGIN')
      const store = createPostgresStore({ client })
      const engine = createEngine({ store, authentication: 'keys' })
      const { secret: rotated } = await engine.auth.rotateSecret('app_off')
      expect(await refusal(engine, 'app_off', secret)).toBe('unauthorized')
      await engine.auth.authenticate(request('app_off', rotated))
      expect(await statementsOf(store, () => engine.auth.authenticate(request('app_off', rotated)))).toBe(1)
      expect(store.stats.cached).toBe(0)
      await client.query('ROLLBACK')
    } finally {
      client.release()
    }
  })

  it('caches nothing when its pings do not come back (a pooler in transaction mode), and says so', async () => {
    const a = processStore('promo_engine', { deaf: true })
    const secret = 'p'.repeat(32)
    await a.engine.auth.createApplication({ family: 'server', app_id: 'app_deaf', secret })
    const down = a.next((e) => e.type === 'down')
    for (let i = 0; i < 3; i++) {
      expect(await statementsOf(a.store, () => a.engine.auth.authenticate(request('app_deaf', secret)))).toBe(1)
    }
    // The first heartbeat after the ping's statement returned finds it missing (HEARTBEAT_MS).
    await down
    expect(a.seen.filter((e) => e.type === 'ready')).toEqual([])
    expect(a.seen.find((e) => e.type === 'down')).toMatchObject({
      reason: 'a ping sent through the pool did not arrive',
    })
    expect(await statementsOf(a.store, () => a.engine.auth.authenticate(request('app_deaf', secret)))).toBe(1)
    expect(a.store.stats.cached).toBe(0)
  }, 20_000)

  it('closes its listener with the store', async () => {
    const a = processStore()
    const secret = 'l'.repeat(32)
    await a.engine.auth.createApplication({ family: 'server', app_id: 'app_closed', secret })
    await warm(a, 'app_closed', secret)
    const listening = async () =>
      (
        await db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pe_notify%' AND pid <> pg_backend_pid()`,
        )
      ).rows[0]?.n ?? 0
    const before = await listening()
    await a.store.close()
    // client.end() resolves once the server has the Terminate message; its backend may take a moment to go.
    for (let i = 0; i < 100 && (await listening()) >= before; i++) await new Promise((r) => setTimeout(r, 20))
    expect(await listening()).toBe(before - 1)
  })
})
