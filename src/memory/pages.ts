import type { FieldFilter, IndexDeclaration, ListQuery, Page, StoredRow } from '../storage/ports'
import { sparseExcludes } from '../storage/sparse'
import {
  compareEntries,
  compareKeys,
  type Entry,
  type IndexBuckets,
  type SortedEntries,
  type SortKey,
  sortKey,
} from './index-buckets'
import { readPath } from './paths'

/** Answering a list from the index buckets: which index, and a page read straight from one sorted bucket. */

/** A stored row: the value as committed, its version and the shape it was written in. */
export type Row = { readonly value: unknown; readonly version: number; readonly shape: number }

/**
 * What the store keeps for ever (a row, an index entry, a change of the feed) is made by `new`, not
 * by an object literal: V8 tracks literals' allocation sites, and once enough of a site's objects
 * survive a collection it moves the site to the old generation and throws away every optimised
 * function that allocates there, to compile them again (docs/design.md#kept-objects-made-by-new).
 */
export class StoredVersion implements Row {
  constructor(
    readonly value: unknown,
    readonly version: number,
    readonly shape: number,
  ) {}
}

export function isRange(cond: FieldFilter): boolean {
  return cond !== null && typeof cond === 'object' && !('in' in cond)
}

/** The index the memory store answers a list from: the one fixing most equality fields, then the one already in order. */
export function chooseIndex(indexes: readonly IndexBuckets[], where: ListQuery['where'] & object, orderField: string) {
  let best: IndexBuckets | undefined
  let bestScore = -1
  for (const index of indexes) {
    const { on, sort } = index.declaration
    if (!on.every(([p]) => p in where && !isRange(where[p] as FieldFilter))) continue
    // Its entities all have the fields: those asked to be absent are in another index.
    if (index.sparse && sparseExcludes(index.declaration, where)) continue
    const score = on.length * 2 + (sort[0] === orderField ? 1 : 0)
    if (score > bestScore) {
      best = index
      bestScore = score
    }
  }
  return best as IndexBuckets
}

/** A page read straight from one sorted bucket: only the entries it returns are touched. */
export function slice<T>(
  entries: SortedEntries,
  range: FieldFilter | undefined,
  sort: IndexDeclaration['sort'],
  query: ListQuery,
  direction: 'asc' | 'desc',
  rows: Map<string, Row>,
  asStored: (row: Row) => StoredRow<T>,
): Page<T> {
  let lo = 0
  let hi = entries.length
  if (range !== undefined) {
    lo = entries.firstWhere((e) => e.key !== null)
    const r = range as { before?: string; after?: string; gte?: number; lte?: number }
    const bound = (v: string | number | undefined): SortKey | undefined =>
      v === undefined ? undefined : typeof v === 'number' ? v : sortKey(v, sort[1])
    const after = bound(r.after)
    const gte = bound(r.gte)
    const before = bound(r.before)
    const lte = bound(r.lte)
    if (after !== undefined)
      lo = Math.max(
        lo,
        entries.firstWhere((e) => compareKeys(e.key, after) > 0),
      )
    if (gte !== undefined)
      lo = Math.max(
        lo,
        entries.firstWhere((e) => compareKeys(e.key, gte) >= 0),
      )
    if (before !== undefined)
      hi = Math.min(
        hi,
        entries.firstWhere((e) => compareKeys(e.key, before) >= 0),
      )
    if (lte !== undefined)
      hi = Math.min(
        hi,
        entries.firstWhere((e) => compareKeys(e.key, lte) > 0),
      )
    if (hi < lo) hi = lo
  }
  const total = hi - lo
  const desc = direction === 'desc'
  // Positions count from the start of the requested order.
  let start = 0
  if (query.starting_after_id !== undefined) start = passed(entries, lo, hi, query.starting_after_id, rows, sort, desc)
  const limit = query.limit ?? total
  if (query.page !== undefined) start += (query.page - 1) * limit
  const data: StoredRow<T>[] = []
  for (let i = start; i < Math.min(total, start + limit); i++) {
    const e = entries.at(desc ? hi - 1 - i : lo + i) as Entry
    data.push(asStored(rows.get(e.id) as Row))
  }
  const has_more = start + data.length < total
  const last = data.at(-1)
  return {
    data,
    total,
    has_more,
    more_starting_after: has_more && last ? String(readPath(last.value, 'id')) : null,
  }
}

/**
 * How many entries of `entries[lo, hi)` the requested order puts at or before the cursor's row: its
 * place by its stored sort key, whether or not it is still in this bucket and range; in id order, the
 * id's place even when the row is gone (docs/storage.md#cursors). A row unknown otherwise: all of them.
 */
function passed(
  entries: SortedEntries,
  lo: number,
  hi: number,
  id: string,
  rows: Map<string, Row>,
  sort: IndexDeclaration['sort'],
  desc: boolean,
): number {
  const row = rows.get(id)
  if (!row && sort[0] !== 'id') return hi - lo
  const probe: Entry = { key: sortKey(row ? readPath(row.value, sort[0]) : id, sort[1]), id }
  const within = (i: number) => Math.min(hi, Math.max(lo, i))
  return desc
    ? hi - within(entries.firstWhere((e) => compareEntries(e, probe) >= 0))
    : within(entries.firstWhere((e) => compareEntries(e, probe) > 0)) - lo
}
