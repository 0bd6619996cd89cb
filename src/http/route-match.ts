import { httpError } from './http-error'
import type { HttpMethod, Route } from './routes'

/*
 * Which route a request's method and path take (docs/http.md#mounting-the-handler-in-your-framework):
 * the routes by their number of path segments, literal segments winning over parameters.
 */

interface Compiled {
  route: Route
  /** Per path segment: the literal it must be, or the parameter's name (without the colon). */
  segments: { literal: string | null; param: string }[]
  literals: number
}

/** The routes by their number of path segments: a request is matched only against those of its length. */
export type RouteTable = ReadonlyMap<number, readonly Compiled[]>

export interface Matched {
  route: Route
  params: Record<string, string>
}

export function routeTable(routes: readonly Route[]): RouteTable {
  const table = new Map<number, Compiled[]>()
  for (const route of routes) {
    const segments = route.path
      .split('/')
      .map((s) => (s.startsWith(':') ? { literal: null, param: s.slice(1) } : { literal: s, param: '' }))
    const compiled = { route, segments, literals: segments.filter((s) => s.literal !== null).length }
    const same = table.get(segments.length)
    if (same) same.push(compiled)
    else table.set(segments.length, [compiled])
  }
  return table
}

/**
 * The route for a method and path: literal segments win over parameters (`/tiers/:id` before
 * `/:campaignId/tiers`). Runs on every request: a route is tried without allocating, each segment
 * decoded once however many routes take it as a parameter, and the parameters built for the winner only.
 */
export function match(table: RouteTable, method: string, path: string): Matched {
  const got = path.split('/')
  const decoded: (string | undefined)[] = []
  const valueAt = (i: number) => {
    let value = decoded[i]
    if (value === undefined) {
      value = decodeSegment(got[i] ?? '')
      decoded[i] = value
    }
    return value
  }
  let best: Compiled | undefined
  let methods: HttpMethod[] | undefined
  for (const c of table.get(got.length) ?? []) {
    if (!fits(c, got, valueAt)) continue
    if (c.route.method === method) {
      if (!best || c.literals > best.literals) best = c
    } else if (!methods?.includes(c.route.method)) {
      methods = [...(methods ?? []), c.route.method]
    }
  }
  if (best) {
    const params: Record<string, string> = {}
    for (const [i, s] of best.segments.entries()) if (s.literal === null) params[s.param] = valueAt(i)
    return { route: best.route, params }
  }
  if (methods) {
    throw httpError(
      { code: 405, key: 'method_not_allowed' },
      `${method} is not allowed on ${path}; use ${methods.join(', ')}`,
    )
  }
  throw httpError(
    { code: 404, key: 'endpoint_not_found' },
    `No endpoint ${method} ${path}: docs/http.md lists the routes this server has and the SDK methods it does not serve`,
  )
}

/** Segment by segment in order, so a badly encoded parameter fails as it would be read. */
function fits(c: Compiled, got: readonly string[], valueAt: (i: number) => string): boolean {
  for (let i = 0; i < c.segments.length; i++) {
    const want = c.segments[i] as Compiled['segments'][number]
    const seg = got[i] ?? ''
    if (want.literal !== null) {
      if (want.literal !== seg) return false
      continue
    }
    if (seg === '') return false
    const value = valueAt(i)
    if (c.route.except?.[want.param]?.includes(value)) return false
  }
  return true
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw httpError({ code: 400, key: 'invalid_path' }, `The path segment ${segment} is not valid percent-encoding`)
  }
}
