/**
 * Every setting of `promo-engine serve`: a flag, an environment variable, a default and a rule, all
 * checked before anything starts (docs/http.md#deploying). A wrong value is one line naming the
 * variable and its rule; secrets come from the environment only (a flag shows in `ps`).
 */

export class SettingError extends Error {
  override readonly name = 'SettingError'
}

type Kind = 'integer' | 'text' | 'url' | 'secret' | 'level' | 'switch' | 'origins'

interface Definition {
  flag: string | null
  env: string
  kind: Kind
  /** The default as `--help` shows it; `undefined`: none. */
  fallback: string | undefined
  min?: number
  max?: number
  about: string
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
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

type Name = keyof typeof DEFINITIONS

export interface Settings {
  port: number
  host: string
  publicUrl: string | undefined
  databaseUrl: string | undefined
  poolSize: number
  statementTimeoutMs: number
  connectTimeoutMs: number
  /** The pool's idle timeout (0: idle connections are kept), docs/postgres.md#tuning. */
  idleTimeoutMs: number
  /** The store's `asyncActivities` (docs/postgres.md#asynchronous-activity-commits). */
  asyncActivities: boolean
  /** The store's `readCache` (docs/postgres.md#read-cache). */
  readCache: boolean
  /** Admission (docs/http.md#admission): requests worked on at once (0: no limit), and how many may wait. */
  maxInFlight: number
  maxQueue: number
  bodyLimitBytes: number
  requestTimeoutMs: number
  keepAliveTimeoutMs: number
  shutdownDelayMs: number
  shutdownTimeoutMs: number
  asyncIntervalMs: number
  purgeIntervalMs: number
  /** The purge's `maintenance.trimChangeFeed` (docs/http.md#housekeeping); 0: the feed is kept whole. */
  changeFeedRetentionSeconds: number
  clientOrigins: string[]
  trustProxy: boolean
  /** null: keys are not persisted (programmatic use). */
  keysFile: string | null
  keys: {
    server: KeyPair | undefined
    client: KeyPair | undefined
    management: KeyPair | undefined
  }
  filesSecret: string | undefined
  metricsPort: number
  metricsHost: string
  metricsToken: string | undefined
  logLevel: LogLevel
}

export interface KeyPair {
  app_id: string
  secret: string
}

/** Reads the flags (`--name value` or `--name=value`) and the environment; throws a `SettingError`. */
export function readSettings(argv: readonly string[], env: Record<string, string | undefined>): Settings {
  const flags = readFlags(argv)
  const raw = (name: Name): { value: string | undefined; source: string } => {
    const d: Definition = DEFINITIONS[name]
    if (d.flag !== null && flags.has(d.flag)) return { value: flags.get(d.flag), source: d.flag }
    const fromEnv = env[d.env]
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, source: d.env }
    return { value: d.fallback, source: d.env }
  }
  const text = (name: Name) => raw(name).value
  const integer = (name: Name): number => {
    const d: Definition = DEFINITIONS[name]
    const { value, source } = raw(name)
    const n = Number(value)
    if (value === undefined || !/^\d+$/.test(value) || n < (d.min ?? 0) || n > (d.max ?? Number.MAX_SAFE_INTEGER)) {
      throw new SettingError(`${source} must be a whole number from ${d.min ?? 0} to ${d.max}; got ${show(value)}`)
    }
    return n
  }
  const url = (name: Name, protocols: string[]): string | undefined => {
    const { value, source } = raw(name)
    if (value === undefined) return undefined
    let parsed: URL
    try {
      parsed = new URL(value)
    } catch {
      throw new SettingError(`${source} must be a URL (${protocols.join(' or ')}); got an unparsable value`)
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new SettingError(`${source} must be a URL starting with ${protocols.join(' or ')}`)
    }
    return value.replace(/\/+$/, '')
  }
  const secret = (name: Name, minLength: number): string | undefined => {
    const { value, source } = raw(name)
    if (value === undefined) return undefined
    if (value.length < minLength || value.length > 512) {
      throw new SettingError(`${source} must be ${minLength} to 512 characters; it has ${value.length}`)
    }
    return value
  }
  const pair = (id: Name, key: Name): KeyPair | undefined => {
    const appId = text(id)
    const value = secret(key, 24)
    if (appId === undefined && value === undefined) return undefined
    if (appId === undefined || value === undefined) {
      const d = DEFINITIONS
      throw new SettingError(`${d[id].env} and ${d[key].env} must be set together (or neither: keys are created)`)
    }
    if (!/^[\w.-]{4,128}$/.test(appId)) {
      throw new SettingError(`${DEFINITIONS[id].env} must be 4-128 letters, digits, _ . or -`)
    }
    return { app_id: appId, secret: value }
  }
  const onOff = (name: Name): boolean => {
    const { value, source } = raw(name)
    if (value === 'on' || value === 'true' || value === '1') return true
    if (value === 'off' || value === 'false' || value === '0') return false
    throw new SettingError(`${source} must be on or off; got ${show(value)}`)
  }
  const level = (): LogLevel => {
    const { value, source } = raw('logLevel')
    if (!LEVELS.includes(value as LogLevel)) throw new SettingError(`${source} must be one of ${LEVELS.join(', ')}`)
    return value as LogLevel
  }
  const origins = (): string[] => {
    const { value, source } = raw('clientOrigins')
    const list = (value ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o !== '')
    for (const origin of list) {
      if (origin !== '*' && !/^https?:\/\/(\*\.)?[\w.-]+(:\d+)?$/.test(origin)) {
        throw new SettingError(`${source} must list origins like https://shop.example or *, comma-separated`)
      }
    }
    if (list.length === 0) throw new SettingError(`${source} must list at least one origin (or * for any)`)
    return list
  }

  const databaseUrl = url('databaseUrl', ['postgres:', 'postgresql:'])
  const filesSecret = secret('filesSecret', 32)
  if (databaseUrl !== undefined && filesSecret === undefined) {
    throw new SettingError(
      'PROMO_FILES_SECRET must be set (32+ characters) with DATABASE_URL: file links must work in every process and after a restart',
    )
  }
  const metricsPort = integer('metricsPort')
  const metricsToken = secret('metricsToken', 24)
  const port = integer('port')
  if (metricsPort !== 0 && metricsPort === port) {
    throw new SettingError('PROMO_METRICS_PORT must differ from PORT (0 turns the metrics listener off)')
  }
  return {
    port,
    host: text('host') as string,
    publicUrl: url('publicUrl', ['http:', 'https:']),
    databaseUrl,
    poolSize: integer('poolSize'),
    statementTimeoutMs: integer('statementTimeoutMs'),
    connectTimeoutMs: integer('connectTimeoutMs'),
    idleTimeoutMs: integer('idleTimeoutMs'),
    asyncActivities: onOff('asyncActivities'),
    readCache: onOff('readCache'),
    maxInFlight: integer('maxInFlight'),
    maxQueue: integer('maxQueue'),
    bodyLimitBytes: integer('bodyLimitBytes'),
    requestTimeoutMs: integer('requestTimeoutMs'),
    keepAliveTimeoutMs: integer('keepAliveTimeoutMs'),
    shutdownDelayMs: integer('shutdownDelayMs'),
    shutdownTimeoutMs: integer('shutdownTimeoutMs'),
    asyncIntervalMs: integer('asyncIntervalMs'),
    purgeIntervalMs: integer('purgeIntervalMs'),
    changeFeedRetentionSeconds: integer('changeFeedRetentionSeconds'),
    clientOrigins: origins(),
    trustProxy: onOff('trustProxy'),
    keysFile: text('keysFile') as string,
    keys: {
      server: pair('appId', 'appSecret'),
      client: pair('clientId', 'clientSecret'),
      management: pair('managementId', 'managementSecret'),
    },
    filesSecret,
    metricsPort,
    metricsHost: text('metricsHost') as string,
    metricsToken,
    logLevel: level(),
  }
}

function readFlags(argv: readonly string[]): Map<string, string> {
  const known = new Set(Object.values(DEFINITIONS).flatMap((d: Definition) => (d.flag === null ? [] : [d.flag])))
  const flags = new Map<string, string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const eq = arg.indexOf('=')
    const flag = eq === -1 ? arg : arg.slice(0, eq)
    if (!known.has(flag))
      throw new SettingError(`Unknown argument ${show(arg)}; promo-engine --help lists the settings`)
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
    if (value === undefined) throw new SettingError(`${flag} needs a value`)
    flags.set(flag, value)
  }
  return flags
}

/** A value in an error line: short, and never a secret (secrets' errors give lengths only). */
function show(value: string | undefined): string {
  if (value === undefined) return 'nothing'
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
}

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
