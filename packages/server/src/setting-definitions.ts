/**
 * The table of `promo-engine serve`'s settings: each one's flag, environment variable, default, rule
 * and the line `--help` prints for it (docs/http.md#deploying). settings.ts reads and checks them.
 */

type Kind = 'integer' | 'text' | 'url' | 'secret' | 'level' | 'switch' | 'origins'

export interface Definition {
  flag: string | null
  env: string
  kind: Kind
  /** The default as `--help` shows it; `undefined`: none. */
  fallback: string | undefined
  min?: number
  max?: number
  about: string
}

export const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LEVELS)[number]

const define = <T extends Record<string, Definition>>(table: T) => table

export const DEFINITIONS = define({
  port: { flag: '--port', env: 'PORT', kind: 'integer', fallback: '3000', min: 0, max: 65535, about: 'HTTP port' },
  host: {
    flag: '--host',
    env: 'HOST',
    kind: 'text',
    fallback: '127.0.0.1',
    about: 'address to listen on (0.0.0.0 in a container)',
  },
  publicUrl: {
    flag: '--public-url',
    env: 'PROMO_PUBLIC_URL',
    kind: 'url',
    fallback: undefined,
    about: 'the address clients reach the server at, for file links (default: http://HOST:PORT)',
  },
  databaseUrl: {
    flag: null,
    env: 'DATABASE_URL',
    kind: 'url',
    fallback: undefined,
    about: 'PostgreSQL connection string (migrated at start); without it the memory store, lost on exit',
  },
  poolSize: {
    flag: '--db-pool-size',
    env: 'PROMO_DB_POOL_SIZE',
    kind: 'integer',
    fallback: '10',
    min: 1,
    max: 1000,
    about: 'database connections this process may open',
  },
  statementTimeoutMs: {
    flag: '--db-statement-timeout-ms',
    env: 'PROMO_DB_STATEMENT_TIMEOUT_MS',
    kind: 'integer',
    fallback: '5000',
    min: 0,
    max: 3_600_000,
    about: "PostgreSQL statement_timeout of the pool's connections (0: none)",
  },
  connectTimeoutMs: {
    flag: '--db-connect-timeout-ms',
    env: 'PROMO_DB_CONNECT_TIMEOUT_MS',
    kind: 'integer',
    fallback: '2000',
    min: 1,
    max: 600_000,
    about: 'how long a request waits for a database connection before its 503',
  },
  idleTimeoutMs: {
    flag: '--db-idle-timeout-ms',
    env: 'PROMO_DB_IDLE_TIMEOUT_MS',
    kind: 'integer',
    fallback: '0',
    min: 0,
    max: 86_400_000,
    about:
      'how long an idle database connection is kept before it is closed (0: for as long as the process runs; a new connection costs its first request 15–20 ms)',
  },
  asyncActivities: {
    flag: '--db-async-activities',
    env: 'PROMO_DB_ASYNC_ACTIVITIES',
    kind: 'switch',
    fallback: 'off',
    about:
      'on: a commit writing only activities (a validation without a session) returns before its WAL flush; a database crash may lose the last ~600 ms of them',
  },
  readCache: {
    flag: '--db-read-cache',
    env: 'PROMO_DB_READ_CACHE',
    kind: 'switch',
    fallback: 'on',
    about:
      'on: credentials and tokens kept in memory, dropped by a LISTEN/NOTIFY notice when any process writes them (a listening connection per process); off behind PgBouncer in transaction mode',
  },
  maxInFlight: {
    flag: '--max-in-flight',
    env: 'PROMO_MAX_IN_FLIGHT',
    kind: 'integer',
    fallback: '0',
    min: 0,
    max: 10_000,
    about: 'API requests worked on at once; later ones wait in arrival order (0: no limit)',
  },
  maxQueue: {
    flag: '--max-queue',
    env: 'PROMO_MAX_QUEUE',
    kind: 'integer',
    fallback: '1000',
    min: 0,
    max: 1_000_000,
    about: 'requests that may wait for a place; past it a request gets 503 server_overloaded at once',
  },
  bodyLimitBytes: {
    flag: '--body-limit-bytes',
    env: 'PROMO_BODY_LIMIT_BYTES',
    kind: 'integer',
    fallback: '1048576',
    min: 1024,
    max: 104_857_600,
    about: 'largest request body accepted (413 above)',
  },
  requestTimeoutMs: {
    flag: '--request-timeout-ms',
    env: 'PROMO_REQUEST_TIMEOUT_MS',
    kind: 'integer',
    fallback: '30000',
    min: 1000,
    max: 3_600_000,
    about: 'time a client has to send a whole request',
  },
  keepAliveTimeoutMs: {
    flag: '--keep-alive-timeout-ms',
    env: 'PROMO_KEEP_ALIVE_TIMEOUT_MS',
    kind: 'integer',
    fallback: '65000',
    min: 1000,
    max: 3_600_000,
    about: "idle keep-alive connections are kept this long (longer than the load balancer's idle timeout)",
  },
  shutdownDelayMs: {
    flag: '--shutdown-delay-ms',
    env: 'PROMO_SHUTDOWN_DELAY_MS',
    kind: 'integer',
    fallback: '0',
    min: 0,
    max: 600_000,
    about: 'after SIGTERM, /readyz answers 503 this long while requests are still served',
  },
  shutdownTimeoutMs: {
    flag: '--shutdown-timeout-ms',
    env: 'PROMO_SHUTDOWN_TIMEOUT_MS',
    kind: 'integer',
    fallback: '10000',
    min: 0,
    max: 600_000,
    about: 'then in-flight requests get this long to finish before their connections are closed',
  },
  asyncIntervalMs: {
    flag: '--async-interval-ms',
    env: 'PROMO_ASYNC_INTERVAL_MS',
    kind: 'integer',
    fallback: '1000',
    min: 0,
    max: 86_400_000,
    about: 'how often pending async actions run (0: a separate worker runs them)',
  },
  purgeIntervalMs: {
    flag: '--purge-interval-ms',
    env: 'PROMO_PURGE_INTERVAL_MS',
    kind: 'integer',
    fallback: '60000',
    min: 0,
    max: 86_400_000,
    about: 'how often expired records are purged (0: a separate worker purges)',
  },
  changeFeedRetentionSeconds: {
    flag: '--change-feed-retention-seconds',
    env: 'PROMO_CHANGE_FEED_RETENTION_SECONDS',
    kind: 'integer',
    fallback: '604800',
    min: 0,
    max: 3_153_600_000,
    about: 'how long the change feed keeps a commit, trimmed with each purge (0: for ever)',
  },
  clientOrigins: {
    flag: '--client-origins',
    env: 'PROMO_CLIENT_ORIGINS',
    kind: 'origins',
    fallback: '*',
    about: 'origins the client application accepts, comma-separated, when it is created',
  },
  trustProxy: {
    flag: '--trust-proxy',
    env: 'PROMO_TRUST_PROXY',
    kind: 'switch',
    fallback: 'off',
    about: "on: take X-Request-Id and X-Forwarded-For's last hop from the proxy in front",
  },
  keysFile: {
    flag: '--keys-file',
    env: 'PROMO_KEYS_FILE',
    kind: 'text',
    fallback: 'promo-engine-keys.json',
    about: 'keys the server creates are written here once (mode 0600) and read back at restart',
  },
  appId: { flag: null, env: 'PROMO_APP_ID', kind: 'text', fallback: undefined, about: 'server application id' },
  appSecret: {
    flag: null,
    env: 'PROMO_APP_SECRET',
    kind: 'secret',
    fallback: undefined,
    about: 'its secret (24+ characters)',
  },
  clientId: { flag: null, env: 'PROMO_CLIENT_ID', kind: 'text', fallback: undefined, about: 'client application id' },
  clientSecret: {
    flag: null,
    env: 'PROMO_CLIENT_SECRET',
    kind: 'secret',
    fallback: undefined,
    about: 'its secret (24+ characters)',
  },
  managementId: {
    flag: null,
    env: 'PROMO_MANAGEMENT_ID',
    kind: 'text',
    fallback: undefined,
    about: 'management key id',
  },
  managementSecret: {
    flag: null,
    env: 'PROMO_MANAGEMENT_SECRET',
    kind: 'secret',
    fallback: undefined,
    about: 'its secret (24+ characters)',
  },
  filesSecret: {
    flag: null,
    env: 'PROMO_FILES_SECRET',
    kind: 'secret',
    fallback: undefined,
    about: 'signs export file links, the same in every process (32+ characters; required with DATABASE_URL)',
  },
  metricsPort: {
    flag: '--metrics-port',
    env: 'PROMO_METRICS_PORT',
    kind: 'integer',
    fallback: '9464',
    min: 0,
    max: 65535,
    about: '/metrics on its own listener (0: none; then only with PROMO_METRICS_TOKEN)',
  },
  metricsHost: {
    flag: '--metrics-host',
    env: 'PROMO_METRICS_HOST',
    kind: 'text',
    fallback: '127.0.0.1',
    about: 'address the metrics listener binds',
  },
  metricsToken: {
    flag: null,
    env: 'PROMO_METRICS_TOKEN',
    kind: 'secret',
    fallback: undefined,
    about: 'when set, GET /metrics on the main port too, with Authorization: Bearer <token> (24+ characters)',
  },
  logLevel: {
    flag: '--log-level',
    env: 'LOG_LEVEL',
    kind: 'level',
    fallback: 'info',
    about: `${LEVELS.join(', ')}`,
  },
})

export function helpText(): string {
  const rows = Object.values(DEFINITIONS).map((d: Definition) => {
    const name = d.flag === null ? d.env : `${d.flag}, ${d.env}`
    const fallback = d.fallback === undefined ? '' : ` (default ${d.fallback})`
    return `  ${name.padEnd(56)} ${d.about}${fallback}`
  })
  return `promo-engine: the promo-engine HTTP server (docs/http.md#deploying)

Usage:
  promo-engine serve [flags]          serve the HTTP interface
  promo-engine migrate                create or upgrade the PostgreSQL schema (DATABASE_URL) and exit
  promo-engine rotate-secret <app_id> give an application a new secret (DATABASE_URL); prints it once
  promo-engine --help | --version

Settings (a flag wins over its environment variable; secrets are read from the environment only):
${rows.join('\n')}

Health: GET /healthz (the process is up), GET /readyz (the store answers; 503 while not or while
shutting down). Metrics: GET /metrics on PROMO_METRICS_HOST:PROMO_METRICS_PORT. Logs: one JSON line
per request on stdout. SIGTERM or SIGINT: graceful shutdown, exit 0.
`
}
