import type { CollectionName, Entity, Repository, StoredRow } from 'promo-engine/storage'
import { quote, type TableLayout } from './columns'
import { listPage, type Packed, packed } from './list-query'
import type { readBatcher } from './read-batching'
import { CACHED, type ReadCache } from './read-cache'

/** What a collection's reads need of the store that makes them. */
export interface ReadPath {
  /** The store's batched reads (docs/postgres.md#loads). */
  read: ReturnType<typeof readBatcher>
  /** The schema, quoted. */
  schema: string
  /** The read cache of the collections it keeps (docs/postgres.md#read-cache), when the store has one. */
  cache: ReadCache | undefined
}

/**
 * A collection's reads (the `Repository` port): each by its primary key, a natural key or a declared
 * index, and each a statement whose text is made once, so reads of one shape are one string that
 * concurrent requests share (docs/postgres.md#loads).
 */
export function tableReads<C extends CollectionName>(
  collection: C,
  layout: TableLayout,
  { read, schema, cache }: ReadPath,
): Repository<C> {
  const t = `${schema}.${quote(collection)}`
  // The value as stored, with its shape: the engine upgrades an older one (docs/storage.md#shape-versions).
  const asStored = (row: Packed): StoredRow<Entity<C>> => ({
    value: row[1] as Entity<C>,
    version: row[2],
    shape: row[3],
  })
  const keyOf = (key: string) => {
    const k = layout.keys.find((x) => x.key === key)
    if (!k) throw new Error(`${collection} has no natural key ${key}`)
    return k
  }
  const keyValues = (value: string | readonly string[]): readonly string[] =>
    typeof value === 'string' ? [value] : value
  const getSql = packed(`FROM ${t} WHERE id = $1`)
  const getManySql = packed(`FROM ${t} WHERE id = ANY($1::text[])`)
  const findBySql = new Map<string, string>()
  const cached = cache !== undefined && CACHED.includes(collection) ? cache : undefined
  const findManySql = new Map<string, string>()
  const listTarget = { read, table: t, layout, schema, collection, statements: new Map<string, string>() }
  return {
    async get(id) {
      const [row] = await read<Packed[]>(getSql, [id])
      return row ? asStored(row) : undefined
    },
    async getMany(ids) {
      if (ids.length === 0) return []
      const rows = await read<Packed[]>(getManySql, [ids])
      const byId = new Map(rows.map((r) => [r[0], r]))
      return ids.flatMap((id) => {
        const row = byId.get(id)
        return row ? [asStored(row)] : []
      })
    },
    async findBy(key, value) {
      let sql = findBySql.get(key)
      if (sql === undefined) {
        const where = keyOf(key)
          .columns.map((c, i) => `${quote(c)} = $${i + 1}::text`)
          .join(' AND ')
        sql = packed(`FROM ${t} WHERE ${where}`)
        findBySql.set(key, sql)
      }
      if (cached === undefined) {
        const [row] = await read<Packed[]>(sql, [...keyValues(value)])
        return row ? asStored(row) : undefined
      }
      // Found rows only: an unknown app id or token is read every time (docs/postgres.md#read-cache).
      const entry = typeof value === 'string' ? `${key}\u0000${value}` : `${key}\u0000${value.join('\u0000')}`
      const hit = cached.get(collection, entry)
      if (hit !== undefined) return hit as StoredRow<Entity<C>>
      const generation = cached.generation(collection)
      const [row] = await read<Packed[]>(sql, [...keyValues(value)])
      if (!row) return undefined
      const found = asStored(row)
      cached.set(collection, entry, generation, found)
      return found
    },
    async findMany(key, values) {
      if (values.length === 0) return []
      const k = keyOf(key)
      const tuples = values.map(keyValues)
      const params = k.columns.map((_, i) => tuples.map((t) => t[i] ?? null))
      let sql = findManySql.get(key)
      if (sql === undefined) {
        const cols = k.columns.map(quote)
        const extra = `, ${cols.join(', ')}`
        sql =
          cols.length === 1
            ? packed(`FROM ${t} WHERE ${cols[0]} = ANY($1::text[])`, extra)
            : packed(
                `FROM ${t} WHERE (${cols.join(', ')}) IN (SELECT * FROM unnest(${cols.map((_, i) => `$${i + 1}::text[]`).join(', ')}))`,
                extra,
              )
        findManySql.set(key, sql)
      }
      const rows = await read<Packed[]>(sql, params)
      // Keys joined by NUL, which a PostgreSQL text value cannot hold: no JSON per row and per tuple.
      const byKey = new Map<string, Packed>()
      for (const r of rows) byKey.set(r.length === 5 ? String(r[4]) : r.slice(4).join('\u0000'), r)
      return tuples.flatMap((tuple) => {
        const row = byKey.get(tuple.length === 1 ? (tuple[0] as string) : tuple.join('\u0000'))
        return row ? [asStored(row)] : []
      })
    },
    async list(q = {}) {
      return listPage(listTarget, q, asStored)
    },
  }
}
