import { createHash } from 'node:crypto'
import type { CollectionName, StoredRow } from 'promo-engine/storage'
import { literal, quote } from './columns'
import type { Queryable } from './connection'

/*
 * The read cache (docs/postgres.md#read-cache): what authentication reads at every request, the
 * application's credential by app id and a bearer token by its hash, kept in memory by each store
 * and dropped when a commit anywhere writes its table. The tables' statement triggers (installed by
 * `migrate()`, `notifyDdl`) send `pg_notify(<channel of the schema>, <table>)` in the writing
 * transaction, so the notice is delivered at its commit; every process's store listens on a
 * connection of its own and serves nothing from the cache while that connection is not known to
 * receive notices.
 */

/** The collections whose reads by natural key are cached: read per request, written rarely. */
export const CACHED: readonly CollectionName[] = ['credentials', 'access_tokens']

/** Entries kept per collection; a full cache is emptied (the rows are few: applications, live tokens). */
const MAX_ENTRIES = 10_000

/**
 * How often the listener proves it still receives notices: a `pg_notify` of a ping sent through the
 * pool, which must be back on the listener before the next tick once its statement has returned.
 */
export const HEARTBEAT_MS = 5_000

/** The channel of a schema's notices: PostgreSQL keeps 63 bytes of a channel name. */
export function noticeChannel(schema: string): string {
  const plain = `pe_cache_${schema}`
  return Buffer.byteLength(plain) <= 63 ? plain : `pe_cache_${createHash('md5').update(schema).digest('hex')}`
}

/**
 * The function and statement triggers that send the notices (every `migrate()` run: replaced, and
 * the triggers made when missing). A statement trigger fires once per statement, whatever the rows:
 * a commit writing one of these tables sends one notice per table, folded into one per transaction.
 */
export function notifyDdl(schema: string): string {
  const s = quote(schema)
  const triggers = CACHED.map(
    (
      c,
    ) => `IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = ${literal(`${s}.${quote(c)}`)}::regclass AND tgname = 'pe_notify') THEN
    CREATE TRIGGER pe_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${s}.${quote(c)}
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.pe_notify();
  END IF;`,
  )
  return `CREATE OR REPLACE FUNCTION ${s}.pe_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(${literal(noticeChannel(schema))}, TG_TABLE_NAME);
  RETURN NULL;
END $$;
DO $$ BEGIN
  ${triggers.join('\n  ')}
END $$`
}

/** What the store's testing hook is told (`PostgresStoreOptions.cacheHook`). */
export type CacheEvent = { type: 'ready' } | { type: 'down'; reason: string } | { type: 'notice'; collection: string }

/** A node-postgres `Client` as the listener uses it. */
interface ListenClient extends Queryable {
  connect(): Promise<unknown>
  end(): Promise<void>
  on(event: 'notification', listener: (msg: { channel: string; payload?: string }) => void): unknown
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown
  connection?: { stream?: { unref?: () => void } }
}

/** A `pg.Pool`: the listener's connection is made as the pool makes its own (its client class, its options). */
interface PoolSource extends Queryable {
  Client: new (config: object) => ListenClient
  options: object
}

function poolSource(pool: unknown): PoolSource | undefined {
  const p = pool as Partial<PoolSource> | undefined
  return typeof p?.Client === 'function' && typeof p.options === 'object' && p.options !== null
    ? (p as PoolSource)
    : undefined
}

interface Subscriber {
  /** Drops the collection's entries (all collections when undefined). */
  invalidate(collection: string | undefined): void
  hook?: ((event: CacheEvent) => void) | undefined
}

/**
 * One listening connection per pool and schema, shared by the stores made on them (a host or a test
 * making many stores opens one). It connects when a store first asks whether it may serve from its
 * cache, and again after a drop, at most once a second (doubling to 30 s while attempts fail).
 */
class Listener {
  private state: 'idle' | 'connecting' | 'ready' | 'closed' = 'idle'
  private client: ListenClient | undefined
  private nextAttempt = 0
  private backoff = 1000
  private timer: ReturnType<typeof setInterval> | undefined
  /** The ping sent and not yet received, and when its statement returned (0: not yet). */
  private ping: { nonce: string; sentAt: number } | undefined
  readonly subscribers = new Set<Subscriber>()
  private readonly channel: string

  constructor(
    private readonly pool: PoolSource,
    private readonly schema: string,
    private readonly release: () => void,
  ) {
    this.channel = noticeChannel(schema)
  }

  /** True when notices are known to arrive; starts connecting otherwise. */
  serving(): boolean {
    if (this.state === 'ready') return true
    if (this.state === 'idle' && Date.now() >= this.nextAttempt) void this.connect()
    return false
  }

  private emit(event: CacheEvent): void {
    for (const s of this.subscribers) s.hook?.(event)
  }

  private invalidate(collection: string | undefined): void {
    for (const s of this.subscribers) s.invalidate(collection)
  }

  private async connect(): Promise<void> {
    this.state = 'connecting'
    this.nextAttempt = Date.now() + this.backoff
    const client = new this.pool.Client({ ...this.pool.options, keepAlive: true })
    this.client = client
    let dropped = false
    const drop = (error?: Error) => {
      if (dropped) return
      dropped = true
      this.down(client, error?.message ?? 'the connection ended')
    }
    client.on('error', drop)
    client.on('end', drop)
    client.on('notification', (msg) => {
      if (msg.channel !== this.channel || this.client !== client) return
      const payload = msg.payload ?? ''
      if (payload.startsWith('ping ')) {
        if (this.ping?.nonce === payload.slice(5)) {
          this.ping = undefined
          if (this.state === 'connecting') this.becomeReady()
        }
        return
      }
      // A notice of a table: dropped whether or not the listener is ready yet (it clears all when it is).
      this.invalidate(payload === '' ? undefined : payload)
      this.emit({ type: 'notice', collection: payload })
    })
    try {
      await client.connect()
      // The listener alone never keeps a process alive (a host that forgets `close()` still exits).
      client.connection?.stream?.unref?.()
      await client.query(`LISTEN ${quote(this.channel)}`)
      const { rows } = await client.query<{ n: string | number }>(
        `SELECT count(*) AS n FROM pg_trigger WHERE tgname = 'pe_notify' AND tgrelid IN (${CACHED.map((_, i) => `to_regclass($${i + 1})`).join(', ')})`,
        CACHED.map((c) => `${quote(this.schema)}.${quote(c)}`),
      )
      // A schema not migrated by this release sends no notices: nothing is cached (retried later).
      if (Number(rows[0]?.n) !== CACHED.length) throw new Error('the schema has no pe_notify triggers (not migrated)')
      if (this.client !== client) return
      // Ready once a ping sent through the pool comes back here: proof that notices of other sessions
      // reach this one (a pooler in transaction mode, where LISTEN does not hold, never gets there).
      this.timer = setInterval(() => this.tick(client), HEARTBEAT_MS)
      this.timer.unref?.()
      this.sendPing()
    } catch (error) {
      drop(error instanceof Error ? error : new Error(String(error)))
    }
  }

  private becomeReady(): void {
    this.state = 'ready'
    this.backoff = 1000
    // Reads started before now are not cached (their generation moves), nor anything kept before.
    this.invalidate(undefined)
    this.emit({ type: 'ready' })
  }

  private sendPing(): void {
    const nonce = Math.random().toString(36).slice(2)
    const ping = { nonce, sentAt: 0 }
    this.ping = ping
    this.pool.query('SELECT pg_notify($1, $2)', [this.channel, `ping ${nonce}`]).then(
      () => {
        ping.sentAt = Date.now()
      },
      () => {
        // The pool failed (the database away, the pool ended): no proof either way; the next tick retries.
        if (this.ping === ping) this.ping = undefined
      },
    )
  }

  private tick(client: ListenClient): void {
    if (this.client !== client) return
    // A ping whose statement returned a second or more ago and never arrived: notices are not
    // reaching this connection.
    const sentAt = this.ping?.sentAt ?? 0
    if (sentAt > 0 && Date.now() - sentAt >= 1000) {
      this.down(client, 'a ping sent through the pool did not arrive')
      return
    }
    if (this.ping === undefined) this.sendPing()
  }

  private down(client: ListenClient, reason: string): void {
    if (this.client !== client) return
    this.client = undefined
    this.ping = undefined
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    client.end().catch(() => {})
    if (this.state === 'closed') return
    const was = this.state
    this.state = 'idle'
    if (was !== 'ready') this.backoff = Math.min(this.backoff * 2, 30_000)
    // A listener that was serving is made again at the next read; one that never got ready waits.
    this.nextAttempt = was === 'ready' ? 0 : Math.max(this.nextAttempt, Date.now() + this.backoff)
    this.invalidate(undefined)
    this.emit({ type: 'down', reason })
  }

  unsubscribe(subscriber: Subscriber): Promise<void> {
    this.subscribers.delete(subscriber)
    if (this.subscribers.size > 0) return Promise.resolve()
    this.state = 'closed'
    this.release()
    const client = this.client
    this.client = undefined
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    return client ? client.end().catch(() => {}) : Promise.resolve()
  }
}

const listeners = new WeakMap<object, Map<string, Listener>>()

function listenerFor(pool: PoolSource, schema: string): Listener {
  let bySchema = listeners.get(pool)
  if (!bySchema) {
    bySchema = new Map()
    listeners.set(pool, bySchema)
  }
  let listener = bySchema.get(schema)
  if (!listener) {
    const map = bySchema
    listener = new Listener(pool, schema, () => {
      if (map.get(schema) === listener) map.delete(schema)
    })
    map.set(schema, listener)
  }
  return listener
}

/** A store's cache of rows by natural key, per cached collection. */
export interface ReadCache {
  /** The cached row, when the listener is ready and holds one (undefined otherwise). */
  get(collection: CollectionName, key: string): StoredRow<unknown> | undefined
  /** The current generation of a collection: a read keeps its row only if it has not moved meanwhile. */
  generation(collection: CollectionName): number
  /** Keeps a row read at `generation`, unless something was invalidated since or the listener is not ready. */
  set(collection: CollectionName, key: string, generation: number, row: StoredRow<unknown>): void
  /** Drops what this process itself wrote (its commit, ended however it ended), before any notice. */
  invalidate(collection: CollectionName): void
  close(): Promise<void>
}

/** The store's cache over `pool` (a `pg.Pool`), or undefined when the pool cannot make a listener. */
export function readCache(
  pool: unknown,
  schema: string,
  hook: ((event: CacheEvent) => void) | undefined,
  counted: () => void,
): ReadCache | undefined {
  const source = poolSource(pool)
  if (!source) return undefined
  const entries = new Map<string, Map<string, StoredRow<unknown>>>(CACHED.map((c) => [c, new Map()]))
  const generations = new Map<string, number>(CACHED.map((c) => [c, 0]))
  const drop = (collection: string) => {
    const map = entries.get(collection)
    if (!map) return
    map.clear()
    generations.set(collection, (generations.get(collection) ?? 0) + 1)
  }
  const subscriber: Subscriber = {
    invalidate(collection) {
      if (collection === undefined || !entries.has(collection)) for (const c of CACHED) drop(c)
      else drop(collection)
    },
    hook,
  }
  const listener = listenerFor(source, schema)
  listener.subscribers.add(subscriber)
  let closed = false
  return {
    get(collection, key) {
      if (closed || !listener.serving()) return undefined
      const row = entries.get(collection)?.get(key)
      if (row !== undefined) counted()
      return row
    },
    generation: (collection) => generations.get(collection) ?? 0,
    set(collection, key, generation, row) {
      if (closed || generations.get(collection) !== generation || !listener.serving()) return
      const map = entries.get(collection)
      if (!map) return
      if (map.size >= MAX_ENTRIES) map.clear()
      map.set(key, row)
    },
    invalidate: (collection) => drop(collection),
    close() {
      if (closed) return Promise.resolve()
      closed = true
      for (const c of CACHED) drop(c)
      return listener.unsubscribe(subscriber)
    },
  }
}
