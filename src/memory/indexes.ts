import type { FieldFilter, IndexDeclaration, IndexType } from '../ports'
import { readPath } from './paths'

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

/** How an entity's field reads as a sort key of the given type (`null` when absent or of another type). */
export function sortKey(value: unknown, type: IndexType): SortKey {
  switch (type) {
    case 'timestamp': {
      if (typeof value !== 'string') return null
      const t = Date.parse(value)
      return Number.isNaN(t) ? null : t
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

/** The bucket of an entity: its equality fields' values (absent reads as null, like a `null` filter). */
export function bucketOf(index: IndexDeclaration, value: unknown): string {
  return JSON.stringify(index.on.map(([path, type]) => sortKey(readPath(value, path), type)))
}

/** The buckets a `where` selects in this index: one per combination of its equality values. */
export function bucketsFor(index: IndexDeclaration, where: Record<string, FieldFilter>): string[] {
  let keys: SortKey[][] = [[]]
  for (const [path, type] of index.on) {
    const cond = where[path]
    const values =
      cond !== null && typeof cond === 'object' && 'in' in cond ? cond.in : [cond as string | number | boolean | null]
    keys = keys.flatMap((prefix) => values.map((v) => [...prefix, v === null ? null : sortKey(v, type)]))
  }
  return keys.map((k) => JSON.stringify(k))
}

/** First position whose entry is not before `probe` (binary search). */
export function lowerBound(entries: readonly Entry[], probe: Entry): number {
  let lo = 0
  let hi = entries.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareEntries(entries[mid] as Entry, probe) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A sorted bucket set: insert and remove in O(log n) search plus one splice. */
export class IndexBuckets {
  readonly buckets = new Map<string, Entry[]>()

  constructor(readonly declaration: IndexDeclaration) {}

  entryOf(id: string, value: unknown): { bucket: string; entry: Entry } {
    const [path, type] = this.declaration.sort
    return { bucket: bucketOf(this.declaration, value), entry: { key: sortKey(readPath(value, path), type), id } }
  }

  add(id: string, value: unknown): void {
    const { bucket, entry } = this.entryOf(id, value)
    let entries = this.buckets.get(bucket)
    if (!entries) {
      entries = []
      this.buckets.set(bucket, entries)
    }
    entries.splice(lowerBound(entries, entry), 0, entry)
  }

  remove(id: string, value: unknown): void {
    const { bucket, entry } = this.entryOf(id, value)
    const entries = this.buckets.get(bucket)
    if (!entries) return
    const at = lowerBound(entries, entry)
    if (entries[at]?.id === id) entries.splice(at, 1)
    if (entries.length === 0) this.buckets.delete(bucket)
  }
}
