import pg from 'pg'
import type {
  Change,
  ChangePage,
  Changeset,
  ChangesQuery,
  CollectionName,
  CommitResult,
  Entity,
  IndexDeclarations,
  Repository,
  Store,
  StoredRow,
} from 'promo-engine/storage'
import { COLLECTIONS } from '../storage/collections'
import { commitSteps, insertedKeys, keyedCollections, outcome, type Sent } from './changeset'
import { quote, type TableLayout } from './columns'
import {
  commitFault,
  JsonRowQuery,
  type PoolClientLike,
  type PoolLike,
  planGenerically,
  type Queryable,
  type QueryConfigLike,
  type QueryResultLike,
  storeFault,
} from './connection'
import { feedHorizon } from './feed-numbering'
import { listPage, type Packed, packed } from './list-query'
import { layouts, runMigrations } from './migrate'
import { namer, readBatcher } from './read-batching'
import { CACHED, type CacheEvent, type ReadCache, readCache } from './read-cache'

/** Where a commit is when the test hook is called (`PostgresStoreOptions.commitHook`). */
export type CommitStep = 'begin' | 'applied' | 'committed'

export interface PostgresStoreOptions {
  /** A `pg.Pool` (the store takes a connection per commit and gives it back). */
  pool?: PoolLike
  /** Or a connection string: the store makes its own pool (closed by `close()`). */
  connectionString?: string
  /**
   * Or one client inside a transaction the host opened (docs/postgres.md#host-transaction): the store
   * neither begins nor commits, and a conflict is returned to the engine, never retried here.
   */
  client?: Queryable
  /** The schema holding the tables (default `promo_engine`). */
  schema?: string
  /** Indexes beyond the engine's own (`INDEXES`), for a host's own list queries; `migrate()` creates them. */
  indexes?: IndexDeclarations
  /**
   * Commits that only append activities (a validation without a session) return before their WAL
   * record reaches the disk (`synchronous_commit = off` for that transaction alone): a crash of the
   * database server can lose the last of them, up to three `wal_writer_delay`s (600 ms by default),
   * never part of a commit nor any other write (docs/postgres.md#asynchronous-activity-commits).
   * Default false. Ignored in a host's transaction (`client`), whose commit is the host's.
   */
  asyncActivities?: boolean
  /**
   * Keeps the rows authentication reads at every request (credentials by app id, access tokens by
   * hash) in memory, dropped when a commit of any process writes their table: the tables' triggers
   * notify a channel of the schema at commit, and the store listens on a connection of its own
   * (docs/postgres.md#read-cache). Nothing is served from memory while that connection is not known
   * to receive notices. Default true with `connectionString` or a node-postgres `pg.Pool` (the
   * listening connection is made as the pool makes its own, outside it); never in a host's
   * transaction (`client`) nor with another pool. Set false behind a pooler in transaction mode
   * (PgBouncer), where LISTEN does not hold: the store then finds no proof that notices arrive and
   * caches nothing, but keeps trying.
   */
  readCache?: boolean
  /**
   * Told when the read cache's listener is ready, dropped, or receives a notice (for a host's logs,
   * and tests). The listener is shared by the stores made on one pool and schema: a later store's
   * may be ready already.
   */
  cacheHook?: (event: CacheEvent) => void
  /**
   * Testing hook: when set, a commit runs as BEGIN, the commit function, COMMIT (three round trips
   * instead of one) and the hook is awaited after each, so a test can kill the process between them.
   * `pauseAfterWrite` makes the function itself sleep after its k-th step (1-based; a step is the
   * writes of one collection, docs/postgres.md#commit).
   */
  commitHook?: {
    after?: (step: CommitStep) => void | Promise<void>
    pauseAfterWrite?: { after: number; seconds: number }
  }
}

/**
 * Connections of the pool a store makes from a connection string (docs/postgres.md#tuning): each
 * request holds one for one statement at a time (a level of reads, then the commit), so this many
 * requests of one process are in the database at once; more would queue inside the server instead.
 */
export const POOL_SIZE = 10

/** What the store counts, for tests and benchmarks that assert the cost of an operation without timing it. */
export interface PostgresStoreStats {
  /** Queries sent to the database (each is one round trip). */
  queries: number
  commits: number
  /** Reads answered from the read cache, without a statement (docs/postgres.md#read-cache). */
  cached: number
}

export interface PostgresStore extends Store {
  readonly stats: PostgresStoreStats
  readonly schema: string
  /** Creates or upgrades the schema (idempotent, safe from several processes at once). */
  migrate(): Promise<{ applied: number[] }>
  /**
   * Closes the read cache's listening connection and the pool the store made from a connection
   * string (a pool or client passed in stays open).
   */
  close(): Promise<void>
}

/**
 * The PostgreSQL store (docs/postgres.md): one table per collection, entities as JSONB with their
 * version and shape, natural keys and declared index fields as derived columns (kept by a row trigger), every
 * commit one call of a function `migrate()` installs.
 */
export function createPostgresStore(options: PostgresStoreOptions): PostgresStore {
  const schema = options.schema ?? 'promo_engine'
  const s = quote(schema)
  const tables = layouts(schema, options.indexes)
  const stats: PostgresStoreStats = { queries: 0, commits: 0, cached: 0 }
  const named = namer()
  const given = [options.pool, options.connectionString, options.client].filter((x) => x !== undefined)
  if (given.length !== 1) throw new Error('createPostgresStore needs exactly one of pool, connectionString or client')
  const ownPool =
    options.connectionString === undefined
      ? undefined
      : // An idle connection the server drops (a restart, a failover) is reported on the pool; without a
        // listener node-postgres would crash the process. The next query gets a new connection, and a
        // query that fails becomes an EngineError (docs/postgres.md#faults).
        // Sized for the work (docs/postgres.md#tuning): a request holds one connection per round trip.
        ownedPool(options.connectionString)
  const pool = options.pool ?? ownPool
  const db: Queryable = pool ?? (options.client as Queryable)
  const cache: ReadCache | undefined =
    pool === undefined || options.readCache === false
      ? undefined
      : readCache(pool, schema, options.cacheHook, () => {
          stats.cached++
        })

  async function query<R>(text: string, values?: unknown[]): Promise<QueryResultLike<R>> {
    stats.queries++
    try {
      const config: QueryConfigLike = { text }
      const name = named(text)
      if (name !== undefined) config.name = name
      if (values !== undefined) config.values = values
      return await db.query<R>(config)
    } catch (error) {
      throw storeFault(error)
    }
  }

  // node-postgres in pipeline mode refuses query objects of its users' own (docs/postgres.md#driver-path).
  const wire = !pipelined(db)

  /**
   * A statement whose columns are all JSON, answered as its first row's columns (one round trip).
   * Not an async function: its promise is the driver's own, without a wrapper's turns of the queue.
   */
  function jsonRow(via: Queryable, text: string, values: unknown[]): Promise<unknown[] | undefined> {
    if (wire) {
      const q = new JsonRowQuery(named(text) ?? '', text, values)
      const sent = via.query(q as never) as unknown
      // A pool answers with a promise of its own; a client returns the query object itself. A host's
      // own `Queryable` that ran it as a plain config (its text, name and values) answers a result.
      return sent === q ? q.answer : (sent as Promise<unknown>).then(asFirstRow)
    }
    const config: QueryConfigLike = { text, values }
    const name = named(text)
    if (name !== undefined) config.name = name
    return via.query(config).then(asFirstRow)
  }

  const readFault = (error: unknown): never => {
    throw storeFault(error)
  }
  const read = readBatcher((text, values) => {
    stats.queries++
    try {
      return jsonRow(db, text, values).then(undefined, readFault)
    } catch (error) {
      return readFault(error)
    }
  })

  const table = (c: CollectionName) => `${s}.${quote(c)}`
  const layoutOf = (c: CollectionName) => tables.get(c) as TableLayout

  function repository<C extends CollectionName>(collection: C): Repository<C> {
    const t = table(collection)
    const layout = layoutOf(collection)
    // The value as stored, with its shape: the engine upgrades an older one (docs/storage.md#shape-versions).
    const asStored = (row: Packed): StoredRow<Entity<C>> => ({
      value: row[1] as Entity<C>,
      version: row[2],
      shape: row[3],
    })
    const keyOf = (key: string) => {
      const k = layout.keys.find((x) => x.key === key)
      if (!k) throw new Error(`${collection} has no natural key ${key}`)
      return k
    }
    const keyValues = (value: string | readonly string[]): readonly string[] =>
      typeof value === 'string' ? [value] : value
    // The reads' texts, made once: a read of the same shape is the same string (see `statement`).
    const getSql = packed(`FROM ${t} WHERE id = $1`)
    const getManySql = packed(`FROM ${t} WHERE id = ANY($1::text[])`)
    const findBySql = new Map<string, string>()
    const cached = cache !== undefined && CACHED.includes(collection) ? cache : undefined
    const findManySql = new Map<string, string>()
    const listTarget = { read, table: t, layout, schema: s, collection, statements: new Map<string, string>() }
    return {
      async get(id) {
        const [row] = await read<Packed[]>(getSql, [id])
        return row ? asStored(row) : undefined
      },
      async getMany(ids) {
        if (ids.length === 0) return []
        const rows = await read<Packed[]>(getManySql, [ids])
        const byId = new Map(rows.map((r) => [r[0], r]))
        return ids.flatMap((id) => {
          const row = byId.get(id)
          return row ? [asStored(row)] : []
        })
      },
      async findBy(key, value) {
        let sql = findBySql.get(key)
        if (sql === undefined) {
          const where = keyOf(key)
            .columns.map((c, i) => `${quote(c)} = $${i + 1}::text`)
            .join(' AND ')
          sql = packed(`FROM ${t} WHERE ${where}`)
          findBySql.set(key, sql)
        }
        if (cached === undefined) {
          const [row] = await read<Packed[]>(sql, [...keyValues(value)])
          return row ? asStored(row) : undefined
        }
        // Found rows only: an unknown app id or token is read every time (docs/postgres.md#read-cache).
        const entry = typeof value === 'string' ? `${key}\u0000${value}` : `${key}\u0000${value.join('\u0000')}`
        const hit = cached.get(collection, entry)
        if (hit !== undefined) return hit as StoredRow<Entity<C>>
        const generation = cached.generation(collection)
        const [row] = await read<Packed[]>(sql, [...keyValues(value)])
        if (!row) return undefined
        const found = asStored(row)
        cached.set(collection, entry, generation, found)
        return found
      },
      async findMany(key, values) {
        if (values.length === 0) return []
        const k = keyOf(key)
        const tuples = values.map(keyValues)
        const params = k.columns.map((_, i) => tuples.map((t) => t[i] ?? null))
        let sql = findManySql.get(key)
        if (sql === undefined) {
          const cols = k.columns.map(quote)
          const extra = `, ${cols.join(', ')}`
          sql =
            cols.length === 1
              ? packed(`FROM ${t} WHERE ${cols[0]} = ANY($1::text[])`, extra)
              : packed(
                  `FROM ${t} WHERE (${cols.join(', ')}) IN (SELECT * FROM unnest(${cols.map((_, i) => `$${i + 1}::text[]`).join(', ')}))`,
                  extra,
                )
          findManySql.set(key, sql)
        }
        const rows = await read<Packed[]>(sql, params)
        // Keys joined by NUL, which a PostgreSQL text value cannot hold: no JSON per row and per tuple.
        const byKey = new Map<string, Packed>()
        for (const r of rows) byKey.set(r.length === 5 ? String(r[4]) : r.slice(4).join('\u0000'), r)
        return tuples.flatMap((tuple) => {
          const row = byKey.get(tuple.length === 1 ? (tuple[0] as string) : tuple.join('\u0000'))
          return row ? [asStored(row)] : []
        })
      },
      async list(q = {}) {
        return listPage(listTarget, q, asStored)
      },
    }
  }

  const commitSql = `SELECT ${s}.pe_commit($1::jsonb) AS r`

  async function commit(changeset: Changeset): Promise<CommitResult> {
    stats.commits++
    const keys = insertedKeys(changeset)
    const keyed = keyedCollections(
      changeset.alternatives?.length
        ? [...changeset.writes, ...changeset.alternatives.flatMap((a) => a.writes)]
        : changeset.writes,
    )
    // Built field by field: no object spreads on the path of every commit.
    const body: Record<string, unknown> = {}
    if (options.asyncActivities && !options.client && onlyAppendsActivities(changeset)) body.async = true
    body.steps = commitSteps(changeset.writes, (changeset.alternatives?.length ?? 0) > 0)
    if (keys.length > 0) body.keys = keys
    if (keyed.length > 0) body.uk = keyed
    if (changeset.alternatives?.length) {
      body.alternatives = changeset.alternatives.map(({ when: { collection, ...when }, tolerate = [], writes }) => ({
        when: { c: collection, ...when },
        tolerate: tolerate.map(({ collection: c, id, path }) => ({ c, id, path })),
        steps: commitSteps(writes),
      }))
    }
    if (options.commitHook?.pauseAfterWrite) body.pause = options.commitHook.pauseAfterWrite
    const payload = JSON.stringify(body)
    if (cache === undefined) return send(body, payload)
    // What this process writes is dropped from its own cache when the commit ends, however it ends,
    // without waiting for the notice (a conflict there means what it read may be old too).
    const written = cachedWritten(changeset)
    if (written.length === 0) return send(body, payload)
    try {
      return await send(body, payload)
    } finally {
      for (const c of written) cache.invalidate(c)
    }
  }

  async function send(body: Record<string, unknown>, payload: string): Promise<CommitResult> {
    if (options.client) {
      // The host's transaction: one statement, no BEGIN/COMMIT of ours.
      return outcome(await runCommit(options.client, commitSql, payload), body as unknown as Sent)
    }
    const client = await take()
    let broken: Error | undefined
    try {
      const hook = options.commitHook?.after
      if (!hook) return outcome(await runCommit(client, commitSql, payload), body as unknown as Sent)
      await runStatement(client, 'BEGIN')
      await hook('begin')
      const r = await runCommit(client, commitSql, payload)
      await hook('applied')
      await runStatement(client, 'COMMIT')
      await hook('committed')
      return outcome(r, body as unknown as Sent)
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error))
      throw error
    } finally {
      give(client, broken !== undefined && (broken as { key?: string }).key !== 'commit_failed')
    }
  }

  /** A connection from the pool, listened on while the store holds it (see PoolClientLike). */
  async function take(): Promise<PoolClientLike> {
    let client: PoolClientLike
    try {
      client = await (pool as PoolLike).connect()
    } catch (error) {
      throw storeFault(error)
    }
    // The query in flight gets the error too, and reports it; a broken connection is discarded.
    client.on?.('error', ignore)
    return client
  }

  function give(client: PoolClientLike, discard: boolean): void {
    client.removeListener?.('error', ignore)
    client.release(discard)
  }

  async function runStatement(client: Queryable, text: string): Promise<void> {
    stats.queries++
    try {
      await client.query(text)
    } catch (error) {
      throw commitFault(error)
    }
  }

  async function runCommit(client: Queryable, sql: string, payload: string): Promise<unknown> {
    stats.queries++
    try {
      return (await jsonRow(client, sql, [payload]))?.[0]
    } catch (error) {
      const code = (error as { code?: unknown }).code
      // Raised outside the function's own handler (at COMMIT in the host's transaction, for one): still a conflict.
      if (code === '40001' || code === '40P01')
        return { ok: false, conflict: { collection: 'locks', id: '', reason: 'version' } }
      throw commitFault(error)
    }
  }

  /**
   * Readers stop below the oldest transaction in progress (docs/postgres.md#change-feed-and-late-commits):
   * every position below it is final, so a cursor never passes a commit that appears later.
   */
  const horizon = feedHorizon(s)

  async function changes(q: ChangesQuery = {}): Promise<ChangePage> {
    const after = q.after ?? 0
    const limit = q.limit ?? 100
    const only = q.collections && q.collections.length > 0 ? q.collections : undefined
    const filter = only ? ' AND collection = ANY($3::text[])' : ''
    // One statement: the seq of the limit-th matching change below the horizon (the page ends with
    // that commit, whole), the page, whether more follows, and the last commit below the horizon.
    const sql = `WITH h AS (SELECT ${horizon} AS h),
      edge AS (SELECT seq FROM ${s}.pe_changes, h WHERE seq > $1 AND seq < h.h${filter} ORDER BY seq, pos OFFSET $2 LIMIT 1),
      page AS (SELECT c.seq, c.pos, c.collection, c.id, c.op, c.version, c.value, c.shape FROM ${s}.pe_changes c, h
        WHERE c.seq > $1 AND c.seq < h.h AND c.seq <= coalesce((SELECT seq FROM edge), h.h)${filter.replace('collection', 'c.collection')})
      SELECT (SELECT seq FROM edge) AS edge,
        (SELECT EXISTS (SELECT 1 FROM ${s}.pe_changes, h WHERE seq > (SELECT seq FROM edge) AND seq < h.h)) AS more,
        (SELECT max(seq) FROM ${s}.pe_changes, h WHERE seq > $1 AND seq < h.h) AS last,
        p.seq, p.collection, p.id, p.op, p.version, p.value, p.shape
      FROM (SELECT 1) one LEFT JOIN page p ON TRUE ORDER BY p.seq, p.pos`
    const { rows } = await query<
      Omit<Change, 'seq'> & {
        seq: string | null
        shape: number | null
        edge: string | null
        more: boolean | null
        last: string | null
      }
    >(sql, only ? [after, limit - 1, only] : [after, limit - 1])
    const head = rows[0]
    const data: Change[] = rows
      .filter((r) => r.seq !== null)
      .map((r) => ({
        seq: Number(r.seq),
        collection: r.collection,
        id: r.id,
        op: r.op,
        version: r.version,
        value: r.op === 'put' ? r.value : null,
        // Changes written before the feed recorded shapes (schema version 3) carry none: read as written.
        shape: r.op === 'put' ? r.shape : null,
      }))
    if (head?.edge != null) return { data, has_more: head.more === true, next_after: Number(head.edge) }
    // Fewer than `limit` matched: the cursor moves past every commit read, matching or not.
    return { data, has_more: false, next_after: head?.last == null ? after : Number(head.last) }
  }

  const repositories = Object.fromEntries(COLLECTIONS.map((c) => [c, repository(c)])) as {
    [C in CollectionName]: Repository<C>
  }

  return {
    ...repositories,
    stats,
    schema,
    hostTransaction: options.client !== undefined,
    commit,
    changes,
    async migrate() {
      if (options.client) {
        return runMigrations(options.client, { schema, indexes: options.indexes ?? {} }).catch((error: unknown) => {
          throw storeFault(error)
        })
      }
      const client = await take()
      let broken = false
      try {
        return await runMigrations(client, { schema, indexes: options.indexes ?? {} })
      } catch (error) {
        const fault = storeFault(error)
        broken = fault.key === 'store_unavailable'
        throw fault
      } finally {
        give(client, broken)
      }
    },
    async close() {
      await cache?.close()
      await ownPool?.end()
    },
  }
}

const ignore = () => {}

function ownedPool(connectionString: string): PoolLike {
  const pool = new pg.Pool({ connectionString, max: POOL_SIZE }).on('error', ignore)
  // Its statements planned once per connection (docs/postgres.md#plan-caching).
  planGenerically(pool as never)
  return pool as unknown as PoolLike
}

/** A pool or client of node-postgres made with `pipeline: true`. */
function pipelined(db: Queryable): boolean {
  const x = db as { pipeline?: unknown; options?: { pipeline?: unknown } }
  return Boolean(x.pipeline || x.options?.pipeline)
}

/** The cached collections a changeset (or one of its alternatives) writes. */
function cachedWritten(changeset: Changeset): CollectionName[] {
  const out: CollectionName[] = []
  const visit = (writes: readonly { collection: CollectionName }[]) => {
    for (const w of writes) if (CACHED.includes(w.collection) && !out.includes(w.collection)) out.push(w.collection)
  }
  visit(changeset.writes)
  for (const a of changeset.alternatives ?? []) visit(a.writes)
  return out
}

/** A changeset that writes nothing but new activities (docs/postgres.md#asynchronous-activity-commits). */
function onlyAppendsActivities(changeset: Changeset): boolean {
  return (
    changeset.writes.length > 0 &&
    !changeset.alternatives?.length &&
    changeset.writes.every((w) => w.collection === 'activities' && w.op === 'put' && w.expectedVersion === null)
  )
}

/** A statement's first row's columns, from a query object's answer (already them) or a driver's result. */
function asFirstRow(answer: unknown): unknown[] | undefined {
  if (answer === undefined || Array.isArray(answer)) return answer
  const first = (answer as QueryResultLike<Record<string, unknown>>).rows[0]
  return first === undefined ? undefined : Object.values(first)
}
