import type { IndexDeclaration, IndexType } from './indexes'

/** Sparse indexes as both stores read them (docs/storage.md#sparse-indexes): which lists they cannot answer. */

/**
 * Whether a filter asks for an absent field: `null`, an `in` holding `null`, or a value no entity's
 * field of that type reads as (stores read those as absent too). A sparse index holds no such entity.
 */
export function asksAbsent(cond: unknown, type: IndexType): boolean {
  if (cond === undefined) return false
  if (cond !== null && typeof cond === 'object')
    return 'in' in cond && Array.isArray(cond.in) && cond.in.some((v) => asksAbsent(v, type))
  switch (type) {
    case 'text':
      return typeof cond !== 'string' && typeof cond !== 'number'
    case 'number':
      return typeof cond !== 'number'
    case 'boolean':
      return typeof cond !== 'boolean'
    case 'timestamp':
      return typeof cond !== 'string'
  }
}

/** Whether a sparse index cannot answer a `where`: it asks one of the index's fields to be absent. */
export function sparseExcludes(index: IndexDeclaration, where: Readonly<Record<string, unknown>>): boolean {
  return index.sparse === true && index.on.some(([path, type]) => asksAbsent(where[path], type))
}

const isEquality = (cond: unknown) => cond !== undefined && (cond === null || typeof cond !== 'object' || 'in' in cond)

/**
 * Refuses a list that a sparse index would answer but for a field asked to be absent, when no other
 * index fixed by the `where` can (docs/storage.md#sparse-indexes): the rows without the field are in
 * no index but the whole collection's, so the list would be a scan. Both stores call it.
 */
export function refuseAbsentFromSparse(
  collection: string,
  indexes: readonly IndexDeclaration[],
  where: Readonly<Record<string, unknown>>,
): void {
  let excluded: IndexDeclaration | undefined
  for (const index of indexes) {
    if (index.on.length === 0 || !index.on.every(([p]) => isEquality(where[p]))) continue
    if (!sparseExcludes(index, where)) return
    excluded = index
  }
  if (excluded) {
    const fields = excluded.on.map(([p]) => p).join(', ')
    throw new Error(
      `${collection} is listed with one of ${fields} absent, which its sparse index holds no entry for and no other index serves: declare one (docs/storage.md#sparse-indexes)`,
    )
  }
}
