import type {
  CollectionName,
  Entity,
  FieldFilter,
  IndexType,
  ListQuery,
  Page,
  Repository,
  StoredRow,
} from '../storage/ports'
import { isMultiValued } from '../storage/ports'
import { bucketsFor, type IndexBuckets, SortedEntries } from './index-buckets'
import { listRows } from './list'
import { chooseIndex, isRange, type Row, slice } from './pages'
import { keyString, type MemoryState, table } from './state'

/** The memory store's reads: by id, by natural key, and lists answered from a declared index's buckets. */

const EMPTY = new SortedEntries()

export function repository<C extends CollectionName>(state: MemoryState, collection: C): Repository<C> {
  const { stats } = state
  const rows = table(state, collection)
  // The value as stored, with its shape: the engine upgrades an older one (docs/storage.md#shape-versions).
  const asStored = (row: Row): StoredRow<Entity<C>> => ({
    value: row.value as Entity<C>,
    version: row.version,
    shape: row.shape,
  })
  const byKey = (key: string, value: string | readonly string[]): Row | undefined => {
    const index = state.keys.get(`${collection}.${key}`)
    if (!index) throw new Error(`${collection} has no natural key ${key}`)
    const id = index.get(typeof value === 'string' ? value : keyString(value))
    return id === undefined ? undefined : rows.get(id)
  }
  return {
    async get(id) {
      stats.calls++
      const row = rows.get(id)
      return row ? asStored(row) : undefined
    },
    async getMany(ids) {
      stats.calls++
      const out: StoredRow<Entity<C>>[] = []
      for (const id of ids) {
        const row = rows.get(id)
        if (row) out.push(asStored(row))
      }
      return out
    },
    async findBy(key, value) {
      stats.calls++
      const row = byKey(key, value)
      return row ? asStored(row) : undefined
    },
    async findMany(key, values) {
      stats.calls++
      const out: StoredRow<Entity<C>>[] = []
      for (const value of values) {
        const row = byKey(key, value)
        if (row) out.push(asStored(row))
      }
      return out
    },
    async list(query = {}) {
      stats.calls++
      return list(state, collection, query, asStored)
    },
  }
}

function list<C extends CollectionName>(
  state: MemoryState,
  collection: C,
  query: ListQuery,
  asStored: (row: Row) => StoredRow<Entity<C>>,
): Page<Entity<C>> {
  const { stats } = state
  const where = query.where ?? {}
  const order = query.order ?? { field: 'created_at', direction: 'asc' }
  const declared = state.declaredFields.get(collection) as Map<string, IndexType>
  // Every read of the checkout lists: checked and planned without intermediate arrays.
  const undeclared = (field: string) =>
    new Error(
      `${collection} is listed by ${field}, which no declared index covers: declare it in INDEXES (docs/storage.md#indexes)`,
    )
  for (const field in where) if (!declared.has(field)) throw undeclared(field)
  if (!declared.has(order.field)) throw undeclared(order.field)
  if (isMultiValued(order.field)) throw new Error(`${collection} cannot be ordered by the multi-valued ${order.field}`)
  for (const field in where) {
    if (isMultiValued(field) && isRange(where[field] as FieldFilter)) {
      throw new Error(`${collection}: the multi-valued ${field} is filtered by equality or in, not by a range`)
    }
  }
  const index = chooseIndex(state.indexes.get(collection) as IndexBuckets[], where, order.field)
  const rows = table(state, collection)
  const { on } = index.declaration
  const rest: [string, FieldFilter][] = []
  for (const field in where) {
    if (!on.some(([p]) => p === field)) rest.push([field, where[field] as FieldFilter])
  }
  const buckets = bucketsFor(index.declaration, where).flatMap((b) => {
    const entries = index.buckets.get(b)
    return entries ? [entries] : []
  })
  const [sortField] = index.declaration.sort
  const single = buckets.length <= 1
  if (single && sortField === order.field && rest.every(([f, c]) => f === sortField && isRange(c))) {
    const page = slice(
      buckets[0] ?? EMPTY,
      rest[0]?.[1],
      index.declaration.sort,
      query,
      order.direction,
      rows,
      asStored,
    )
    // Only the entries the page returns are touched.
    stats.rowsExamined += page.data.length
    return page
  }
  const candidates: StoredRow<Entity<C>>[] = []
  // An entity with several matching elements of a multi-valued field sits in several buckets: listed once.
  const seen = index.multi && buckets.length > 1 ? new Set<string>() : undefined
  for (const entries of buckets) {
    stats.rowsExamined += entries.length
    for (const e of entries) {
      if (seen) {
        if (seen.has(e.id)) continue
        seen.add(e.id)
      }
      candidates.push(asStored(rows.get(e.id) as Row))
    }
  }
  return listRows(
    candidates,
    { ...query, where: Object.fromEntries(rest) },
    Object.fromEntries(declared),
    (id) => (rows.get(id) as Row | undefined)?.value as Entity<C> | undefined,
  )
}
