import { EngineError } from '../errors'

const MAX_PARAMS = 200
const MAX_DEPTH = 5
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

type Tree = { [key: string]: Tree | string | string[] }

/**
 * A query string in the bracket notation the official SDK sends (`filters[junction]=AND`,
 * `filters[code][conditions][$in][0]=A`, `expand[]=order`) as a plain object of strings, arrays and
 * objects, for the operation to validate like a body. Objects whose keys are 0, 1, … become arrays.
 */
export function parseQuery(params: URLSearchParams): Record<string, unknown> {
  const root: Tree = {}
  let count = 0
  for (const [raw, value] of params) {
    if (++count > MAX_PARAMS) throw badQuery('query', `must have at most ${MAX_PARAMS} parameters`)
    const path = keyPath(raw)
    let node = root
    for (let i = 0; i < path.length; i++) {
      const key = path[i] as string
      const child = node[key]
      const push = path[i + 1] === '' && i + 2 === path.length
      if (key === '') throw badQuery(`query.${raw}`, 'may use [] only at the end')
      if (push || i === path.length - 1) {
        // `a[]=x` and a repeated `a=x&a=y` collect in an array; a first `a=x` is a string.
        if (child !== undefined && typeof child !== 'string' && !Array.isArray(child))
          throw badQuery(`query.${raw}`, 'mixes a value with an object')
        node[key] = child === undefined ? (push ? [value] : value) : ([] as string[]).concat(child, value)
        break
      }
      if (child === undefined) node[key] = {}
      else if (typeof child === 'string' || Array.isArray(child))
        throw badQuery(`query.${raw}`, 'mixes a value with an object')
      node = node[key] as Tree
    }
  }
  return arrays(root) as Record<string, unknown>
}

function keyPath(raw: string): string[] {
  const match = /^([^[\]]*)((?:\[[^[\]]*\])*)$/.exec(raw)
  if (!match || match[1] === '') throw badQuery('query', `has a malformed parameter name ${JSON.stringify(raw)}`)
  const rest = [...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? '')
  const path = [match[1] as string, ...rest]
  if (path.length > MAX_DEPTH + 1) throw badQuery(`query.${raw}`, `must nest at most ${MAX_DEPTH} levels`)
  const bad = path.find((k) => FORBIDDEN_KEYS.has(k))
  if (bad !== undefined) throw badQuery(`query.${raw}`, `must not use the name ${bad}`)
  return path
}

function arrays(node: Tree | string | string[]): unknown {
  if (typeof node === 'string' || Array.isArray(node)) return node
  const keys = Object.keys(node)
  const values = keys.map((k) => arrays(node[k] as Tree))
  const indexed = keys.length > 0 && keys.every((k, i) => k === String(i))
  return indexed ? values : Object.fromEntries(keys.map((k, i) => [k, values[i]]))
}

/** A malformed query string: the hosted service's key for bad query parameters (docs/errors.md#bad-input-400). */
function badQuery(path: string, problem: string): EngineError {
  return EngineError.invalid(path, problem, 'invalid_query_params')
}
