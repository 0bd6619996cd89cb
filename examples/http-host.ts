/**
 * Putting the engine behind HTTP: a host maps each endpoint to an operation of the table, lets
 * `auth.authenticate` decide who may call it, and passes the parsed body straight in. Errors are the
 * `EngineError` JSON with its HTTP code. (A sketch on node:http; any framework does the same.)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type Engine, EngineError } from '../src'

type Route = {
  family: 'server' | 'client'
  operation: string
  run: (engine: Engine, body: unknown, params: Record<string, string>) => Promise<unknown>
}

const routes: Record<string, Route> = {
  'POST /v1/validations': {
    family: 'server',
    operation: 'validations.validateStackable',
    run: (engine, body) => engine.raw.validations.validateStackable(body),
  },
  'POST /client/v1/validations': {
    family: 'client',
    operation: 'client.validations.validateStackable',
    run: (engine, body) => engine.raw.validations.validateStackable(body),
  },
  'POST /v1/redemptions': {
    family: 'server',
    operation: 'redemptions.redeemStackable',
    run: (engine, body) => engine.raw.redemptions.redeemStackable(body),
  },
  'GET /v1/vouchers/:code': {
    family: 'server',
    operation: 'vouchers.get',
    run: (engine, _body, params) => engine.vouchers.get(params.code ?? ''),
  },
}

function match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
  const got = path.split('/')
  for (const [key, route] of Object.entries(routes)) {
    const [m, pattern] = key.split(' ') as [string, string]
    const want = pattern.split('/')
    if (m !== method || want.length !== got.length) continue
    const params: Record<string, string> = {}
    const fits = want.every((w, i) => {
      if (!w.startsWith(':')) return w === got[i]
      params[w.slice(1)] = decodeURIComponent(got[i] ?? '')
      return true
    })
    if (fits) return { route, params }
  }
  return undefined
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (text === '') return {}
  // The two token endpoints take form fields; everything else is JSON.
  return (req.headers['content-type'] ?? '').includes('x-www-form-urlencoded')
    ? Object.fromEntries(new URLSearchParams(text))
    : JSON.parse(text)
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(body === undefined ? '' : JSON.stringify(body))
}

export function httpHost(engine: Engine): Server {
  return createServer(async (req, res) => {
    try {
      const path = new URL(req.url ?? '/', 'http://host').pathname
      const headers = req.headers as Record<string, string>
      // The token endpoint checks the application's credentials itself (no bearer token yet).
      if (req.method === 'POST' && path === '/v1/oauth/token') {
        return send(res, 200, await engine.raw.auth.issueToken(headers, await readBody(req)))
      }
      const found = match(req.method ?? 'GET', path)
      if (!found) return send(res, 404, { code: 404, key: 'not_found', message: 'No such endpoint' })
      const body = await readBody(req)
      await engine.auth.authenticate({ family: found.route.family, headers, operation: found.route.operation })
      send(res, 200, await found.route.run(engine, body, found.params))
    } catch (error) {
      if (error instanceof EngineError) return send(res, error.code, error)
      send(res, 500, { code: 500, key: 'internal_error', message: 'Internal error' })
    }
  })
}
