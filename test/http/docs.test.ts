import { readFileSync } from 'node:fs'
import { VoucherifyClientSide, VoucherifyServerSide } from '@voucherify/sdk'
import { describe, expect, it } from 'vitest'
import { createFetchHandler, ROUTES, type Route } from '../../src/http'
import { testEngine } from '../support/engine'

describe('docs/http.md', () => {
  // Table cells are padded to align; one space stands for any run of them.
  const doc = readFileSync(new URL('../../docs/http.md', import.meta.url), 'utf8').replace(/ +/g, ' ')

  it('lists every route of the table with its operation', () => {
    for (const route of ROUTES) {
      expect(doc, `${route.method} ${route.path}`).toContain(
        `| \`${route.method} ${route.path}\` | \`${route.operation}\` |`,
      )
    }
  })

  const rows = [...doc.matchAll(/^\| `([\w.]+)` \| `(\w+) ([^`]+)`(?: or `[^`]+`)? \| (.+?) \|$/gm)] as unknown as [
    string,
    string,
    string,
    string,
    string,
  ][]

  it('lists every method of the official SDK that calls the API, and says how many get what', () => {
    const server = VoucherifyServerSide({ applicationId: 'a', secretKey: 'b', apiUrl: 'http://engine.test' })
    const client = VoucherifyClientSide({
      clientApplicationId: 'a',
      clientSecretKey: 'b',
      origin: 'http://shop.example',
      apiUrl: 'http://engine.test',
    })
    // What makes no request: the rate-limit headers of the last answer, and the client's local identity.
    const local = (name: string) => name.startsWith('apiLimitsHandler.') || name === 'client.setIdentity'
    const sdk = [...methodsOf(server, ''), ...methodsOf(client, 'client.')].filter((m) => !local(m))
    expect(rows.map(([, name]) => name).sort()).toEqual(sdk.sort())
    const routed = rows.filter(([, , , , status]) => status.startsWith('routed')).length
    const count = (status: string) => rows.filter(([, , , , s]) => s.startsWith(status)).length
    const note = doc.slice(doc.indexOf("## The official SDK's methods")).replace(/\s+/g, ' ')
    expect(note).toContain(`every method that calls the API (${rows.length})`)
    expect(note).toContain(`The ${routed} "routed" methods`)
    expect(note).toContain(`The other ${rows.length - routed}`)
    expect(note).toContain(`404 \`endpoint_not_found\` for a path the server does not have (${count('404')})`)
    expect(note).toContain(`405 \`method_not_allowed\` for a path it has with another method (${count('405')}`)
  })

  it('tells the truth about every SDK method: routed ones reach their operation, the others get their 404 or 405', async () => {
    const { engine } = testEngine({ authentication: 'keys' })
    const handler = createFetchHandler(engine)
    const server = await engine.auth.createApplication({ family: 'server' })
    const client = await engine.auth.createApplication({ family: 'client', allowed_origins: ['*'] })
    for (const [, name, method, path, status] of rows) {
      const routed = /^routed → `([\w.]+)`$/.exec(status)?.[1]
      if (routed !== undefined) {
        const route = routeOf(method, path)
        expect([route?.operation, ...Object.values(route?.callBy?.calls ?? {})], name).toContain(routed)
      }
      const keys = path.startsWith('/client/')
        ? { 'X-Client-Application-Id': client.app_id, 'X-Client-Token': client.secret, Origin: 'https://a.example' }
        : { 'X-App-Id': server.app_id, 'X-App-Token': server.secret }
      const res = await handler(
        new Request(`http://engine.test${path.replaceAll('{id}', 'x1')}`, {
          method,
          headers: { ...keys, 'Content-Type': 'application/json' },
          ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
        }),
      )
      const { key } = (await res.json().catch(() => ({}))) as { key?: string }
      if (status.startsWith('routed')) {
        expect(['endpoint_not_found', 'method_not_allowed'], name).not.toContain(key)
      } else {
        expect(`${res.status} ${key}`, name).toBe(status.replaceAll('`', ''))
      }
    }
    // Without a code the SDK's `vouchers.create` sends an empty id, `POST /v1/vouchers/`: the same
    // operation, which generates the code.
    const bare = await handler(
      new Request('http://engine.test/v1/vouchers/', {
        method: 'POST',
        headers: { 'X-App-Id': server.app_id, 'X-App-Token': server.secret, 'Content-Type': 'application/json' },
        body: JSON.stringify({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }),
      }),
    )
    expect(bare.status).toBe(200)
    expect(((await bare.json()) as { code: string }).code).toMatch(/^[0-9A-Za-z]{8}$/)
  })
})

/** Every function of an SDK object and of the namespaces it holds, `namespace.method`. */
function methodsOf(root: object, prefix: string): string[] {
  const seen = new Set<object>()
  const out: string[] = []
  // Breadth first, so a namespace reachable from two places (`promotions`, `validations.promotions`) is named by the shorter path.
  const queue: [object, string][] = [[root, prefix]]
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [object, path] = next
    if (seen.has(object)) continue
    seen.add(object)
    const names = new Set<string>()
    for (let p: object | null = object; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      for (const n of Object.getOwnPropertyNames(p)) names.add(n)
    }
    for (const name of names) {
      // The HTTP client and the limits' response headers are machinery, not API methods.
      if (name === 'constructor' || name === 'client' || name === 'requestController') continue
      const value = (object as Record<string, unknown>)[name]
      if (typeof value === 'function') out.push(`${path}${name}`)
      else if (value !== null && typeof value === 'object') queue.push([value, `${path}${name}.`])
    }
  }
  return out
}

/** The route a request reaches: literal segments win over parameters, as the handler matches. */
function routeOf(method: string, path: string): Route | undefined {
  const got = path.split('/')
  let best: { route: Route; literals: number } | undefined
  for (const route of ROUTES) {
    const want = route.path.split('/')
    if (route.method !== method || want.length !== got.length) continue
    if (!want.every((w, i) => w.startsWith(':') || w === got[i])) continue
    const literals = want.filter((w) => !w.startsWith(':')).length
    if (!best || literals > best.literals) best = { route, literals }
  }
  return best?.route
}
