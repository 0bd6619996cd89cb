import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import pg from 'pg'
import type { Logger } from 'pino'
import { createEngine, createMemoryStore, type Engine, type EngineOptions, type Store } from '../../../src'
import { type Answered, createFetchHandler } from '../../../src/http'
import { createPostgresStore, type PostgresStore, planGenerically } from '../../../src/postgres'
import { type Admission, createAdmission } from './admission'
import { countPending, every, purgeAll } from './background'
import { type Keys, StartError, startApplications } from './keys'
import { createLogger, createMetrics, describe, type Metrics, timeConnections } from './observe'
import { readSettings, type Settings } from './settings'
import { createTracer, type Tracer } from './trace'

export interface ServeOptions {
  /** Settings over the defaults (`promo-engine --help`); the CLI reads them from flags and the environment. */
  settings?: Partial<Settings>
  /** Read like the CLI's environment, under `settings`. */
  env?: Record<string, string | undefined>
  /** An engine of the caller's (tests); else one on `DATABASE_URL` or the memory store. */
  engine?: Engine
  engineOptions?: EngineOptions
  logger?: Logger
  /** Shorthands of `settings` kept for tests and benches. */
  port?: number
  hostname?: string
  asyncIntervalMs?: number
  purgeIntervalMs?: number
  /** Per-request phase timings written to this file at exit (PROMO_TRACE_FILE, docs/http.md#tracing). */
  traceFile?: string
}

export interface RunningServer {
  url: string
  /** `http://host:port/metrics` when the metrics listener is on. */
  metricsUrl: string | null
  engine: Engine
  keys: Keys
  /** The graceful shutdown (docs/http.md#deploying); resolves once everything is closed. */
  close(): Promise<void>
}

/** Ids the proxy may hand in (`X-Request-Id` with PROMO_TRUST_PROXY=on): short and printable only. */
const REQUEST_ID = /^[\w.:-]{1,128}$/

/**
 * Starts the server: the store (migrated), the keys, the HTTP listener, the metrics listener and the
 * background work. Programmatic callers (tests, benches) get port 0, no keys file and no metrics
 * listener unless they ask.
 */
export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  const settings: Settings = {
    ...readSettings([], { PORT: '0', PROMO_METRICS_PORT: '0', LOG_LEVEL: 'silent', ...options.env }),
    keysFile: null,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.hostname === undefined ? {} : { host: options.hostname }),
    ...(options.asyncIntervalMs === undefined ? {} : { asyncIntervalMs: options.asyncIntervalMs }),
    ...(options.purgeIntervalMs === undefined ? {} : { purgeIntervalMs: options.purgeIntervalMs }),
    ...options.settings,
  }
  const logger = options.logger ?? createLogger(settings.logLevel)

  let pool: pg.Pool | undefined
  let store: PostgresStore | undefined
  if (!options.engine && settings.databaseUrl !== undefined) {
    pool = new pg.Pool({
      connectionString: settings.databaseUrl,
      max: settings.poolSize,
      connectionTimeoutMillis: settings.connectTimeoutMs,
      // Kept while idle unless told otherwise (docs/postgres.md#tuning): a connection opened again after a
      // lull costs its first request the backend's start and the statements' first plans.
      idleTimeoutMillis: settings.idleTimeoutMs,
      ...(settings.statementTimeoutMs > 0 ? { statement_timeout: settings.statementTimeoutMs } : {}),
      application_name: 'promo-engine',
    })
    // The store's statements planned once per connection (docs/postgres.md#plan-caching).
    planGenerically(pool as never)
    // A connection the database drops while idle (a restart, a failover) is reported here; the next
    // query takes a new one, and a failed query becomes a 503 (docs/postgres.md#faults).
    pool.on('error', () => {})
    store = createPostgresStore({
      pool: pool as never,
      asyncActivities: settings.asyncActivities,
      readCache: settings.readCache,
      // Whether authentication reads from memory or from the database (docs/postgres.md#read-cache).
      cacheHook: (event) => {
        if (event.type === 'ready') logger.info('read cache: listening for notices')
        else if (event.type === 'down')
          logger.warn({ reason: event.reason }, 'read cache: off until its listener is back')
      },
    })
    try {
      await store.migrate()
    } catch (error) {
      await store.close()
      await pool.end()
      throw new StartError(`DATABASE_URL: the database cannot be migrated: ${describe(error)}`)
    }
    // The whole pool opened and prepared before the server reports ready (docs/postgres.md#tuning): a
    // connection opened when traffic grows costs its first request the backend's start and the
    // commit's first plans, and its first commit holds the rows others wait for while it plans.
    const warmed = await store.warm()
    if (warmed.failed.length > 0)
      logger.warn({ connections: warmed.connections, failed: warmed.failed }, 'database: some connections not opened')
    else logger.info({ connections: warmed.connections }, 'database: connections opened')
  }

  let pending: number | null = null
  const admission = createAdmission({
    limit: settings.maxInFlight,
    queue: settings.maxQueue,
    waited: (seconds) => metrics.admissionWait(seconds),
  })
  const metrics = createMetrics({ pool, pendingActions: () => pending, admission: () => admission })
  if (pool) timeConnections(pool as never, metrics.poolWait)
  const tracer = options.traceFile ? createTracer(options.traceFile) : undefined
  if (pool && tracer) tracer.pool(pool as never)
  const closing: (() => Promise<void>)[] = []
  if (pool) {
    const p = pool
    closing.push(() => p.end())
  }
  // Before the pool: the read cache's listening connection (docs/postgres.md#read-cache).
  if (store) {
    const st = store
    closing.push(() => st.close())
  }
  const closeAll = async () => {
    for (const close of closing.splice(0).reverse()) await close().catch(() => {})
  }
  try {
    return await run(settings, options, logger, metrics, closing, closeAll, {
      tracer,
      pool,
      store,
      admission,
      setPending: (n) => {
        pending = n
      },
    })
  } catch (error) {
    await closeAll()
    throw error
  }
}

async function run(
  settings: Settings,
  options: ServeOptions,
  logger: Logger,
  metrics: Metrics,
  closing: (() => Promise<void>)[],
  closeAll: () => Promise<void>,
  extra: {
    tracer: Tracer | undefined
    pool: pg.Pool | undefined
    store: PostgresStore | undefined
    admission: Admission
    setPending: (n: number) => void
  },
): Promise<RunningServer> {
  let state: 'starting' | 'ready' | 'stopping' = 'starting'
  // Closed in reverse order of registration: the listeners drain, then background work stops, then the pool.
  let background: (() => Promise<void>)[] = []
  closing.push(async () => {
    await Promise.all(background.map((stop) => stop()))
  })
  const started = new WeakMap<Request, { at: number; ip: string | undefined }>()
  let handler: (request: Request) => Promise<Response> = async () => json(503, { status: 'starting' })

  const ready = async (): Promise<boolean> => {
    if (state !== 'ready') return false
    if (!extra.pool) return true
    try {
      await withTimeout(extra.pool.query('SELECT 1'), 1000)
      return true
    } catch {
      return false
    }
  }
  const metricsText = async () =>
    new Response(await metrics.registry.metrics(), { headers: { 'Content-Type': metrics.registry.contentType } })
  const fetch = async (request: Request, env: { incoming?: unknown }): Promise<Response> => {
    // The server's own endpoints are all GETs: other requests go to the handler without a URL parsed here.
    const path = request.method === 'GET' ? new URL(request.url).pathname : null
    if (path === '/healthz') return json(200, { status: 'ok' })
    if (path === '/readyz') {
      if (await ready()) return json(200, { status: 'ready' })
      return json(503, { status: state === 'ready' ? 'store_unavailable' : state })
    }
    if (path === '/metrics' && settings.metricsToken !== undefined) {
      if (request.headers.get('Authorization') === `Bearer ${settings.metricsToken}`) return metricsText()
      return json(401, {
        code: 401,
        key: 'unauthorized',
        message: 'Unauthorized',
        details: 'GET /metrics needs its token',
      })
    }
    started.set(request, {
      at: performance.now(),
      ip: clientIp(request, env.incoming as IncomingMessage | undefined, settings.trustProxy),
    })
    const traceId = extra.tracer ? request.headers.get('X-Trace-Id') : null
    const response = await (traceId !== null && extra.tracer
      ? extra.tracer.run(traceId, (env as { outgoing?: ServerResponse }).outgoing, () => handler(request))
      : handler(request))
    // While draining, a kept-alive connection is closed after its answer, so clients go elsewhere.
    if (state === 'stopping') response.headers.set('Connection', 'close')
    return response
  }

  // Listen first: the engine's file links name the port the server got.
  // The adapter's own Request and Response in place of the global ones (its default): a JSON answer
  // is written straight to the socket, and a body with a declared length is read from the socket's
  // buffers, instead of each going through a web stream (docs/http.md#deploying). They are subclasses
  // or stand-ins of the globals, created lazily when code asks for more than status, headers and body.
  const server = createAdaptorServer({ fetch }) as Server
  server.keepAliveTimeout = settings.keepAliveTimeoutMs
  // Node's advice: headers may take longer than keep-alive, or an idle socket races a new request.
  server.headersTimeout = Math.min(settings.keepAliveTimeoutMs + 1000, settings.requestTimeoutMs)
  server.requestTimeout = settings.requestTimeoutMs
  await listenOn(server, settings.port, settings.host)
  closing.push(() => closeServer(server, settings.shutdownTimeoutMs))
  const url = `http://${hostForUrl(settings.host)}:${(server.address() as AddressInfo).port}`

  // The memory store dates its change feed by the engine's clock (a test's manual one included).
  const clock = options.engineOptions?.clock
  const plain = extra.store ?? createMemoryStore(clock === undefined ? {} : { clock })
  const store = counted(extra.tracer ? extra.tracer.store(plain) : plain, metrics)
  const engine =
    options.engine ??
    createEngine({
      authentication: 'keys',
      store,
      filesBaseUrl: `${settings.publicUrl ?? url}/v1/files/`,
      ...(settings.filesSecret === undefined ? {} : { filesSecret: settings.filesSecret }),
      ...options.engineOptions,
    })
  const keys = await startApplications(engine, settings, logger)
  const requestId = (request: Request) => {
    const given = settings.trustProxy ? request.headers.get('X-Request-Id') : null
    return given !== null && REQUEST_ID.test(given) ? given : `req_${crypto.randomUUID().replaceAll('-', '')}`
  }
  const answered = (done: Answered) => {
    const begun = started.get(done.request)
    const seconds = begun === undefined ? 0 : (performance.now() - begun.at) / 1000
    metrics.request(done.method, done.route, done.status, seconds, done.errorKey)
    logger.info(
      {
        req_id: done.requestId,
        method: done.method,
        route: done.route,
        status: done.status,
        duration_ms: Math.round(seconds * 10_000) / 10,
        error_key: done.errorKey,
        ...(begun?.ip === undefined ? {} : { client_ip: begun.ip }),
      },
      'request',
    )
  }
  handler = createFetchHandler(engine, {
    maxBodyBytes: settings.bodyLimitBytes,
    requestId,
    admit: (work) => extra.admission.run(work),
    onError: (error) => logger.error({ err: error }, 'unexpected error'),
    onResponse: answered,
  })

  let metricsUrl: string | null = null
  if (settings.metricsPort !== 0) {
    const metricsServer = createServer((req, res) => {
      if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') {
        metrics.registry.metrics().then(
          (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
          () => res.writeHead(500).end(),
        )
      } else res.writeHead(404).end()
    })
    await listenOn(metricsServer, settings.metricsPort, settings.metricsHost)
    closing.push(() => closeServer(metricsServer, 1000))
    metricsUrl = `http://${hostForUrl(settings.metricsHost)}:${(metricsServer.address() as AddressInfo).port}/metrics`
  }

  background = [
    every(settings.asyncIntervalMs, 'async_actions', logger, metrics, async (signal) => {
      await engine.asyncActions.runPending({ signal })
      if (!options.engine) extra.setPending(await countPending(store))
    }),
    every(settings.purgeIntervalMs, 'purge', logger, metrics, async (signal) =>
      metrics.feedTrimmed(await purgeAll(engine, settings.changeFeedRetentionSeconds, signal)),
    ),
  ]
  state = 'ready'

  let closed: Promise<void> | undefined
  return {
    url,
    metricsUrl,
    engine,
    keys,
    close: () => {
      closed ??= (async () => {
        state = 'stopping'
        if (settings.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, settings.shutdownDelayMs))
        await closeAll()
        extra.tracer?.write()
      })()
      return closed
    },
  }
}

/** The store with its commits counted by outcome (metrics): everything else passes through. */
function counted(store: Store, metrics: Metrics): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property !== 'commit') return Reflect.get(target, property, target)
      return async (changeset: Parameters<Store['commit']>[0]) => {
        const result = await target.commit(changeset)
        if (result.ok) metrics.commit(result.alternative ? 'failed_guard' : 'committed')
        else metrics.commit(result.conflict.reason === 'guard' ? 'failed_guard' : 'conflict')
        return result
      }
    },
  })
}

/** Stops accepting, lets in-flight requests finish for `timeoutMs`, then closes what is left. */
function closeServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), timeoutMs)
    server.close(() => {
      clearTimeout(force)
      resolve()
    })
    server.closeIdleConnections()
  })
}

function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new StartError(
          error.code === 'EADDRINUSE'
            ? `port ${port} on ${host} is in use (PORT / PROMO_METRICS_PORT)`
            : `cannot listen on ${host}:${port}: ${error.message}`,
        ),
      ),
    )
    server.listen(port, host, () => resolve())
  })
}

function clientIp(request: Request, incoming: IncomingMessage | undefined, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    // The proxy in front appends the address it saw last: earlier hops are the client's word only.
    const hops = (request.headers.get('X-Forwarded-For') ?? '').split(',').map((h) => h.trim())
    const last = hops[hops.length - 1]
    if (last) return last
  }
  return incoming?.socket.remoteAddress
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' },
  })
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
