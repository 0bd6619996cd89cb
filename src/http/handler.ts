import type { Engine } from 'promo-engine'
import type { CallOptions } from '../call-options'
import { EngineError, type EngineErrorJSON, isEngineError } from '../errors'
import { AUTHENTICATION_HEADERS } from '../operations/admin/auth'
import { operationAccess } from '../rules/scopes'
import { httpError } from './http-error'
import { parseQuery } from './query'
import { readBody } from './read-body'
import { type Matched, match, routeTable } from './route-match'
import { type ArgumentSource, ROUTES, type Route } from './routes'

export interface FetchHandlerOptions {
  /** The routes to serve; `ROUTES` by default (a host may filter or extend them). */
  routes?: readonly Route[]
  /** A prefix the host mounts the handler under (`/api`), taken off before matching. */
  basePath?: string
  /** Largest request body accepted, in bytes. Default: the engine's `limits.requestBytes` (1 MiB). */
  maxBodyBytes?: number
  /** Makes the id every response carries (body of errors, `X-Request-Id` header of all), from the request. */
  requestId?: (request: Request) => string
  /** Told about failures that are not `EngineError`s (answered 500 `internal_error`); `console.error` by default. */
  onError?: (error: unknown, request: Request) => void
  /**
   * Told about every answer once it is made (before its body is sent), for logs and metrics: the route
   * template (never the path, which holds ids and codes), the status and the error key.
   */
  onResponse?: (answered: Answered) => void
  /** Seconds a client should wait before retrying when the store cannot be reached (503). Default 1. */
  retryAfterSeconds?: number
  /**
   * Runs a request's operation (after its credentials are checked and its body has arrived) when the
   * host has a place for it, or returns `undefined` to refuse it: answered 503 `server_overloaded`
   * with `Retry-After`, nothing done. The reference server's concurrency limit (docs/http.md#admission).
   * Default: every operation runs at once.
   */
  admit?: <T>(work: () => Promise<T>) => Promise<T> | undefined
}

/** What `onResponse` is told about one answer. */
export interface Answered {
  request: Request
  requestId: string
  method: string
  /** The matched route's template (`/v1/vouchers/:code`), or null when no route matched. */
  route: string | null
  status: number
  /** The error's stable key, when the answer is an error. */
  errorKey: string | null
}

/** A fetch-style request handler (Web `Request` in, `Response` out). */
export type Handler = (request: Request) => Promise<Response>

const JSON_TYPE = 'application/json; charset=utf-8'
const CLIENT_PREFIX = '/client/'
const CORS_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'X-Client-Application-Id',
  'X-Client-Token',
  'X-Voucherify-Channel',
].join(', ')

/**
 * The engine behind HTTP, as a WHATWG fetch handler (`Request` in, `Response` out): it runs on Node,
 * Bun, Deno, edge runtimes and inside any framework that speaks fetch (see docs/http.md). One handler
 * serves one engine, that is one project. Every answer carries a request id; every error is the
 * `EngineError` JSON with its HTTP status.
 */
export function createFetchHandler(engine: Engine, options: FetchHandlerOptions = {}): Handler {
  const compiled = routeTable(options.routes ?? ROUTES)
  const basePath = (options.basePath ?? '').replace(/\/+$/, '')
  const maxBodyBytes = options.maxBodyBytes ?? engine.settings.limits.requestBytes
  const requestId = options.requestId ?? (() => `req_${crypto.randomUUID().replaceAll('-', '')}`)
  const onError = options.onError ?? ((error: unknown) => console.error(error))
  const onResponse = options.onResponse ?? (() => {})
  const retryAfter = String(options.retryAfterSeconds ?? 1)
  const admit = options.admit ?? ((work) => work())

  return async (request) => {
    const id = requestId(request)
    let route: string | null = null
    const answered = (response: Response, errorKey: string | null = null) => {
      onResponse({ request, requestId: id, method: request.method, route, status: response.status, errorKey })
      return response
    }
    const url = new URL(request.url)
    const path = withoutTrailingSlash(
      basePath !== '' && url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname,
    )
    const cors = path.startsWith(CLIENT_PREFIX) ? corsHeaders(request) : {}
    try {
      if (request.method === 'OPTIONS' && path.startsWith(CLIENT_PREFIX)) {
        return answered(
          new Response(null, { status: 204, headers: { ...cors, 'X-Request-Id': id, ...preflightHeaders() } }),
        )
      }
      const found = match(compiled, request.method, path)
      route = found.route.path
      const result = await run(engine, found, request, url, maxBodyBytes, admit)
      const headers = { ...cors, 'X-Request-Id': id }
      if (found.route.download) return answered(download(result, headers))
      if (result === undefined) return answered(new Response(null, { status: 204, headers }))
      return answered(
        new Response(JSON.stringify(result), { status: 200, headers: { ...headers, 'Content-Type': JSON_TYPE } }),
      )
    } catch (error) {
      const { response, key } = errorResponse(error, id, cors, request, onError, retryAfter)
      return answered(response, key)
    }
  }
}

/**
 * `/v1/vouchers/` is `/v1/vouchers`: clients build paths by joining (the SDK's `vouchers.create`
 * without a code sends the trailing slash), and no route has an empty last segment.
 */
function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
}

/** A stored file as a download: its chunks streamed as the store yields them, typed, named for saving. */
function download(file: unknown, headers: Record<string, string>): Response {
  const { name, content_type, size, content } = file as {
    name: string
    content_type: string
    size: number
    content: AsyncIterable<string>
  }
  const encoder = new TextEncoder()
  const pieces = content[Symbol.asyncIterator]()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await pieces.next()
      if (next.done) controller.close()
      else controller.enqueue(encoder.encode(next.value))
    },
    async cancel() {
      await pieces.return?.()
    },
  })
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return new Response(body, {
    status: 200,
    headers: {
      ...headers,
      'Content-Type': `${content_type}; charset=utf-8`,
      'Content-Length': String(size),
      'Content-Disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
      // A signed url is a credential of its own: no shared cache keeps what it answered.
      'Cache-Control': 'private, no-store',
    },
  })
}

async function run(
  engine: Engine,
  found: Matched,
  request: Request,
  url: URL,
  maxBodyBytes: number,
  admit: NonNullable<FetchHandlerOptions['admit']>,
): Promise<unknown> {
  const { route, params } = found
  const access = operationAccess(route.operation)
  if (!access)
    throw httpError({ code: 404, key: 'endpoint_not_found' }, `The route names no operation: ${route.operation}`)
  // Only the token endpoints take the headers whole; elsewhere they go to authentication, which reads
  // a few. Copying them all would, on Node adapters, build a full `Headers` for every request.
  const headers = route.args.includes('headers') ? Object.fromEntries(request.headers) : credentialHeaders(request)
  const linked = route.signedLink === true && (url.searchParams.has('expires') || url.searchParams.has('signature'))
  const principal =
    access.family === 'token' || linked
      ? undefined
      : await engine.auth.authenticate({ family: access.family, headers, operation: route.operation })
  const query = url.search === '' ? {} : parseQuery(url.searchParams)
  const needsBody = route.args.includes('body')
  let body = needsBody ? await readBody(request, maxBodyBytes, access.family === 'token') : undefined
  if (route.bodyFields) body = withFields(body, route.bodyFields, params, query)
  const side = access.family
  const args = route.args.map((source) => argument(source, { params, query, body, headers, engine, side }))
  const key = idempotencyKey(request, route)
  if (key !== undefined) args.push({ idempotencyKey: `${principal?.app_id ?? ''}/${key}` } satisfies CallOptions)
  const admitted = admit(() => operationFunction(engine, route, body)(...args))
  if (admitted === undefined)
    throw new EngineError({
      code: 500,
      key: 'server_overloaded',
      message: 'Service unavailable',
      details: 'Too many requests are waiting in this process: nothing was done; retry after Retry-After',
    })
  return admitted
}

const CREDENTIAL_NAMES = AUTHENTICATION_HEADERS.map((name) => name.toLowerCase())

/** The request's headers that authentication reads, named as `Headers` iterates them (lower case). */
function credentialHeaders(request: Request): Record<string, string> {
  const found: Record<string, string> = {}
  for (const name of CREDENTIAL_NAMES) {
    const value = request.headers.get(name)
    if (value !== null) found[name] = value
  }
  return found
}

function argument(
  source: ArgumentSource,
  from: {
    params: Record<string, string>
    query: Record<string, unknown>
    body: unknown
    headers: object
    engine: Engine
    side: string
  },
): unknown {
  if (source === 'body') return from.body
  if (source === 'caller') return { side: from.side }
  if (source === 'query') return from.query
  if (source === 'headers') return from.headers
  if (source === 'project') return from.engine.settings.projectId
  if (source === 'null') return null
  if (source.startsWith('path:')) return from.params[source.slice(5)]
  const value = from.query[source.slice(6)]
  if (value !== undefined && typeof value !== 'string') {
    throw EngineError.invalid(`query.${source.slice(6)}`, 'must be a single value', 'invalid_query_params')
  }
  return value
}

/** Sets body fields the SDK sends in the path or the query; a field the body has already wins. */
function withFields(
  body: unknown,
  fields: NonNullable<Route['bodyFields']>,
  params: Record<string, string>,
  query: Record<string, unknown>,
): unknown {
  const base = body ?? {}
  if (typeof base !== 'object' || base === null || Array.isArray(base)) return body
  const out: Record<string, unknown> = { ...base }
  for (const [field, source] of Object.entries(fields)) {
    const value = source.startsWith('path:') ? params[source.slice(5)] : query[source.slice(6)]
    if (value !== undefined && out[field] === undefined) out[field] = value
  }
  return out
}

function idempotencyKey(request: Request, route: Route): string | undefined {
  const key = request.headers.get('Idempotency-Key')
  if (key === null || request.method === 'GET') return undefined
  if (!route.idempotent) {
    throw httpError(
      { code: 400, key: 'idempotency_key_not_supported' },
      `${route.method} ${route.path} is not an operation that takes an Idempotency-Key (see docs/http.md)`,
      'Idempotency-Key',
    )
  }
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw httpError(
      { code: 400, key: 'invalid_idempotency_key' },
      'Idempotency-Key must be 1-255 printable ASCII characters without spaces',
      'Idempotency-Key',
    )
  }
  return key
}

// biome-ignore lint/suspicious/noExplicitAny: the engine's functions are called with the route's arguments
type AnyFunction = (...args: any[]) => Promise<unknown>

function operationFunction(engine: Engine, route: Route, body: unknown): AnyFunction {
  let name = route.operation.replace(/^client\./, '')
  if (route.callBy && typeof body === 'object' && body !== null) {
    const value = (body as Record<string, unknown>)[route.callBy.field]
    if (typeof value === 'string' && Object.hasOwn(route.callBy.calls, value))
      name = route.callBy.calls[value] as string
  }
  let target: unknown = engine
  for (const part of name.split('.')) {
    target =
      typeof target === 'object' && target !== null && Object.hasOwn(target, part)
        ? (target as Record<string, unknown>)[part]
        : undefined
  }
  if (typeof target !== 'function')
    throw httpError({ code: 404, key: 'endpoint_not_found' }, `The engine has no operation ${name}`)
  return target as AnyFunction
}

/** The body as JSON (or form fields for the token endpoints): size-capped, typed, or a clear 4xx. */
function corsHeaders(request: Request): Record<string, string> {
  const origin = request.headers.get('Origin')
  if (origin === null) return {}
  // The origin is checked against the client application's allowed origins when the request runs.
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': 'X-Request-Id', Vary: 'Origin' }
}

function preflightHeaders(): Record<string, string> {
  return {
    'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE',
    'Access-Control-Allow-Headers': CORS_HEADERS,
    'Access-Control-Max-Age': '600',
  }
}

function errorResponse(
  error: unknown,
  id: string,
  cors: Record<string, string>,
  request: Request,
  onError: (error: unknown, request: Request) => void,
  retryAfter: string,
): { response: Response; key: string } {
  let json: EngineErrorJSON
  if (isEngineError(error)) {
    json = { ...error.toJSON(), request_id: id }
  } else {
    onError(error, request)
    json = { code: 500, key: 'internal_error', message: 'Internal error', details: 'Internal error', request_id: id }
  }
  // Nothing was read or written: the same request will do once the store answers again (or, for
  // `server_overloaded`, once this process has a place for it). A commit whose
  // outcome is unknown (`commit_outcome_unknown`) keeps its 500: it is retried only with an
  // idempotency key (docs/http.md#deploying).
  const unavailable = json.key === 'store_unavailable' || json.key === 'server_overloaded'
  const status = unavailable ? 503 : json.code
  const body = unavailable ? { ...json, code: 503 } : json
  const headers: Record<string, string> = { ...cors, 'X-Request-Id': id, 'Content-Type': JSON_TYPE }
  if (unavailable) headers['Retry-After'] = retryAfter
  return { response: new Response(JSON.stringify(body), { status, headers }), key: json.key }
}
