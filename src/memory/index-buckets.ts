import { parseInstant } from '../rules/zoned-calendar'
import type { FieldFilter, IndexDeclaration, IndexType } from '../storage/ports'
import { isMultiValued } from '../storage/ports'
import { readElements, readPath } from './paths'

/*
 * The memory store's declared indexes (docs/storage.md#indexes): per index, one bucket per value of
 * its equality fields, each bucket a list of entries kept sorted by (sort key, id). A list reads one
 * bucket (or one per value of an `in`), and when the order is the index's own, only the slice it
 * returns.
 */

export type SortKey = number | string | null

export interface Entry {
  key: SortKey
  id: string
}

/** An entry an index keeps: made by `new`, like everything the store keeps (see `StoredVersion` in pages.ts). */
class IndexEntry implements Entry {
  constructor(
    readonly key: SortKey,
    readonly id: string,
  ) {}
}

const lastParsed: { text: string | undefined; time: number | null } = { text: undefined, time: null }

/** How an entity's field reads as a sort key of the given type (`null` when absent or of another type). */
export function sortKey(value: unknown, type: IndexType): SortKey {
  switch (type) {
    case 'timestamp': {
      if (typeof value !== 'string') return null
      // An entity's indexes mostly sort on the same date (`created_at`): parsed once, not per index.
      if (value === lastParsed.text) return lastParsed.time
      const t = parseInstant(value)
      lastParsed.text = value
      lastParsed.time = Number.isNaN(t) ? null : t
      return lastParsed.time
    }
    case 'number':
      return typeof value === 'number' ? value : null
    case 'boolean':
      return typeof value === 'boolean' ? String(value) : null
    case 'text':
      return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null
  }
}

/** Orders sort keys: absent first, then numbers or strings in their natural order. */
export function compareKeys(a: SortKey, b: SortKey): number {
  if (a === b) return 0
  if (a === null) return -1
  if (b === null) return 1
  return a < b ? -1 : 1
}

export function compareEntries(a: Entry, b: Entry): number {
  return compareKeys(a.key, b.key) || (a.id === b.id ? 0 : a.id < b.id ? -1 : 1)
}

/**
 * The buckets of an entity: its equality fields' values (absent reads as null, like a `null` filter).
 * One bucket, unless a field is multi-valued: then one per element (docs/storage.md#multi-valued-indexes).
 */
export function bucketsOf(index: IndexDeclaration, value: unknown): string[] {
  if (!index.on.some(([path]) => isMultiValued(path))) {
    return [JSON.stringify(index.on.map(([path, type]) => sortKey(readPath(value, path), type)))]
  }
  let keys: SortKey[][] = [[]]
  for (const [path, type] of index.on) {
    if (!isMultiValued(path)) {
      const key = sortKey(readPath(value, path), type)
      for (const k of keys) k.push(key)
      continue
    }
    const elements = readElements(value, path)
    const values: SortKey[] = elements.length === 0 ? [null] : elements
    keys = keys.flatMap((prefix) => values.map((v) => [...prefix, v]))
  }
  return keys.map((k) => JSON.stringify(k))
}

/** A sort key as `JSON.stringify` writes it inside an array (a bucket's name, see `bucketsFor`). */
function keyText(key: SortKey): string {
  if (key === null) return 'null'
  if (typeof key === 'number') return Number.isFinite(key) ? String(key) : 'null'
  return JSON.stringify(key)
}

/** Reads a dotted path, split once rather than on every read (`readPath`). */
function reader(path: string): (value: unknown) => unknown {
  const parts = path.split('.')
  if (parts.length === 1) return (value) => (value as Record<string, unknown> | null | undefined)?.[path]
  return (value) => {
    let current = value
    for (const part of parts) {
      if (current === null || typeof current !== 'object') return undefined
      current = (current as Record<string, unknown>)[part]
    }
    return current
  }
}

/** Refuses a declaration a store cannot keep: a multi-valued field that is not text, or sorted on. */
export function checkDeclaration(collection: string, index: IndexDeclaration): void {
  for (const [path, type] of index.on) {
    if (isMultiValued(path) && type !== 'text') {
      throw new Error(`${collection}: the multi-valued index field ${path} must be text (docs/storage.md#indexes)`)
    }
  }
  if (isMultiValued(index.sort[0])) {
    throw new Error(`${collection}: an index cannot sort on the multi-valued field ${index.sort[0]}`)
  }
  if (index.sparse && index.on.some(([path]) => isMultiValued(path))) {
    throw new Error(`${collection}: a sparse index has no multi-valued field (it holds "none" as an element)`)
  }
  if (index.sparse && index.on.length === 0) throw new Error(`${collection}: a sparse index has equality fields`)
}

/** The buckets a `where` selects in this index: one per combination of its equality values. */
export function bucketsFor(index: IndexDeclaration, where: Record<string, FieldFilter>): string[] {
  // Most lists fix each field to one value: one bucket, named without the combinations' arrays.
  let bucket = '['
  for (let i = 0; i < index.on.length; i++) {
    const [path, type] = index.on[i] as (typeof index.on)[number]
    const cond = where[path]
    if (cond !== null && typeof cond === 'object') {
      if (!('in' in cond) || cond.in.length !== 1) return combinations(index, where)
      bucket += `${i > 0 ? ',' : ''}${bucketPart(cond.in[0] as string | number | boolean | null, type)}`
    } else bucket += `${i > 0 ? ',' : ''}${bucketPart(cond as string | number | boolean | null, type)}`
  }
  return [`${bucket}]`]
}

function bucketPart(v: string | number | boolean | null, type: IndexType): string {
  return keyText(v === null ? null : sortKey(v, type))
}

function combinations(index: IndexDeclaration, where: Record<string, FieldFilter>): string[] {
  let keys: SortKey[][] = [[]]
  for (const [path, type] of index.on) {
    const cond = where[path]
    const values =
      cond !== null && typeof cond === 'object' && 'in' in cond ? cond.in : [cond as string | number | boolean | null]
    keys = keys.flatMap((prefix) => values.map((v) => [...prefix, v === null ? null : sortKey(v, type)]))
  }
  return keys.map((k) => JSON.stringify(k))
}

/**
 * Entries kept sorted in chunks of a few hundred, so an insert or a removal moves a chunk, not the
 * whole bucket: a bucket of a million entries costs what one of a thousand does.
 */
export class SortedEntries implements Iterable<Entry> {
  private readonly chunks: Entry[][] = []
  length = 0

  private static readonly MAX = 512

  /** The entry at a position (0-based, in order). */
  at(position: number): Entry | undefined {
    let i = position
    for (const chunk of this.chunks) {
      if (i < chunk.length) return chunk[i]
      i -= chunk.length
    }
    return undefined
  }

  /** The first position where `pred` turns true (it must be false, then true, in order). */
  firstWhere(pred: (entry: Entry) => boolean): number {
    let position = 0
    for (const chunk of this.chunks) {
      if (pred(chunk[chunk.length - 1] as Entry)) return position + firstWhere(chunk, pred)
      position += chunk.length
    }
    return position
  }

  /** The chunk an entry belongs in: the first whose last entry is not before it, else the last. */
  private chunkFor(entry: Entry): Entry[] | undefined {
    const last = this.chunks.length - 1
    if (last < 0) return undefined
    const tail = this.chunks[last] as Entry[]
    // Most entries arrive in order (a creation date, an id): the last chunk is tried first.
    if (compareEntries(tail[tail.length - 1] as Entry, entry) < 0) return tail
    return this.chunks[firstWhere(this.chunks, (chunk) => compareEntries(chunk[chunk.length - 1] as Entry, entry) >= 0)]
  }

  insert(entry: Entry): void {
    this.length++
    const chunks = this.chunks
    const tail = chunks[chunks.length - 1]
    // An entry after every other (the usual case) is appended without a search.
    if (tail !== undefined && compareEntries(tail[tail.length - 1] as Entry, entry) < 0) {
      tail.push(entry)
      if (tail.length > 2 * SortedEntries.MAX) chunks.push(tail.splice(SortedEntries.MAX))
      return
    }
    const chunk = this.chunkFor(entry)
    if (!chunk) {
      this.chunks.push(Array.of(entry))
      return
    }
    if (compareEntries(chunk[chunk.length - 1] as Entry, entry) < 0) chunk.push(entry)
    else
      chunk.splice(
        firstWhere(chunk, (e) => compareEntries(e, entry) >= 0),
        0,
        entry,
      )
    if (chunk.length > 2 * SortedEntries.MAX) {
      this.chunks.splice(this.chunks.indexOf(chunk) + 1, 0, chunk.splice(SortedEntries.MAX))
    }
  }

  remove(entry: Entry): void {
    const chunk = this.chunkFor(entry)
    if (!chunk) return
    const at = firstWhere(chunk, (e) => compareEntries(e, entry) >= 0)
    if (chunk[at]?.id !== entry.id) return
    chunk.splice(at, 1)
    this.length--
    if (chunk.length === 0) this.chunks.splice(this.chunks.indexOf(chunk), 1)
  }

  *[Symbol.iterator](): Iterator<Entry> {
    for (const chunk of this.chunks) yield* chunk
  }
}

/** First position in a sorted list where `pred` turns true (it must be false, then true). */
export function firstWhere<T>(items: readonly T[], pred: (item: T) => boolean): number {
  let lo = 0
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (pred(items[mid] as T)) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** One index: a sorted bucket per value of its equality fields. */
export class IndexBuckets {
  readonly buckets = new Map<string, SortedEntries>()

  /** Whether an entity may sit in several buckets (a multi-valued `on` field). */
  readonly multi: boolean
  readonly sparse: boolean

  /**
   * A commit places every entity it writes in every index of its collection, so the paths are split
   * once here: what an entity's placement reads, and, per field, the value that decides it (for a
   * multi-valued field, the array its elements come from).
   */
  private readonly on: { read: (value: unknown) => unknown; type: IndexType }[]
  private readonly sortRead: (value: unknown) => unknown
  private readonly deciding: ((value: unknown) => unknown)[]

  constructor(readonly declaration: IndexDeclaration) {
    this.multi = declaration.on.some(([path]) => isMultiValued(path))
    this.sparse = declaration.sparse === true
    this.on = declaration.on.map(([path, type]) => ({ read: reader(path), type }))
    this.sortRead = reader(declaration.sort[0])
    this.deciding = [
      ...declaration.on.map(([path]) => reader(isMultiValued(path) ? (path.split('[]')[0] as string) : path)),
      this.sortRead,
    ]
  }

  entriesOf(id: string, value: unknown): Placement {
    const entry = new IndexEntry(sortKey(this.sortRead(value), this.declaration.sort[1]), id)
    if (this.multi) return { buckets: bucketsOf(this.declaration, value), entry }
    // The same text as `JSON.stringify` of the keys (`bucketsFor` names the buckets a list reads so).
    let bucket = '['
    for (let i = 0; i < this.on.length; i++) {
      const field = this.on[i] as (typeof this.on)[number]
      if (i > 0) bucket += ','
      const key = sortKey(field.read(value), field.type)
      // A sparse index holds no entity missing one of its fields (docs/storage.md#sparse-indexes).
      if (key === null && this.sparse) return { buckets: NONE, entry }
      bucket += keyText(key)
    }
    return { buckets: [`${bucket}]`], entry }
  }

  /**
   * Whether an update may move an entity in this index: false when every field the placement reads
   * is the very same value in both versions (an increment shares what it left alone), so most
   * updates (counters, a code's redeemed quantity) skip computing placements at all.
   */
  mayMove(before: unknown, after: unknown): boolean {
    for (const read of this.deciding) if (read(before) !== read(after)) return true
    return false
  }

  add({ buckets, entry }: Placement): void {
    for (let i = 0; i < buckets.length; i++) {
      const bucket = buckets[i] as string
      let entries = this.buckets.get(bucket)
      if (!entries) {
        entries = new SortedEntries()
        this.buckets.set(bucket, entries)
      }
      entries.insert(entry)
    }
  }

  remove({ buckets, entry }: Placement): void {
    for (const bucket of buckets) {
      const entries = this.buckets.get(bucket)
      if (!entries) continue
      entries.remove(entry)
      if (entries.length === 0) this.buckets.delete(bucket)
    }
  }
}

const NONE: string[] = []

/** Where an entity sits in one index: its buckets and its entry in each. */
export interface Placement {
  buckets: string[]
  entry: Entry
}

/** Whether two placements are the same: an update that leaves an index's fields alone does not move in it. */
export function samePlacement(a: Placement, b: Placement): boolean {
  return (
    a.entry.key === b.entry.key &&
    a.entry.id === b.entry.id &&
    a.buckets.length === b.buckets.length &&
    a.buckets.every((bucket, i) => bucket === b.buckets[i])
  )
}
