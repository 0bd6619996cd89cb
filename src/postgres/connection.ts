import { EngineError } from '../errors'

/*
 * What the adapter needs of node-postgres, typed structurally so the published types do not depend
 * on `@types/pg`: a `pg.Pool`, a `pg.Client` or a pool client fits.
 */

export interface QueryResultLike<R> {
  rows: R[]
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResultLike<R>>
}

/** A connection taken from a pool: the adapter commits on one and gives it back. */
export interface PoolClientLike extends Queryable {
  release(error?: Error | boolean): void
}

export interface PoolLike extends Queryable {
  connect(): Promise<PoolClientLike>
  end(): Promise<void>
}

/** SQLSTATE classes that mean the database cannot be reached or cannot serve now. */
function unavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  if (typeof code !== 'string') return true
  if (/^[0-9A-Z]{5}$/.test(code)) return code.startsWith('08') || code.startsWith('53') || code.startsWith('57P')
  // Node socket errors (ECONNREFUSED, ECONNRESET, ETIMEDOUT…).
  return true
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error'
  const code = (error as { code?: unknown }).code
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}`.slice(0, 200)
}

/**
 * A database fault as an EngineError with a stable key: `store_unavailable` when the database cannot
 * be reached (nothing was done), `store_error` for a query the database refused.
 */
export function storeFault(error: unknown): EngineError {
  if (error instanceof EngineError) return error
  return unavailable(error)
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
 * A fault while a commit was sent: when the connection broke, the commit may or may not have been
 * applied (`commit_outcome_unknown`: retry only with an idempotency key); when the database answered
 * with an error, the transaction rolled back (`commit_failed`: nothing was written).
 */
export function commitFault(error: unknown): EngineError {
  if (error instanceof EngineError) return error
  return unavailable(error)
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
