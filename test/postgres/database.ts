import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'
import { databaseUrl, TEMPLATE_DB } from './global-setup'

/** A fresh database cloned from the migrated template, for one test file. */
export async function cloneDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = inject('pgUrl')
  const name = `promo_t_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  // A template must have no other session while it is copied: retry briefly if another file is cloning it.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`)
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

const COLLECTION_TABLES = `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS t
  FROM information_schema.tables WHERE table_schema = $1 AND table_name NOT IN ('pe_migrations', 'pe_feed', 'pe_keys')`

/** Empties every table of a migrated schema and restarts its change feed: a fresh store, cheaply. */
export async function emptySchema(db: pg.Pool | pg.Client, schema: string): Promise<void> {
  const { rows } = await db.query<{ t: string }>(COLLECTION_TABLES, [schema])
  const s = `"${schema}"`
  await db.query(`${rows.map((r) => `DELETE FROM ${r.t}`).join(';')}; UPDATE ${s}.pe_feed SET seq = 0`)
}
