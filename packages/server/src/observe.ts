import pino, { type Logger } from 'pino'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { LogLevel } from './setting-definitions'

/**
 * Logs and metrics of the server (docs/http.md#deploying). Metric labels come from route templates,
 * methods, statuses, error keys and fixed names only: never an id, a code or a customer, so their
 * number stays bounded whatever the traffic.
 */

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'promo-engine' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // Synchronous: a line written before an exit or a crash is a line kept.
    destination ?? pino.destination({ dest: 1, sync: true }),
  )
}

/** What a pool tells about its connections (node-postgres' `Pool` has these three). */
export interface PoolCounts {
  totalCount: number
  idleCount: number
  waitingCount: number
}

export type Metrics = ReturnType<typeof createMetrics>

export function createMetrics(sources: {
  pool?: PoolCounts | undefined
  pendingActions: () => number | null
  admission?: () => { inFlight: number; queued: number }
}) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'promo_engine_' })
  const requests = new Counter({
    name: 'promo_engine_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'promo_engine_http_request_duration_seconds',
    help: 'Time to the response headers, by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  const errors = new Counter({
    name: 'promo_engine_http_errors_total',
    help: 'Error answers by route template and error key',
    labelNames: ['route', 'key'] as const,
    registers: [registry],
  })
  const commits = new Counter({
    name: 'promo_engine_commits_total',
    help: 'Changesets sent to the store, by outcome: committed, conflict (retried or refused), failed_guard',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  const storeErrors = new Counter({
    name: 'promo_engine_store_errors_total',
    help: 'Store faults by error key (store_unavailable, store_error, commit_failed, commit_outcome_unknown)',
    labelNames: ['key'] as const,
    registers: [registry],
  })
  const backgroundFailures = new Counter({
    name: 'promo_engine_background_failures_total',
    help: 'Failed runs of background work, by task',
    labelNames: ['task'] as const,
    registers: [registry],
  })
  const feedTrimmed = new Counter({
    name: 'promo_engine_feed_trimmed_changes_total',
    help: 'Changes the purge trimmed from the change feed, past PROMO_CHANGE_FEED_RETENTION_SECONDS',
    registers: [registry],
  })
  const poolWait = new Histogram({
    name: 'promo_engine_db_pool_wait_seconds',
    help: 'Time a statement waited for a connection of the pool (every connection taken: requests queue here)',
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  const admissionWait = new Histogram({
    name: 'promo_engine_http_admission_wait_seconds',
    help: 'Time an API request waited for a place among those worked on at once (PROMO_MAX_IN_FLIGHT)',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  new Gauge({
    name: 'promo_engine_http_requests_in_flight',
    help: 'API requests being worked on, and waiting for a place',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const now = sources.admission?.()
      if (!now) return
      this.set({ state: 'working' }, now.inFlight)
      this.set({ state: 'waiting' }, now.queued)
    },
  })
  const { pool } = sources
  new Gauge({
    name: 'promo_engine_db_pool_connections',
    help: 'Database pool connections: in_use, idle, and requests waiting for one',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      if (!pool) return
      this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount)
      this.set({ state: 'idle' }, pool.idleCount)
      this.set({ state: 'waiting' }, pool.waitingCount)
    },
  })
  new Gauge({
    name: 'promo_engine_async_actions_pending',
    help: 'Async actions enqueued or in progress, as the last background run counted them',
    registers: [registry],
    collect() {
      const n = sources.pendingActions()
      if (n !== null) this.set(n)
    },
  })
  return {
    registry,
    request(method: string, route: string | null, status: number, seconds: number, errorKey: string | null) {
      const template = route ?? 'unmatched'
      requests.inc({ method, route: template, status: String(status) })
      duration.observe({ method, route: template }, seconds)
      if (errorKey !== null) errors.inc({ route: template, key: errorKey })
      if (errorKey !== null && STORE_KEYS.has(errorKey)) storeErrors.inc({ key: errorKey })
    },
    commit(outcome: 'committed' | 'conflict' | 'failed_guard') {
      commits.inc({ outcome })
    },
    admissionWait(seconds: number) {
      admissionWait.observe(seconds)
    },
    poolWait(seconds: number) {
      poolWait.observe(seconds)
    },
    feedTrimmed(changes: number) {
      feedTrimmed.inc(changes)
    },
    backgroundFailure(task: string, errorKey: string | null) {
      backgroundFailures.inc({ task })
      if (errorKey !== null && STORE_KEYS.has(errorKey)) storeErrors.inc({ key: errorKey })
    },
  }
}

const STORE_KEYS = new Set(['store_unavailable', 'store_error', 'commit_failed', 'commit_outcome_unknown'])

/** The pool connections the store waits for (callback and promise forms of `connect`, as `pool.query` calls it). */
interface Connecting {
  connect(callback?: (error: Error | undefined, ...rest: unknown[]) => void): unknown
}

/**
 * Times every wait for a connection of `pool` (its `connect`, which its `query` calls too), so
 * `promo_engine_db_pool_wait_seconds` tells how long requests queued in this process before the
 * database saw them: the part of a slow answer a larger pool would remove.
 */
export function timeConnections(pool: Connecting, observe: (seconds: number) => void): void {
  const connect = pool.connect.bind(pool)
  pool.connect = ((callback?: (error: Error | undefined, ...rest: unknown[]) => void) => {
    const at = performance.now()
    const done = () => observe((performance.now() - at) / 1000)
    if (callback)
      return connect((error, ...rest) => {
        done()
        callback(error, ...rest)
      })
    return (connect() as Promise<unknown>).then(
      (client) => {
        done()
        return client
      },
      (error: unknown) => {
        done()
        throw error
      },
    )
  }) as Connecting['connect']
}

/** A failure's error key (an `EngineError`'s), for logs and metrics labels; null for any other. */
export function errorKey(error: unknown): string | null {
  const key = (error as { key?: unknown } | null)?.key
  return typeof key === 'string' ? key : null
}

/** A failure in one line for a log or a start-up message: its key or name, and its message. */
export function describe(error: unknown): string {
  if (error instanceof Error) return `${errorKey(error) ?? error.name}: ${error.message}`.slice(0, 300)
  return String(error).slice(0, 300)
}
