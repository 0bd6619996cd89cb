import type pg from 'pg'
import { literal, quote } from '../../src/postgres/columns'
import { layouts } from '../../src/postgres/migrate'
import type { IndexDeclarations } from '../../src/storage/ports'

/**
 * The derived columns of a migrated schema that differ from their expression over the stored value
 * (docs/postgres.md#schema), as `collection/id column`: none when every statement that wrote a value
 * computed them. One statement, every table with derived columns read whole.
 */
export async function staleColumns(
  db: pg.Pool | pg.Client,
  schema: string,
  indexes: IndexDeclarations = {},
): Promise<string[]> {
  const parts: string[] = []
  for (const layout of layouts(schema, indexes).values()) {
    if (layout.columns.length === 0) continue
    const differs = (c: (typeof layout.columns)[number]) => `${quote(c.name)} IS DISTINCT FROM ${c.expression('value')}`
    parts.push(`SELECT ${literal(layout.collection)} || '/' || id || ' ' || c AS stale
      FROM ${quote(schema)}.${quote(layout.collection)},
        unnest(ARRAY[${layout.columns.map((c) => `CASE WHEN ${differs(c)} THEN ${literal(c.name)} END`).join(', ')}]) c
      WHERE c IS NOT NULL`)
  }
  const { rows } = await db.query<{ stale: string }>(`${parts.join('\nUNION ALL\n')} ORDER BY 1`)
  return rows.map((r) => r.stale)
}
