import {
  JsonRowQuery,
  type PoolClientLike,
  type PoolLike,
  type Queryable,
  type QueryConfigLike,
  type QueryResultLike,
  storeFault,
} from './connection'

/** What the store counts, for tests and benchmarks that assert the cost of an operation without timing it. */
export interface PostgresStoreStats {
  /** Queries sent to the database (each is one round trip). */
  queries: number
  commits: number
  /** Reads answered from the read cache, without a statement (docs/postgres.md#read-cache). */
  cached: number
}

/** How a store sends its statements: each counted, named so a connection prepares it once. */
export interface Statements {
  /** A statement answered with its rows; a failure becomes an EngineError (docs/postgres.md#faults). */
  query<R>(text: string, values?: unknown[]): Promise<QueryResultLike<R>>
  /**
   * A statement whose columns are all JSON, answered as its first row's columns (one round trip).
   * Uncounted and unwrapped: the caller counts it and turns its failure into the fault it means.
   */
  jsonRow(via: Queryable, text: string, values: unknown[]): Promise<unknown[] | undefined>
}

export function statements(
  db: Queryable,
  stats: PostgresStoreStats,
  named: (text: string) => string | undefined,
): Statements {
  // node-postgres in pipeline mode refuses query objects of its users' own (docs/postgres.md#driver-path).
  const wire = !pipelined(db)
  return {
    async query<R>(text: string, values?: unknown[]): Promise<QueryResultLike<R>> {
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
    },
    // Not an async function: its promise is the driver's own, without a wrapper's turns of the queue.
    jsonRow(via, text, values) {
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
    },
  }
}

/** A connection from the pool, listened on while the store holds it (see PoolClientLike). */
export async function takeConnection(pool: PoolLike): Promise<PoolClientLike> {
  let client: PoolClientLike
  try {
    client = await pool.connect()
  } catch (error) {
    throw storeFault(error)
  }
  // The query in flight gets the error too, and reports it; a broken connection is discarded.
  client.on?.('error', ignore)
  return client
}

export function giveConnection(client: PoolClientLike, discard: boolean): void {
  client.removeListener?.('error', ignore)
  client.release(discard)
}

const ignore = () => {}

/** A pool or client of node-postgres made with `pipeline: true`. */
function pipelined(db: Queryable): boolean {
  const x = db as { pipeline?: unknown; options?: { pipeline?: unknown } }
  return Boolean(x.pipeline || x.options?.pipeline)
}

/** A statement's first row's columns, from a query object's answer (already them) or a driver's result. */
function asFirstRow(answer: unknown): unknown[] | undefined {
  if (answer === undefined || Array.isArray(answer)) return answer
  const first = (answer as QueryResultLike<Record<string, unknown>>).rows[0]
  return first === undefined ? undefined : Object.values(first)
}
