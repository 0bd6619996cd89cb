import { createHash } from 'node:crypto'
import type { CollectionName, IndexDeclaration, IndexDeclarations, IndexType } from '../storage/ports'
import { indexesOf, isMultiValued, naturalKeysOf } from '../storage/ports'

/*
 * How entities map onto columns: every field a natural key or a declared index names becomes a
 * column computed from the JSONB value, typed by its declaration, by every statement that writes the
 * value (docs/postgres.md#schema). Each column's expression yields NULL for a value of another type
 * instead of failing its cast, so an entity whose field holds something unexpected is still stored
 * (and lists like the memory store lists it: absent).
 */

/** A typed column of a collection's table, derived from its value. */
export interface Column {
  name: string
  sqlType: string
  /** The column's expression over a row's value, `source` (the column `value`, or the value a statement writes). */
  expression: (source: string) => string
  /** The top-level field of the value the expression reads: the column changes only when it does. */
  field: string
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

/** A SQL string literal. */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}

/** `value #> '{a,b}'` for a dotted path, written as a SQL literal path. */
function pathOf(path: string): string {
  const parts = path.split('.').map((p) => `"${p.replace(/["\\]/g, (c) => `\\${c}`)}"`)
  return `'{${parts.join(',').replace(/'/g, "''")}}'`
}

/** `source -> 'a'` for a one-segment path (a key lookup), `source #> '{a,b}'` otherwise; `text` for `->>`, `#>>`. */
function read(source: string, path: string, text = false): string {
  if (path.includes('.')) return `(${source} #>${text ? '>' : ''} ${pathOf(path)})`
  return `(${source} ->${text ? '>' : ''} '${path.replace(/'/g, "''")}')`
}

function fieldExpression(source: string, path: string, type: IndexType, schema: string): string {
  const v = read(source, path)
  switch (type) {
    case 'text':
      return `CASE WHEN jsonb_typeof(${v}) IN ('string', 'number') THEN ${read(source, path, true)} END`
    case 'number':
      return `CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric END`
    case 'boolean':
      return `CASE WHEN jsonb_typeof(${v}) = 'boolean' THEN (${v})::boolean END`
    case 'timestamp':
      // A call, not the rule inline: a statement's expressions are set up again at every execution,
      // and one function's once per transaction however many columns and statements call it.
      return `CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${quote(schema)}.pe_timestamp(${read(source, path, true)}) END`
  }
}

/**
 * A multi-valued field (docs/storage.md#multi-valued-indexes): the JSON array of the string elements
 * the path reads (lax jsonpath: a value that is not an array is one element), or `[null]` when there
 * are none, so that "has none" is a containment test a GIN index answers like the others.
 */
function elementsExpression(source: string, path: string): string {
  const steps = path
    .split('.')
    .map((segment) => {
      const each = segment.endsWith('[]')
      const name = (each ? segment.slice(0, -2) : segment).replace(/["\\]/g, (c) => `\\${c}`)
      return `."${name}"${each ? '[*]' : ''}`
    })
    .join('')
  const jsonpath = `lax $${steps} ? (@.type() == "string")`.replace(/'/g, "''")
  return `COALESCE(NULLIF(jsonb_path_query_array(${source}, '${jsonpath}'), '[]'::jsonb), '[null]'::jsonb)`
}

/** The first segment of a dotted path (`data.referrer.id` → `data`, `products[].id` → `products`). */
function topField(path: string): string {
  return path.split(/[.[]/)[0] as string
}

/*
 * The derived columns as the statements that write a value list them (docs/postgres.md#schema): no
 * row trigger computes them, so every INSERT names them beside the value and every UPDATE of the
 * value sets them, from the same expressions. Each helper gives '' for a table without derived
 * columns, so its statements stay as they were.
 */

/** `, "c1", "c2"`: an INSERT's derived columns, after `id, value, version, shape`. */
export function columnNames(layout: TableLayout): string {
  return layout.columns.map((c) => `, ${quote(c.name)}`).join('')
}

/** `, <c1 over source>, <c2 over source>`: their values from the value inserted, in the order of `columnNames`. */
export function columnValues(layout: TableLayout, source: string): string {
  return layout.columns.map((c) => `, ${c.expression(source)}`).join('')
}

/**
 * `, "c1" = <c1 over source>, …`: an UPDATE's assignments of the columns `which` selects (all by
 * default) from the value it writes.
 */
export function columnSets(layout: TableLayout, source: string, which: (c: Column) => boolean = () => true): string {
  return layout.columns
    .filter(which)
    .map((c) => `, ${quote(c.name)} = ${c.expression(source)}`)
    .join('')
}

/**
 * A jsonpath filter on text items (dotted paths, or top-level fields removed): true for an item in one
 * of the fields the layout's columns read, by its first segment (`redemption` for
 * `redemption.redeemed_quantity`), so that what it finds is all that could move a column. '' when none.
 */
export function columnFieldFilter(layout: TableLayout): string {
  const fields = [...new Set(layout.columns.map((c) => c.field))]
  return fields.map((f) => `@ == ${JSON.stringify(f)} || @ starts with ${JSON.stringify(`${f}.`)}`).join(' || ')
}

/** The column of a declared index field (`id` is the primary key itself). */
export function fieldColumn(path: string, type: IndexType): string {
  if (path === 'id') return 'id'
  return identifier(
    isMultiValued(path) ? `f_${path.replace(/\[\]/g, '_each')}_jsonb` : `f_${path}_${TYPE_SUFFIX[type]}`,
  )
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
  fields: Map<string, { column: string; type: IndexType; multi?: true }>
  /**
   * B-tree indexes over typed columns, and GIN indexes over a multi-valued field's column; a sparse
   * one is partial, holding only rows whose equality columns are all set (`where`).
   */
  indexes: { name: string; columns: string[]; gin?: true; where?: string }[]
  /** The declarations, when one is sparse: a list asking its fields absent is checked against them. */
  sparse?: readonly IndexDeclaration[]
}

export function tableLayout(collection: CollectionName, schema: string, extra: IndexDeclarations = {}): TableLayout {
  const columns = new Map<string, Column>()
  const fields = new Map<string, TableLayout['fields'] extends Map<string, infer F> ? F : never>([
    ['id', { column: 'id', type: 'text' }],
  ])
  const keys: KeyColumns[] = naturalKeysOf(collection).map((fieldsOfKey) => {
    const cols = fieldsOfKey.map((f) => {
      const name = keyColumn(f)
      columns.set(name, {
        name,
        sqlType: SQL_TYPE.text,
        expression: (source) =>
          `CASE WHEN jsonb_typeof(${read(source, f)}) = 'string' THEN ${read(source, f, true)} END`,
        field: topField(f),
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
      const multi = isMultiValued(path)
      if (multi && (type !== 'text' || path === d.sort[0])) {
        throw new Error(`${collection}: the multi-valued index field ${path} must be text and is never sorted on`)
      }
      if (!fields.has(path)) fields.set(path, multi ? { column: name, type, multi } : { column: name, type })
      if (name !== 'id' && !columns.has(name)) {
        columns.set(
          name,
          multi
            ? {
                name,
                sqlType: 'jsonb',
                expression: (source) => elementsExpression(source, path),
                field: topField(path),
              }
            : {
                name,
                sqlType: SQL_TYPE[type],
                expression: (source) => fieldExpression(source, path, type, schema),
                field: topField(path),
              },
        )
      }
    }
    const multiOn = d.on.filter(([p]) => isMultiValued(p))
    if (multiOn.length > 0) {
      // A B-tree cannot hold "one of these elements": each multi-valued column gets a GIN index, and
      // the other conditions of the list filter the rows it finds.
      for (const [p, t] of multiOn) {
        const col = fieldColumn(p, t)
        indexes.push({ name: identifier(`${collection}__${col}__gin`), columns: [col], gin: true })
      }
      continue
    }
    const cols = [...d.on.map(([p, t]) => fieldColumn(p, t)), fieldColumn(d.sort[0], d.sort[1])]
    // Listing a whole collection by id is its primary key.
    if (cols.length === 1 && cols[0] === 'id') continue
    const signature = cols.join(',')
    if (d.sparse) {
      if (d.on.length === 0) throw new Error(`${collection}: a sparse index has equality fields`)
      // Named apart from the full index on the same columns, which a host may declare too.
      indexes.push({
        name: identifier(`${collection}__${signature.replace(/,/g, '__')}__sparse`),
        columns: cols,
        where: d.on.map(([p, t]) => `${quote(fieldColumn(p, t))} IS NOT NULL`).join(' AND '),
      })
      continue
    }
    indexes.push({ name: identifier(`${collection}__${signature.replace(/,/g, '__')}`), columns: cols })
  }
  const layout: TableLayout = { collection, columns: [...columns.values()], keys, fields, indexes }
  if (declared.some((d) => d.sparse)) layout.sparse = declared
  return layout
}
