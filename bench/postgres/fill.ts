import pg from 'pg'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import { columnNames, columnValues, tableLayout } from '../../src/postgres/columns'
import type { CollectionName, Write } from '../../src/storage/ports'

/*
 * Bench filler for PostgreSQL: new rows loaded with one multi-row `INSERT … SELECT FROM
 * jsonb_array_elements` per chunk instead of through the commit function, so 100,000 rows per
 * collection load in seconds rather than an hour. The rows land in the same tables, with the derived
 * columns computed by the same expressions, natural-key constraints and indexes as a commit's; what this skips
 * is the per-write checks of a commit (every row here is new) and the change feed (no reader).
 * Then ANALYZE, as autovacuum would after a bulk load, so the planner sees the new distribution.
 */

const CHUNK = 5000

/** Inserts new entities (`put` writes with `expectedVersion: null`) in bulk; anything else is refused. */
export async function bulkInsert(url: string, schema: string, writes: readonly Write[]): Promise<void> {
  const byCollection = new Map<CollectionName, unknown[]>()
  for (const w of writes) {
    if (w.op !== 'put' || w.expectedVersion !== null) throw new Error('bulkInsert loads new entities only')
    const values = byCollection.get(w.collection) ?? []
    values.push(w.value)
    byCollection.set(w.collection, values)
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const s = `"${schema}"`
    for (const [collection, values] of byCollection) {
      // The engine's own declarations: the callers migrate with no others.
      const layout = tableLayout(collection, schema)
      for (let i = 0; i < values.length; i += CHUNK) {
        await client.query(
          `INSERT INTO ${s}."${collection}" (id, value, version, shape${columnNames(layout)})
             SELECT e ->> 'id', e, 1, $2::integer${columnValues(layout, 'e')} FROM jsonb_array_elements($1::jsonb) AS e`,
          [JSON.stringify(values.slice(i, i + CHUNK)), currentShape(collection)],
        )
      }
      await client.query(`ANALYZE ${s}."${collection}"`)
    }
  } finally {
    await client.end()
  }
}

/**
 * VACUUM (ANALYZE) every table of the schema, as a bulk load is followed by in production: the
 * autovacuum that would otherwise start on the new rows does not run during the measurements, and
 * every size is measured with its visibility map set and its statistics current.
 */
export async function vacuumAnalyze(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ t: string }>('SELECT tablename AS t FROM pg_tables WHERE schemaname = $1', [
      schema,
    ])
    for (const { t } of rows) await client.query(`VACUUM (ANALYZE) "${schema}"."${t}"`)
  } finally {
    await client.end()
  }
}
