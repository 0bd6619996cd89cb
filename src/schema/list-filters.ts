import { EngineError } from '../errors'
import { FILTER_OPERATORS, type FilterConditions, type Filters } from '../rules/match-filters'
import { parse } from './parse'
import * as v from './valibot'

const conditionValue = v.union([v.string(), v.number(), v.boolean(), v.null()])
const fieldFilter = v.object({
  conditions: v.pipe(
    v.record(
      v.picklist(FILTER_OPERATORS, `must be one of ${FILTER_OPERATORS.join(', ')}`),
      v.union([v.array(conditionValue), conditionValue]),
    ),
    v.check((c) => Object.keys(c).length > 0, 'must have at least one operator'),
  ),
})

/**
 * The `filters` query object of the template and holder lists (its structure is "not shown" in the
 * spec; this is the exports' shape): `{junction?: 'AND' | 'OR', <field>: {conditions: {<$op>:
 * [values]}}}`, e.g. `{holder_role: {conditions: {$in: ['REFERRER']}}}`. Only `fields` may be
 * filtered on; a scalar operator value is taken as a one-item array. Default junction `AND`.
 * `fields` is the list of fields, or a check that throws for a field name it refuses (the exports
 * filter any field).
 */
export function parseListFilters(
  raw: unknown,
  fields: readonly string[] | ((field: string, path: string) => void),
  path = 'filters',
): Filters {
  if (raw === undefined) return { junction: 'AND', fields: {} }
  const entries = parse(v.record(v.string(), v.unknown()), raw, path)
  const out: Record<string, FilterConditions> = {}
  let junction: Filters['junction'] = 'AND'
  for (const [key, value] of Object.entries(entries)) {
    const at = `${path}.${key}`
    if (key === 'junction') {
      const j = typeof value === 'string' ? value.toUpperCase() : ''
      if (j !== 'AND' && j !== 'OR') throw EngineError.invalid(at, 'must be AND or OR')
      junction = j
      continue
    }
    if (typeof fields === 'function') fields(key, at)
    else if (!fields.includes(key))
      throw EngineError.invalid(at, `cannot be filtered on; use one of ${fields.join(', ')}`)
    const { conditions } = parse(fieldFilter, value, at)
    const normal: FilterConditions = {}
    for (const [op, values] of Object.entries(conditions) as [keyof FilterConditions, unknown][]) {
      normal[op] = (Array.isArray(values) ? values : [values]) as (string | number | boolean | null)[]
    }
    out[key] = normal
  }
  return { junction, fields: out }
}
