import { createHash } from 'node:crypto'
import type { CollectionName, IndexDeclaration, IndexDeclarations, IndexType } from '../ports'
import { indexesOf, naturalKeysOf } from '../ports'

/*
 * How entities map onto columns: every field a natural key or a declared index names becomes a
 * stored generated column computed from the JSONB value, typed by its declaration. Each column's
 * expression yields NULL for a value of another type instead of failing its cast, so an entity whose
 * field holds something unexpected is still stored (and lists like the memory store lists it: absent).
 */

/** A typed generated column of a collection's table. */
export interface Column {
  name: string
  sqlType: string
  /** The generation expression over `value`. */
  expression: string
}

/** A natural key: the constraint that makes it unique and the columns it spans. */
export interface KeyColumns {
  key: string
  fields: readonly string[]
  columns: readonly string[]
  constraint: string
}

const SQL_TYPE: Record<IndexType, string> = {
  text: 'text COLLATE "C"',
  number: 'numeric',
  timestamp: 'timestamptz',
  boolean: 'boolean',
}

const TYPE_SUFFIX: Record<IndexType, string> = { text: 't', number: 'n', timestamp: 'ts', boolean: 'b' }

/** A PostgreSQL identifier (at most 63 bytes) derived from a name; long names end in a hash. */
export function identifier(name: string): string {
  const plain = name.replace(/[^a-z0-9_]/gi, '_').toLowerCase()
  if (plain.length <= 63) return plain
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10)
  return `${plain.slice(0, 52)}_${hash}`
}

export function quote(identifierName: string): string {
  return `"${identifierName.replace(/"/g, '""')}"`
}

/** `value #> '{a,b}'` for a dotted path, written as a SQL literal path. */
function pathOf(path: string): string {
  const parts = path.split('.').map((p) => `"${p.replace(/["\\]/g, (c) => `\\${c}`)}"`)
  return `'{${parts.join(',').replace(/'/g, "''")}}'`
}

function fieldExpression(path: string, type: IndexType, schema: string): string {
  const v = `(value #> ${pathOf(path)})`
  switch (type) {
    case 'text':
      return `CASE WHEN jsonb_typeof(${v}) IN ('string', 'number') THEN ${v} #>> '{}' END`
    case 'number':
      return `CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric END`
    case 'boolean':
      return `CASE WHEN jsonb_typeof(${v}) = 'boolean' THEN (${v})::boolean END`
    case 'timestamp':
      return `CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${quote(schema)}.pe_timestamp(${v} #>> '{}') END`
  }
}

/** The column of a declared index field (`id` is the primary key itself). */
export function fieldColumn(path: string, type: IndexType): string {
  return path === 'id' ? 'id' : identifier(`f_${path}_${TYPE_SUFFIX[type]}`)
}

export function keyColumn(field: string): string {
  return identifier(`k_${field}`)
}

/** Everything the adapter derives from the declarations of one collection. */
export interface TableLayout {
  collection: CollectionName
  columns: Column[]
  keys: KeyColumns[]
  /** Declared fields (and `id`), by path: the column lists filter and order on, and its type. */
  fields: Map<string, { column: string; type: IndexType }>
  indexes: { name: string; columns: string[] }[]
}

export function tableLayout(collection: CollectionName, schema: string, extra: IndexDeclarations = {}): TableLayout {
  const columns = new Map<string, Column>()
  const fields = new Map<string, { column: string; type: IndexType }>([['id', { column: 'id', type: 'text' }]])
  const keys: KeyColumns[] = naturalKeysOf(collection).map((fieldsOfKey) => {
    const cols = fieldsOfKey.map((f) => {
      const name = keyColumn(f)
      const v = `(value #> ${pathOf(f)})`
      columns.set(name, {
        name,
        sqlType: SQL_TYPE.text,
        expression: `CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${v} #>> '{}' END`,
      })
      return name
    })
    const key = fieldsOfKey.join('+')
    return { key, fields: fieldsOfKey, columns: cols, constraint: identifier(`${collection}__${key}__key`) }
  })
  const declared: IndexDeclaration[] = indexesOf(collection, extra)
  const indexes: TableLayout['indexes'] = []
  for (const d of declared) {
    for (const [path, type] of [...d.on, d.sort]) {
      const name = fieldColumn(path, type)
      if (!fields.has(path)) fields.set(path, { column: name, type })
      if (name !== 'id' && !columns.has(name)) {
        columns.set(name, { name, sqlType: SQL_TYPE[type], expression: fieldExpression(path, type, schema) })
      }
    }
    const cols = [...d.on.map(([p, t]) => fieldColumn(p, t)), fieldColumn(d.sort[0], d.sort[1])]
    // Listing a whole collection by id is its primary key.
    if (cols.length === 1 && cols[0] === 'id') continue
    const signature = cols.join(',')
    indexes.push({ name: identifier(`${collection}__${signature.replace(/,/g, '__')}`), columns: cols })
  }
  return { collection, columns: [...columns.values()], keys, fields, indexes }
}
