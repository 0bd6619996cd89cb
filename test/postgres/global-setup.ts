import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { createPostgresStore } from '../../src/postgres'
import { type Embedded, startEmbedded } from './embedded'

/*
 * One PostgreSQL for the run: `PROMO_PG_URL` when set (a host's own server), else an embedded one
 * started here in a temporary directory on a free port. The schema is migrated once into a template
 * database; every test file clones it (`CREATE DATABASE … TEMPLATE`) and drops its clone. The
 * template is named per run and dropped at the end, so runs sharing a server do not meet and leave
 * nothing behind on it.
 */

/** The schemas engines of the operation suites take in turn (test/postgres/engine-setup.ts). */
export const ENGINE_SCHEMAS = ['promo_engine', 'promo_engine_b', 'promo_engine_c'] as const

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string
    pgTemplate: string
  }
}

export function databaseUrl(base: string, database: string): string {
  const url = new URL(base)
  url.pathname = `/${database}`
  return url.toString()
}

interface Shared {
  started: Promise<{ base: string; template: string; stop(): Promise<void> }>
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
  const { base, template, stop } = await shared.started
  project.provide('pgUrl', base)
  project.provide('pgTemplate', template)
  return async () => {
    const s = holder[SHARED] as Shared
    s.users--
    if (s.users === 0) {
      holder[SHARED] = undefined
      await stop()
    }
  }
}

async function start(): Promise<{ base: string; template: string; stop(): Promise<void> }> {
  const embedded = process.env.PROMO_PG_URL
    ? undefined
    : // A test database: durability buys nothing here.
      await startEmbedded({
        fsync: 'off',
        synchronous_commit: 'off',
        full_page_writes: 'off',
        max_connections: '200',
      })
  const base = process.env.PROMO_PG_URL ?? (embedded as Embedded).url
  const template = `promo_template_${randomBytes(4).toString('hex')}`
  await admin(base, `CREATE DATABASE ${template}`)
  for (const schema of ENGINE_SCHEMAS) {
    const store = createPostgresStore({ connectionString: databaseUrl(base, template), schema })
    await store.migrate()
    await store.close()
  }
  return {
    base,
    template,
    async stop() {
      if (embedded) await embedded.stop()
      else await admin(base, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
    },
  }
}

async function admin(base: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: base })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}
