import pg from 'pg'
import type { CollectionName, IndexDeclarations, Repository, Store } from 'promo-engine/storage'
import { COLLECTIONS } from '../storage/collections'
import { quote, type TableLayout } from './columns'
import { type CommitStep, commitCall, commitStatement } from './commit-call'
import { type PoolLike, planGenerically, type Queryable, storeFault } from './connection'
import { feedPages, feedTrim } from './feed-page'
import { layouts, runMigrations } from './migrate'
import { namer, readBatcher } from './read-batching'
import { type CacheEvent, type ReadCache, readCache } from './read-cache'
import { giveConnection, type PostgresStoreStats, statements, takeConnection } from './statements'
import { tableReads } from './table-reads'
import { type WarmOptions, type WarmResult, warmConnections } from './warm-connections'

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

export interface PostgresStore extends Store {
  readonly stats: PostgresStoreStats
  readonly schema: string
  /** Creates or upgrades the schema (idempotent, safe from several processes at once). */
  migrate(): Promise<{ applied: number[] }>
  /**
   * Opens the pool's connections at once and prepares each for its first commit (docs/postgres.md#tuning):
   * a server calls it at start, before it reports ready, so no request pays for a new connection when
   * traffic grows. Writes nothing. A store on a host's transaction (`client`) has nothing to open.
   */
  warm(options?: WarmOptions): Promise<WarmResult>
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
  const sent = statements(db, stats, namer())

  const readFault = (error: unknown): never => {
    throw storeFault(error)
  }
  const read = readBatcher((text, values) => {
    stats.queries++
    try {
      return sent.jsonRow(db, text, values).then(undefined, readFault)
    } catch (error) {
      return readFault(error)
    }
  })
  const reads = { read, schema: s, cache }
  const repositories = Object.fromEntries(
    COLLECTIONS.map((c) => [c, tableReads(c, tables.get(c) as TableLayout, reads)]),
  ) as { [C in CollectionName]: Repository<C> }

  return {
    ...repositories,
    stats,
    schema,
    hostTransaction: options.client !== undefined,
    commit: commitCall({
      schema: s,
      pool,
      client: options.client,
      asyncActivities: options.asyncActivities === true,
      commitHook: options.commitHook,
      cache,
      stats,
      statements: sent,
    }),
    changes: feedPages(s, sent),
    trimChanges: feedTrim(s, sent),
    async migrate() {
      if (options.client) {
        return runMigrations(options.client, { schema, indexes: options.indexes ?? {} }).catch((error: unknown) => {
          throw storeFault(error)
        })
      }
      const client = await takeConnection(pool as PoolLike)
      let broken = false
      try {
        return await runMigrations(client, { schema, indexes: options.indexes ?? {} })
      } catch (error) {
        const fault = storeFault(error)
        broken = fault.key === 'store_unavailable'
        throw fault
      } finally {
        giveConnection(client, broken)
      }
    },
    async warm(warmOptions) {
      if (!pool) return { connections: 0, failed: [] }
      return warmConnections(pool, commitStatement(s), sent, stats, warmOptions)
    },
    async close() {
      await cache?.close()
      await ownPool?.end()
    },
  }
}

const ignore = () => {}

function ownedPool(connectionString: string): PoolLike {
  // A connection once opened is kept while idle (docs/postgres.md#tuning): a new one costs the request
  // that opens it the backend's start, the commit function's compile and every statement's first plan,
  // where node-postgres would close it after 10 s idle. Idle connections do not keep the process
  // alive (a host that forgets `close()` still exits).
  const pool = new pg.Pool({ connectionString, max: POOL_SIZE, idleTimeoutMillis: 0, allowExitOnIdle: true }).on(
    'error',
    ignore,
  )
  // Its statements planned once per connection (docs/postgres.md#plan-caching).
  planGenerically(pool as never)
  return pool as unknown as PoolLike
}
