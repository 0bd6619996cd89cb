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

/**
 * The session setting of the connections a store opens itself (docs/postgres.md#plan-caching):
 * `plan_cache_mode = force_generic_plan`, so a prepared statement is planned once per connection, at
 * its first execution, and that plan is reused. Left to itself PostgreSQL plans each of a
 * connection's statements again at its first 5 executions, then keeps planning it at every execution
 * whenever the generic plan's estimate is above the custom plans' (a read of `= ANY($1)` is estimated
 * at 10 ids generically, at the ids sent when planned per call): the levels of reads of a new
 * customer's validation or redemption were planned at every execution, 3 to 4 times the CPU of
 * executing them. Every statement the store sends reads or writes by declared indexes, which generic
 * plans use (`test/postgres/plan-cache.test.ts` finds no sequential scan).
 */
export const SESSION_SETTINGS = 'SET plan_cache_mode = force_generic_plan'

/**
 * Runs `SESSION_SETTINGS` on every connection `pool` (a `pg.Pool`) opens, before the connection is
 * handed out: through the pool's `onConnect` hook (node-postgres 8.23's pool awaits it; one the
 * host set runs first), so the setting is never a second query on a connection already running one.
 * A statement, not the connection's startup `options`, which a pooler such as PgBouncer refuses
 * unless told to ignore them; a server that refuses the setting keeps its default. A pool too old to
 * know the hook never runs it, and plans as PostgreSQL's default does.
 */
export function planGenerically(pool: { options?: object }): void {
  const options = pool.options as { onConnect?: (client: Queryable) => unknown } | undefined
  if (!options) return
  const before = options.onConnect
  options.onConnect = async (client) => {
    await before?.(client)
    await client.query(SESSION_SETTINGS).catch(ignore)
  }
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

/*
 * What node-postgres hands a query object it runs (its "Submittable" protocol: an object with a
 * `submit` method is queued as it is): the connection to write the protocol messages to, and the
 * statements that connection has prepared.
 */
interface WireConnection {
  /** Statements the server has parsed (node-postgres records each at its ParseComplete). */
  parsedStatements: Record<string, string>
  /**
   * Statements sent but not yet parsed, which pipeline mode needs: node-postgres 8.23 on; absent
   * before (the peer range starts at 8.11, and `test/postgres/driver-path.test.ts` runs both forms).
   */
  submittedNamedStatements?: Record<string, string>
  stream: { cork?: () => void; uncork?: () => void }
  parse(config: { text: string; name: string }): void
  bind(config: { statement: string; values: unknown[]; valueMapper: (v: unknown) => unknown }): void
  execute(config: { portal: string }): void
  sync(): void
}

/**
 * One prepared statement whose columns are all JSON (a level of reads, the commit), answered as the
 * first row's columns, each parsed once (docs/postgres.md#driver-path). node-postgres's own query
 * object costs more than the statement's answer on this path: it copies the config by property
 * descriptors, asks the server to describe the result at every execution and parses that
 * description, then builds each row by spreading an object keyed by column name. This one names the
 * statement (prepared on first use on a connection, as node-postgres's named queries are), binds,
 * executes and syncs, and parses the one row's text columns with `JSON.parse`: what node-postgres's
 * jsonb parser does to the same text. Results are always asked for as text, whatever the client's
 * `binary` setting.
 *
 * A pool's `query` and a client's both accept it (a pool takes a connection for it and sets
 * `callback` to give it back); a client's `query` returns the object itself, so it is awaitable.
 */
export class JsonRowQuery implements PromiseLike<unknown[] | undefined> {
  /** Set by a pool (its release and answer); called once, at the end. */
  callback: ((error: Error | null, row?: unknown[]) => void) | undefined = undefined
  private row: unknown[] | undefined = undefined
  private failure: Error | undefined = undefined
  private settle!: (error: Error | undefined, row: unknown[] | undefined) => void
  /** The first row's columns, parsed; rejected with the statement's error. */
  readonly answer: Promise<unknown[] | undefined>

  constructor(
    readonly name: string,
    readonly text: string,
    readonly values: unknown[],
  ) {
    this.answer = new Promise((resolve, reject) => {
      this.settle = (error, row) => (error ? reject(error) : resolve(row))
    })
    // Rejected answers are also reported through the pool's callback; the store awaits one of them.
    this.answer.catch(ignore)
  }

  // biome-ignore lint/suspicious/noThenProperty: awaitable on purpose: a client's `query` returns this object
  then<A = unknown[] | undefined, B = never>(
    onfulfilled?: ((value: unknown[] | undefined) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.answer.then(onfulfilled, onrejected)
  }

  submit(connection: WireConnection): Error | null {
    // The unnamed statement ('') is parsed at every use; a named one once per connection.
    const previous =
      this.name === ''
        ? undefined
        : (connection.parsedStatements[this.name] ?? connection.submittedNamedStatements?.[this.name])
    if (previous !== undefined && previous !== this.text) {
      return new Error(`Prepared statements must be unique - '${this.name}' was used for a different statement`)
    }
    connection.stream.cork?.()
    try {
      if (previous === undefined) {
        connection.parse({ text: this.text, name: this.name })
        if (this.name !== '' && connection.submittedNamedStatements)
          connection.submittedNamedStatements[this.name] = this.text
      }
      try {
        connection.bind({ statement: this.name, values: this.values, valueMapper: wireValue })
      } catch (error) {
        // What node-postgres does when a value cannot be written: close the statement, sync, fail.
        ;(connection as unknown as { close(c: { type: string; name: string }): void }).close({
          type: 'S',
          name: this.name,
        })
        connection.sync()
        this.handleError(error as Error)
        return null
      }
      connection.execute({ portal: '' })
      connection.sync()
    } finally {
      connection.stream.uncork?.()
    }
    return null
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    if (this.failure || this.row) return
    try {
      const fields = msg.fields
      const row = new Array<unknown>(fields.length)
      for (let i = 0; i < fields.length; i++) {
        const f = fields[i]
        row[i] = f === null || f === undefined ? null : JSON.parse(f)
      }
      this.row = row
    } catch (error) {
      this.failure = error as Error
    }
  }

  handleReadyForQuery(): void {
    this.finish(this.failure ?? null)
  }

  handleError(error: Error): void {
    this.finish(error)
  }

  private finish(error: Error | null): void {
    const callback = this.callback
    this.callback = undefined
    this.settle(error ?? undefined, this.row)
    callback?.(error, this.row)
  }

  // The rest of the protocol a query object answers: nothing to do for one statement without a portal.
  handleRowDescription(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail('No source stream defined')
  }
  handleCopyData(): void {}
}

const ignore = () => {}

/** A parameter as node-postgres writes it (text): arrays as array literals, objects as JSON. */
function wireValue(value: unknown): unknown {
  if (value === null || value === undefined) return null
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return arrayLiteral(value)
  if (typeof value === 'object') return Buffer.isBuffer(value) ? value : JSON.stringify(value)
  return String(value)
}

function arrayLiteral(values: readonly unknown[]): string {
  let out = '{'
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ','
    const v = values[i]
    if (v === null || v === undefined) out += 'NULL'
    else if (Array.isArray(v)) out += arrayLiteral(v)
    else {
      const text = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)
      out += `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
    }
  }
  return `${out}}`
}
