import { parseInstant } from '../rules/zoned-calendar'
import type { FieldFilter, IndexType } from '../storage/ports'
import { quote } from './columns'

/** A list query's `where`, as SQL on the declared columns (docs/postgres.md#schema). */

/**
 * A condition on a multi-valued field's column (a JSON array of strings, `[null]` for none;
 * docs/storage.md#multi-valued-indexes): one of the given elements (`?|`), or none (`@> '[null]'`),
 * both answered by its GIN index.
 */
function elementsCondition(column: string, cond: FieldFilter, param: (v: unknown) => string): string {
  const col = quote(column)
  if (cond !== null && typeof cond === 'object' && !('in' in cond)) {
    throw new Error(`${column}: a multi-valued field is filtered by equality or in, not by a range`)
  }
  const values = cond !== null && typeof cond === 'object' ? cond.in : [cond]
  const present = values.flatMap((v) => (typeof v === 'string' ? [v] : typeof v === 'number' ? [String(v)] : []))
  const parts: string[] = []
  if (present.length > 0) parts.push(`${col} ?| ${param(present)}::text[]`)
  if (values.includes(null)) parts.push(`${col} @> '[null]'::jsonb`)
  return parts.length > 0 ? `(${parts.join(' OR ')})` : 'FALSE'
}

/** A `where` condition on a typed column, with the filter's values read as the column's type. */
export function condition(
  field: { column: string; type: IndexType; multi?: true },
  cond: FieldFilter,
  param: (v: unknown) => string,
  s: string,
): string {
  if (field.multi) return elementsCondition(field.column, cond, param)
  const col = quote(field.column)
  const typed = (p: string) => {
    switch (field.type) {
      case 'text':
        return `${p}::text`
      case 'number':
        return `${p}::numeric`
      case 'boolean':
        return `${p}::boolean`
      case 'timestamp':
        return `${s}.pe_timestamp(${p}::text)`
    }
  }
  if (cond === null) return `${col} IS NULL`
  if (typeof cond !== 'object') {
    const v = asColumnValue(cond, field.type)
    return v === null ? `${col} IS NULL` : `${col} = ${typed(param(v))}`
  }
  if ('in' in cond) {
    const values = cond.in.map((v) => (v === null ? null : asColumnValue(v, field.type)))
    const present = values.filter((v): v is string | number | boolean => v !== null)
    const parts: string[] = []
    if (present.length > 0) {
      const arrayType = { text: 'text', number: 'numeric', boolean: 'boolean', timestamp: 'text' }[field.type]
      parts.push(
        field.type === 'timestamp'
          ? `${col} IN (SELECT ${s}.pe_timestamp(x) FROM unnest(${param(present.map(String))}::text[]) x)`
          : `${col} = ANY(${param(present.map(String))}::${arrayType}[])`,
      )
    }
    if (values.some((v) => v === null)) parts.push(`${col} IS NULL`)
    return parts.length > 0 ? `(${parts.join(' OR ')})` : 'FALSE'
  }
  const r = cond as { before?: string; after?: string; gte?: number; lte?: number }
  const parts: string[] = []
  const bound = (v: string | number) => {
    const x = asColumnValue(v, field.type)
    return x === null ? 'NULL' : typed(param(x))
  }
  if (r.after !== undefined) parts.push(`${col} > ${bound(r.after)}`)
  if (r.before !== undefined) parts.push(`${col} < ${bound(r.before)}`)
  if (r.gte !== undefined) parts.push(`${col} >= ${bound(r.gte)}`)
  if (r.lte !== undefined) parts.push(`${col} <= ${bound(r.lte)}`)
  return parts.length > 0 ? `(${parts.join(' AND ')})` : 'TRUE'
}

/** A filter value as the column holds it (the memory store's sort key): null when of another type. */
function asColumnValue(value: string | number | boolean, type: IndexType): string | number | boolean | null {
  switch (type) {
    case 'timestamp': {
      if (typeof value !== 'string') return null
      const t = parseInstant(value)
      return Number.isNaN(t) ? null : new Date(t).toISOString()
    }
    case 'number':
      return typeof value === 'number' ? value : null
    case 'boolean':
      return typeof value === 'boolean' ? value : null
    case 'text':
      return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null
  }
}
