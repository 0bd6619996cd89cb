#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { createEngine } from '../../../src'
import { createPostgresStore } from '../../../src/postgres'
import { StartError } from './keys'
import { createLogger, describe } from './observe'
import { startServer } from './server'
import { helpText } from './setting-definitions'
import { readSettings, SettingError } from './settings'

/**
 * `promo-engine serve | migrate | rotate-secret <app_id>` (docs/http.md#deploying). A wrong setting or
 * a start-up failure is one line on stderr and exit 1; SIGTERM and SIGINT shut down gracefully, exit 0.
 */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(helpText())
    return command === undefined ? 1 : 0
  }
  if (command === '--version') {
    const own = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    process.stdout.write(`${own.version}\n`)
    return 0
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(helpText())
    return 0
  }
  switch (command) {
    case 'serve':
      return serve(rest)
    case 'migrate':
      return withDatabase(async (pool) => {
        const { applied } = await createPostgresStore({ pool: pool as never, readCache: false }).migrate()
        process.stdout.write(
          `migrated: ${applied.length === 0 ? 'nothing to apply' : `applied ${applied.join(', ')}`}\n`,
        )
      })
    case 'rotate-secret': {
      const appId = rest[0]
      if (appId === undefined || rest.length !== 1)
        throw new SettingError('rotate-secret takes one argument: the app id')
      return withDatabase(async (pool) => {
        const engine = createEngine({ store: createPostgresStore({ pool: pool as never, readCache: false }) })
        const rotated = await engine.auth.rotateSecret(appId)
        // The new secret is the command's output, shown once (never logged by the server).
        process.stdout.write(`${JSON.stringify(rotated)}\n`)
      })
    }
    default:
      throw new SettingError(`Unknown command ${JSON.stringify(command)}; promo-engine --help lists the commands`)
  }
}

async function serve(flags: string[]): Promise<number> {
  const settings = readSettings(flags, process.env)
  const logger = createLogger(settings.logLevel)
  const traceFile = process.env.PROMO_TRACE_FILE
  const running = await startServer({ settings, logger, ...(traceFile ? { traceFile } : {}) })
  logger.info(
    {
      url: running.url,
      metrics_url: running.metricsUrl,
      store: settings.databaseUrl === undefined ? 'memory' : 'postgres',
      pid: process.pid,
    },
    'listening',
  )
  if (settings.databaseUrl === undefined) {
    logger.warn('memory store: everything is lost on exit; set DATABASE_URL to keep it')
  }
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'shutting down: /readyz answers 503, in-flight requests finish')
      running.close().then(
        () => {
          logger.info('stopped')
          resolve(0)
        },
        (error: unknown) => {
          logger.error({ error: describe(error) }, 'shutdown failed')
          resolve(1)
        },
      )
    }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
  })
}

async function withDatabase(work: (pool: pg.Pool) => Promise<void>): Promise<number> {
  const url = process.env.DATABASE_URL
  if (url === undefined || url === '') throw new SettingError('DATABASE_URL must be set for this command')
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  pool.on('error', () => {})
  try {
    await work(pool)
    return 0
  } finally {
    await pool.end()
  }
}

main(process.argv.slice(2)).then(
  // Exits even if a library left a timer behind (a pool's idle timer): the work is done.
  (code) => process.stdout.write('', () => process.exit(code)),
  (error: unknown) => {
    const line =
      error instanceof SettingError || error instanceof StartError ? error.message : `promo-engine: ${describe(error)}`
    process.stderr.write(`${line}\n`, () => process.exit(1))
  },
)
