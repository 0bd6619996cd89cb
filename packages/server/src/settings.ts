/**
 * `promo-engine serve`'s settings read from its flags and environment (the table of them:
 * setting-definitions.ts), all checked before anything starts (docs/http.md#deploying). A wrong value
 * is one line naming the variable and its rule; secrets come from the environment only (a flag shows
 * in `ps`).
 */

import { DEFINITIONS, type Definition, LEVELS, type LogLevel } from './setting-definitions'

export class SettingError extends Error {
  override readonly name = 'SettingError'
}

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
