import { EngineError } from '../errors'

/*
 * What the adapter needs of node-postgres, typed structurally so the published types do not depend
 * on `@types/pg`: a `pg.Pool`, a `pg.Client` or a pool client fits.
 */

export interface QueryResultLike<R> {
  rows: R[]
}

/** A named query (node-postgres prepares it once per connection and reuses it by name). */
export interface QueryConfigLike {
  name?: string
  text: string
  values?: unknown[]
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string | QueryConfigLike, values?: unknown[]): Promise<QueryResultLike<R>>
}

/** A connection taken from a pool: the adapter commits on one and gives it back. */
export interface PoolClientLike extends Queryable {
  release(error?: Error | boolean): void
  /**
   * node-postgres reports a connection that breaks while taken as an `error` event, which crashes
   * the process when nothing listens: the adapter listens while it holds the connection.
   */
  on?(event: 'error', listener: (error: Error) => void): unknown
  removeListener?(event: 'error', listener: (error: Error) => void): unknown
}

export interface PoolLike extends Queryable {
  connect(): Promise<PoolClientLike>
  end(): Promise<void>
}

/** The SQLSTATE of an error the server sent; none when node-postgres or the socket failed first. */
function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error'
  const code = (error as { code?: unknown }).code
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}`.slice(0, 200)
}

/**
 * A database fault of a read (or of taking a connection) as an EngineError with a stable key
 * (docs/postgres.md#faults); nothing was written:
 *
 * - `store_unavailable`: no answer (refused, dropped, a connect or query timeout of the pool, every
 *   connection taken) or a server that cannot serve now (SQLSTATE classes 08 connection, 53
 *   resources, 57 shutdown, cancel, `statement_timeout`): worth retrying later;
 * - `concurrent_modification` (409): a serialization failure or deadlock (40001, 40P01), which a read
 *   meets only in a host's transaction above READ COMMITTED: the host retries its transaction;
 * - `store_error`: anything else the database refused (a schema not migrated, a permission).
 */
export function storeFault(error: unknown): EngineError {
  if (error instanceof EngineError) return error
  const state = sqlState(error)
  if (state === '40001' || state === '40P01') {
    return EngineError.conflict('concurrent_modification', `The database aborted the read: ${describe(error)}`)
  }
  return state === undefined || /^(08|53|57)/.test(state)
    ? new EngineError({
        code: 500,
        key: 'store_unavailable',
        message: 'The database could not be reached',
        details: describe(error),
      })
    : new EngineError({
        code: 500,
        key: 'store_error',
        message: 'The database refused a query',
        details: describe(error),
      })
}

/**
 * A fault while a commit was sent. When no answer came (the connection broke or timed out), or the
 * server went away mid-statement (08 connection, 57P shutdown: a transaction can have committed
 * before its backend was terminated), the commit may or may not have been applied:
 * `commit_outcome_unknown` (retry only with an idempotency key). When the server answered with any
 * other error (a refused value, `statement_timeout`, disk full), the statement failed and its
 * transaction rolled back: `commit_failed`, nothing was written.
 */
export function commitFault(error: unknown): EngineError {
  if (error instanceof EngineError) return error
  const state = sqlState(error)
  return state === undefined || /^(08|57P)/.test(state)
    ? new EngineError({
        code: 500,
        key: 'commit_outcome_unknown',
        message: 'The connection was lost during the commit: it may or may not have been applied',
        details: describe(error),
      })
    : new EngineError({
        code: 500,
        key: 'commit_failed',
        message: 'The store could not apply the commit; nothing was written',
        details: describe(error),
      })
}
