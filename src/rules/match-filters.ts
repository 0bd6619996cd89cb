/**
 * The `filters` object of list and export requests: a map of field name to `{conditions: {operator:
 * values}}`, plus a `junction`. Every field's conditions must hold (AND); so must every field when the
 * junction is `AND`, and at least one when it is `OR`.
 */

export const FILTER_OPERATORS = [
  '$in',
  '$not_in',
  '$is',
  '$is_not',
  '$after',
  '$before',
  '$more_than',
  '$less_than',
  '$more_than_equal',
  '$less_than_equal',
  '$starts_with',
  '$ends_with',
  '$contains',
  '$has_value',
  '$is_unknown',
] as const

export type FilterOperator = (typeof FILTER_OPERATORS)[number]

/** Values are arrays (the service interface's shape); a scalar given by a caller is normalised to a one-item array. */
export type FilterConditions = Partial<Record<FilterOperator, (string | number | boolean | null)[]>>

export interface Filters {
  junction: 'AND' | 'OR'
  fields: Record<string, FilterConditions>
}

export function matchesFilters(row: Record<string, unknown>, filters: Filters): boolean {
  const fields = Object.entries(filters.fields)
  if (fields.length === 0) return true
  const test = ([field, conditions]: [string, FilterConditions]) => matchesConditions(row[field], conditions)
  return filters.junction === 'AND' ? fields.every(test) : fields.some(test)
}

export function matchesConditions(value: unknown, conditions: FilterConditions): boolean {
  return Object.entries(conditions).every(([op, values]) => holds(op as FilterOperator, value, values ?? []))
}

function holds(op: FilterOperator, value: unknown, values: readonly unknown[]): boolean {
  const first = values[0]
  switch (op) {
    case '$in':
      return values.some((v) => same(value, v))
    case '$not_in':
      return !values.some((v) => same(value, v))
    case '$is':
      return same(value, first)
    case '$is_not':
      return !same(value, first)
    case '$after':
      return compareDates(value, first) > 0
    case '$before':
      return compareDates(value, first) < 0
    case '$more_than':
      return compareNumbers(value, first, (a, b) => a > b)
    case '$less_than':
      return compareNumbers(value, first, (a, b) => a < b)
    case '$more_than_equal':
      return compareNumbers(value, first, (a, b) => a >= b)
    case '$less_than_equal':
      return compareNumbers(value, first, (a, b) => a <= b)
    case '$starts_with':
      return typeof value === 'string' && typeof first === 'string' && value.startsWith(first)
    case '$ends_with':
      return typeof value === 'string' && typeof first === 'string' && value.endsWith(first)
    case '$contains':
      return typeof value === 'string' && typeof first === 'string' && value.includes(first)
    case '$has_value':
      return !isUnknown(value)
    case '$is_unknown':
      return isUnknown(value)
    default: {
      const _never: never = op
      return _never
    }
  }
}

function isUnknown(value: unknown): boolean {
  return value === null || value === undefined || value === ''
}

/** Query values often arrive as strings (`"100"` for an amount): compare scalars by their text. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (isUnknown(a) || isUnknown(b)) return false
  return (typeof a === 'string' || typeof a === 'number' || typeof a === 'boolean') && String(a) === String(b)
}

/** Date order of two ISO strings; NaN (an absent or unparsable date) never satisfies a bound. */
function compareDates(a: unknown, b: unknown): number {
  if (typeof a !== 'string' || typeof b !== 'string') return Number.NaN
  return Date.parse(a) - Date.parse(b)
}

function compareNumbers(a: unknown, b: unknown, test: (a: number, b: number) => boolean): boolean {
  if (isUnknown(a) || isUnknown(b)) return false
  const x = Number(a)
  const y = Number(b)
  return Number.isFinite(x) && Number.isFinite(y) && test(x, y)
}
