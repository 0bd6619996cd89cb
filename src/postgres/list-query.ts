import type { CollectionName, Entity, ListQuery, Page, StoredRow } from 'promo-engine/storage'
import { refuseAbsentFromSparse } from '../storage/sparse'
import { quote, type TableLayout } from './columns'
import { condition } from './conditions'

/** A row as a read returns it inside its JSON array: id, value, version, shape (then key columns). */
export type Packed = [string, unknown, number, number, ...unknown[]]

/**
 * A read as one JSON array of its rows, each `[id, value, version, shape, ...extra]`, from `rest`
 * (`FROM … WHERE …`, and a list's `ORDER BY`/`LIMIT`). Built as `array_to_json(ARRAY(SELECT …))`,
 * not `coalesce(json_agg(…), '[]')` (docs/postgres.md#loads): an `ARRAY` sublink collects the rows
 * its subquery emits, in their order, with no aggregate node for PostgreSQL to plan and set up at
 * every execution, nor a second sort for the aggregate's own `ORDER BY`. Aggregated as `json`, not
 * `jsonb`: the answer is text for the client either way, and `json_build_array` appends each value's
 * text where `jsonb_build_array` first copies every value into a new binary container. `cte`: a
 * `WITH … ` the subquery reads (a list's cursor anchor).
 */
export function packed(rest: string, extra = '', cte = ''): string {
  return `array_to_json(ARRAY(${cte}SELECT json_build_array(id, value, version, shape${extra}) ${rest}))`
}

/** The table a list reads, and the batched read that sends its statement with the others of its level. */
export interface ListTarget<C extends CollectionName> {
  read: <T>(text: string, values: unknown[]) => Promise<T>
  /** The quoted schema-qualified table. */
  table: string
  layout: TableLayout
  /** The quoted schema. */
  schema: string
  collection: C
  /** The list statements made for this table, by shape (see `listPage`). */
  statements: Map<string, string>
}

/** List statements kept per table; past this many shapes, a statement is made per call. */
const STATEMENTS = 256

/**
 * One query per page, whatever it asks: the filters, the cursor (its anchor read in the same
 * statement, by id alone: a row that left the filter still marks its place; in id order the cursor is
 * the place, even of a deleted row; docs/storage.md#cursors), the page, and the total.
 */
export async function listPage<C extends CollectionName>(
  target: ListTarget<C>,
  q: ListQuery,
  asStored: (row: Packed) => StoredRow<Entity<C>>,
): Promise<Page<Entity<C>>> {
  const { read, table: t, layout, schema: s, collection } = target
  const order = q.order ?? { field: 'created_at', direction: 'asc' as const }
  const fieldOf = (name: string) => {
    const f = layout.fields.get(name)
    if (!f) {
      throw new Error(
        `${collection} is listed by ${name}, which no declared index covers: declare it in INDEXES (docs/storage.md#indexes)`,
      )
    }
    return f
  }
  // As the memory store refuses it: the rows without the field would be read by a scan.
  if (layout.sparse && q.where) refuseAbsentFromSparse(collection, layout.sparse, q.where)
  const params: unknown[] = []
  const param = (v: unknown) => {
    params.push(v)
    return `$${params.length}`
  }
  const conditions: string[] = []
  // A field filtered by null is constant in the result, but PostgreSQL does not know it as it knows
  // `= $1`: ordering by it first lets an index on (…, that field, sort field) give the order, so a
  // page is an index range read (a campaign's free codes, `holder_id: null`), not a sort of them all.
  const constant: string[] = []
  for (const [name, cond] of Object.entries(q.where ?? {})) {
    conditions.push(condition(fieldOf(name), cond, param, s))
    if (cond === null) constant.push(quote(fieldOf(name).column))
  }
  const sort = fieldOf(order.field)
  if (sort.multi) throw new Error(`${collection} cannot be ordered by the multi-valued ${order.field}`)
  const where = conditions.length > 0 ? conditions.join(' AND ') : 'TRUE'
  const desc = order.direction === 'desc'
  const col = quote(sort.column)
  const limit = q.limit
  const page = q.page ?? 1
  // Without a limit every row is on page 1.
  const empty = limit === undefined && page > 1
  const offset = limit === undefined ? 0 : (page - 1) * limit
  // The statement is made once per shape (docs/postgres.md#loads): the conditions' text and what
  // else decides it are the key, and the params follow in the order the text numbers them. Building
  // the full text per call cost more than the rest of a list, and a fresh string is hashed again
  // wherever it is looked up (the read batching's numbering, the prepared statement's name).
  const at = q.starting_after_id === undefined ? undefined : param(q.starting_after_id)
  const limitAt = limit === undefined ? undefined : param(limit + 1)
  const offsetAt = offset > 0 ? param(offset) : undefined
  const key = `${where}\u0000${constant.join(',')}\u0000${col}\u0000${desc}\u0000${at}\u0000${limitAt}\u0000${offsetAt}\u0000${empty}\u0000${q.count === false}`
  let sql = target.statements.get(key)
  if (sql === undefined) {
    sql = listStatement({
      t,
      col,
      where,
      constant,
      desc,
      at,
      limitAt,
      offsetAt,
      empty,
      total: q.count !== false,
      byId: sort.column === 'id',
    })
    if (target.statements.size < STATEMENTS) target.statements.set(key, sql)
  }
  const result = await read<{ total: number; rows: Packed[] }>(sql, params)
  const found = result.rows
  const has_more = limit !== undefined && found.length > limit
  const data = (has_more ? found.slice(0, limit) : found).map(asStored)
  const last = data.at(-1)
  return {
    data,
    total: result.total < 0 ? found.length : result.total,
    has_more,
    more_starting_after: has_more && last ? (last.value as { id: string }).id : null,
  }
}

/** A list's statement, from what decides its text (`listPage`). */
function listStatement(x: {
  t: string
  col: string
  where: string
  constant: readonly string[]
  desc: boolean
  at: string | undefined
  limitAt: string | undefined
  offsetAt: string | undefined
  empty: boolean
  total: boolean
  byId: boolean
}): string {
  const { t, col, where, desc, at } = x
  const dir = desc ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'
  const idDir = desc ? 'DESC' : 'ASC'
  let anchor = ''
  let from = t
  let keyset = 'TRUE'
  if (at !== undefined) {
    anchor = x.byId
      ? `WITH a AS (SELECT ${at}::text AS ak, ${at}::text AS aid) `
      : `WITH a AS (SELECT ${col} AS ak, id AS aid FROM ${t} WHERE id = ${at}) `
    from = `${t} CROSS JOIN a`
    keyset = desc
      ? `((a.ak IS NULL AND ${col} IS NULL AND id < a.aid) OR (a.ak IS NOT NULL AND (${col} < a.ak OR (${col} = a.ak AND id < a.aid) OR ${col} IS NULL)))`
      : `((a.ak IS NULL AND (${col} IS NOT NULL OR id > a.aid)) OR (a.ak IS NOT NULL AND (${col} > a.ak OR (${col} = a.ak AND id > a.aid))))`
  }
  // A total only when the caller asks for one (\`count\` not false): internal reads skip the count(*).
  const total = x.total ? `(SELECT count(*) FROM ${t} WHERE ${where})` : '-1'
  const order = `${x.constant.map((c) => `${c}${desc ? ' DESC' : ''}, `).join('')}${col} ${dir}, id ${idDir}`
  const limit = x.limitAt === undefined ? '' : ` LIMIT ${x.limitAt}::bigint`
  const offset = x.offsetAt === undefined ? '' : ` OFFSET ${x.offsetAt}::bigint`
  const rest = `FROM ${from} WHERE ${where} AND ${keyset}${x.empty ? ' AND FALSE' : ''} ORDER BY ${order}${limit}${offset}`
  return `json_build_object('total', ${total}, 'rows', ${packed(rest, '', anchor)})`
}
