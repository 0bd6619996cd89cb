import type { FieldFilter, IndexType, ListQuery, Page, StoredRow } from '../storage/ports'
import { isMultiValued } from '../storage/ports'
import { readElements, readPath } from './paths'

/**
 * Filtering, ordering and both kinds of pagination, shared with any adapter that lists in memory.
 * `types` names the declared type of filtered fields: a `before`/`after` range on a `text` field
 * compares by code point, on any other field as ISO dates. A `starting_after_id` cursor continues
 * after its row's place in the order even when the row no longer matches the filter: `stored` finds
 * it among every stored row when it is not in `rows` (docs/storage.md#cursors).
 */
export function listRows<T>(
  rows: StoredRow<T>[],
  query: ListQuery,
  types: Readonly<Record<string, IndexType>> = {},
  stored?: (id: string) => T | undefined,
): Page<T> {
  const where = Object.entries(query.where ?? {})
  const filtered =
    where.length === 0
      ? rows
      : rows.filter((r) => where.every(([f, cond]) => matchesField(r.value, f, cond, types[f] === 'text')))
  const field = query.order?.field ?? 'created_at'
  const sign = query.order?.direction === 'desc' ? -1 : 1
  const order = (a: unknown, b: unknown) => {
    const c = compare(readPath(a, field), readPath(b, field)) * sign
    if (c !== 0) return c
    return compare(readPath(a, 'id'), readPath(b, 'id')) * sign
  }
  const sorted = [...filtered].sort((a, b) => order(a.value, b.value))
  let start = 0
  if (query.starting_after_id !== undefined) {
    const id = query.starting_after_id
    const anchor =
      rows.find((r) => readPath(r.value, 'id') === id)?.value ?? stored?.(id) ?? (field === 'id' ? { id } : undefined)
    start = anchor === undefined ? sorted.length : sorted.findIndex((r) => order(r.value, anchor) > 0)
    if (start === -1) start = sorted.length
  }
  const limit = query.limit ?? sorted.length
  if (query.page !== undefined) start += (query.page - 1) * limit
  const data = sorted.slice(start, start + limit)
  const has_more = start + data.length < sorted.length
  const last = data.at(-1)
  return {
    data,
    total: filtered.length,
    has_more,
    more_starting_after: has_more && last ? String(readPath(last.value, 'id')) : null,
  }
}

/** A multi-valued field matches when one of its elements does; `null` when it has none. */
function matchesField(value: unknown, field: string, cond: FieldFilter, text: boolean): boolean {
  if (!isMultiValued(field)) return matches(readPath(value, field), cond, text)
  const elements = readElements(value, field)
  if (elements.length === 0)
    return cond === null || (typeof cond === 'object' && 'in' in cond && cond.in.includes(null))
  const asText = (c: FieldFilter): FieldFilter =>
    typeof c === 'number'
      ? String(c)
      : c !== null && typeof c === 'object' && 'in' in c
        ? { in: c.in.map((v) => (typeof v === 'number' ? String(v) : v)) }
        : c
  const textual = asText(cond)
  return elements.some((e) => matches(e, textual, true))
}

function matches(value: unknown, cond: FieldFilter, text: boolean): boolean {
  if (cond === null || typeof cond !== 'object') return value === cond || (cond === null && value === undefined)
  // `null` in a set matches an absent field too, as a `null` filter does.
  if ('in' in cond) return cond.in.includes((value === undefined ? null : value) as string | number | null)
  if ('before' in cond || 'after' in cond) {
    if (typeof value !== 'string') return false
    const c = cond as { before?: string; after?: string }
    if (text) return (c.before === undefined || value < c.before) && (c.after === undefined || value > c.after)
    const t = Date.parse(value)
    if (c.before !== undefined && !(t < Date.parse(c.before))) return false
    if (c.after !== undefined && !(t > Date.parse(c.after))) return false
    return true
  }
  const r = cond as { gte?: number; lte?: number }
  if (typeof value !== 'number') return false
  return (r.gte === undefined || value >= r.gte) && (r.lte === undefined || value <= r.lte)
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0
  if (a === undefined || a === null) return -1
  if (b === undefined || b === null) return 1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a) < String(b) ? -1 : 1
}
