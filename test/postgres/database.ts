import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, inject } from 'vitest'
import { databaseUrl } from './global-setup'

/** A fresh database cloned from the migrated template, for one test file. */
export async function cloneDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = inject('pgUrl')
  const template = inject('pgTemplate')
  const name = `promo_t_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  // A template must have no other session while it is copied: retry briefly if another file is cloning it.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`)
      break
    } catch (error) {
      if (attempt >= 50 || (error as { code?: string }).code !== '55006') throw error
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  await admin.end()
  return {
    url: databaseUrl(base, name),
    async drop() {
      const c = new pg.Client({ connectionString: base })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    },
  }
}

/**
 * Empties a migrated schema and restarts its change feed: a fresh store, cheaply. Every collection's
 * table, not only those the feed names: a trimmed feed no longer names every table written.
 */
export async function emptySchema(db: pg.Pool | pg.Client, schema: string): Promise<void> {
  const s = `"${schema}"`
  await db.query(`DO $$
DECLARE c text;
BEGIN
  FOR c IN SELECT tablename FROM pg_tables WHERE schemaname = '${schema}' AND tablename NOT LIKE 'pe\\_%' LOOP
    EXECUTE format('DELETE FROM %I.%I', '${schema}', c);
  END LOOP;
  DELETE FROM ${s}.pe_changes;
  -- Its scans reported when the connection goes idle, not later: a test counting scans starts after them.
  PERFORM pg_stat_force_next_flush();
END $$`)
}

/**
 * A database cloned for the calling test file, and a pool of `max` connections to it: made before
 * the file's tests, ended and dropped after them.
 */
export function useClonedPool(max: number): { readonly pool: pg.Pool; readonly url: string } {
  let pool: pg.Pool | undefined
  let db: Awaited<ReturnType<typeof cloneDatabase>> | undefined
  beforeAll(async () => {
    db = await cloneDatabase()
    pool = new pg.Pool({ connectionString: db.url, max }).on('error', () => {})
  })
  afterAll(async () => {
    await pool?.end()
    await db?.drop()
  })
  return {
    get pool() {
      if (!pool) throw new Error('useClonedPool: the pool exists once the file has started')
      return pool
    },
    get url() {
      if (!db) throw new Error('useClonedPool: the database exists once the file has started')
      return db.url
    },
  }
}
