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
import { refuseAbsentFromSparse } from '../storage/sparse'
import { bucketsFor, type IndexBuckets, SortedEntries } from './index-buckets'
import { listRows } from './list'
import { chooseIndex, isRange, type Row, slice } from './pages'
import { keyString, type MemoryState, type MemoryStoreStats, table } from './state'

/** The memory store's reads: by id, by natural key, and lists answered from a declared index's buckets. */

const EMPTY = new SortedEntries()

/**
 * A store's repository: five arrows over the module's functions, which every store of a process
 * shares, so the code optimised while one store was read stays valid for the next store's reads
 * (docs/design.md#one-function-per-process). The methods hold their repository: a host may spread
 * one (`{ ...store.campaigns, list }`) or call one detached from it.
 */
export function repository<C extends CollectionName>(state: MemoryState, collection: C): Repository<C> {
  const reads = new CollectionReads(state, collection)
  return {
    get: (id) => readOne(reads, id) as Promise<StoredRow<Entity<C>> | undefined>,
    getMany: (ids) => readMany(reads, ids) as Promise<StoredRow<Entity<C>>[]>,
    findBy: (key, value) => findOne(reads, key, value) as Promise<StoredRow<Entity<C>> | undefined>,
    findMany: (key, values) => findSome(reads, key, values) as Promise<StoredRow<Entity<C>>[]>,
    list: (query) => listPage(reads, query) as Promise<Page<Entity<C>>>,
  }
}

/** What one collection's reads start from: one class, so every store's has the same shape. */
class CollectionReads {
  readonly stats: MemoryStoreStats
  readonly rows: Map<string, Row>
  constructor(
    readonly state: MemoryState,
    readonly collection: CollectionName,
  ) {
    this.stats = state.stats
    this.rows = table(state, collection)
  }
}

async function readOne(reads: CollectionReads, id: string): Promise<StoredRow<unknown> | undefined> {
  reads.stats.calls++
  const row = reads.rows.get(id)
  return row ? asStored(row) : undefined
}

async function readMany(reads: CollectionReads, ids: readonly string[]): Promise<StoredRow<unknown>[]> {
  reads.stats.calls++
  const out: StoredRow<unknown>[] = []
  for (const id of ids) {
    const row = reads.rows.get(id)
    if (row) out.push(asStored(row))
  }
  return out
}

async function findOne(
  reads: CollectionReads,
  key: string,
  value: string | readonly string[],
): Promise<StoredRow<unknown> | undefined> {
  reads.stats.calls++
  const row = byKey(reads, keyIndex(reads, key), value)
  return row ? asStored(row) : undefined
}

async function findSome(
  reads: CollectionReads,
  key: string,
  values: readonly (string | readonly string[])[],
): Promise<StoredRow<unknown>[]> {
  reads.stats.calls++
  const index = keyIndex(reads, key)
  const out: StoredRow<unknown>[] = []
  for (const value of values) {
    const row = byKey(reads, index, value)
    if (row) out.push(asStored(row))
  }
  return out
}

async function listPage(reads: CollectionReads, query: ListQuery = {}): Promise<Page<unknown>> {
  reads.stats.calls++
  return list(reads.state, reads.collection, query) as Page<unknown>
}

function keyIndex(reads: CollectionReads, key: string): Map<string, string> {
  const index = reads.state.keys.get(`${reads.collection}.${key}`)
  if (!index) throw new Error(`${reads.collection} has no natural key ${key}`)
  return index
}

function byKey(reads: CollectionReads, index: Map<string, string>, value: string | readonly string[]): Row | undefined {
  const id = index.get(typeof value === 'string' ? value : keyString(value))
  return id === undefined ? undefined : reads.rows.get(id)
}

// The value as stored, with its shape: the engine upgrades an older one (docs/storage.md#shape-versions).
const asStored = <T>(row: Row): StoredRow<T> => ({ value: row.value as T, version: row.version, shape: row.shape })

const undeclared = (collection: string, field: string) =>
  new Error(
    `${collection} is listed by ${field}, which no declared index covers: declare it in INDEXES (docs/storage.md#indexes)`,
  )

function list<C extends CollectionName>(state: MemoryState, collection: C, query: ListQuery): Page<Entity<C>> {
  const { stats } = state
  const where = query.where ?? {}
  const order = query.order ?? { field: 'created_at', direction: 'asc' }
  const declared = state.declaredFields.get(collection) as Map<string, IndexType>
  // Every read of the checkout lists: checked and planned without intermediate arrays.
  for (const field in where) if (!declared.has(field)) throw undeclared(collection, field)
  if (!declared.has(order.field)) throw undeclared(collection, order.field)
  if (isMultiValued(order.field)) throw new Error(`${collection} cannot be ordered by the multi-valued ${order.field}`)
  for (const field in where) {
    if (isMultiValued(field) && isRange(where[field] as FieldFilter)) {
      throw new Error(`${collection}: the multi-valued ${field} is filtered by equality or in, not by a range`)
    }
  }
  const indexes = state.indexes.get(collection) as IndexBuckets[]
  const index = chooseIndex(indexes, where, order.field)
  // Only a scan is left: refused if a sparse index skipped for an absent field would have answered.
  if (index.declaration.on.length === 0 && query.where !== undefined)
    refuseAbsentFromSparse(
      collection,
      indexes.map((i) => i.declaration),
      where,
    )
  const rows = table(state, collection)
  const { on } = index.declaration
  const rest: [string, FieldFilter][] = []
  for (const field in where) {
    if (!on.some(([p]) => p === field)) rest.push([field, where[field] as FieldFilter])
  }
  const buckets: SortedEntries[] = []
  for (const b of bucketsFor(index.declaration, where)) {
    const entries = index.buckets.get(b)
    if (entries) buckets.push(entries)
  }
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
      asStored<Entity<C>>,
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
      candidates.push(asStored<Entity<C>>(rows.get(e.id) as Row))
    }
  }
  return listRows(
    candidates,
    { ...query, where: Object.fromEntries(rest) },
    state.declaredTypes.get(collection),
    (id) => (rows.get(id) as Row | undefined)?.value as Entity<C> | undefined,
  )
}
