import { describe, expect, it } from 'vitest'
import { engineContext } from '../../src/engine'
import { EngineError } from '../../src/errors'
import { type Answered, createFetchHandler, type FetchHandlerOptions, parseQuery, ROUTES } from '../../src/http'
import { operationAccess } from '../../src/rules/scopes'
import { amountOffVoucher, snapshot, testEngine } from '../support/engine'

async function setup(options: FetchHandlerOptions = {}) {
  const t = testEngine({ authentication: 'keys' })
  const handler = createFetchHandler(t.engine, options)
  const server = await t.engine.auth.createApplication({ family: 'server' })
  const client = await t.engine.auth.createApplication({ family: 'client', allowed_origins: ['https://shop.example'] })
  const management = await t.engine.auth.createApplication({ family: 'management' })
  const keys = {
    server: { 'X-App-Id': server.app_id, 'X-App-Token': server.secret },
    client: {
      'X-Client-Application-Id': client.app_id,
      'X-Client-Token': client.secret,
      Origin: 'https://shop.example',
    },
    management: { 'X-Management-Id': management.app_id, 'X-Management-Token': management.secret },
  }
  await amountOffVoucher(t.engine, 'TEN', 1000, 5)
  const call = (method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) =>
    handler(
      new Request(`http://engine.test${path}`, {
        method,
        headers: {
          ...keys.server,
          ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...init.headers,
        },
        ...(init.body === undefined
          ? {}
          : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
      }),
    )
  return { ...t, handler, keys, call }
}

const redeem = {
  redeemables: [{ object: 'voucher', id: 'TEN' }],
  order: { amount: 5000 },
  customer: { source_id: 'ann' },
}

describe('createFetchHandler', () => {
  it('answers with the result and a request id; errors carry it in the body too', async () => {
    const { call } = await setup()
    const ok = await call('GET', '/v1/vouchers/TEN')
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(ok.headers.get('x-request-id')).toMatch(/^req_/)
    expect(await ok.json()).toMatchObject({ code: 'TEN' })
    const missing = await call('GET', '/v1/vouchers/NOPE')
    const body = await missing.json()
    expect(missing.status).toBe(404)
    expect(body).toMatchObject({ code: 404, key: 'not_found', request_id: missing.headers.get('x-request-id') })
  })

  it('refuses bodies that are not JSON, too large, or of another content type, writing nothing', async () => {
    const { call, store } = await setup()
    const before = await snapshot(store)
    expect(await (await call('POST', '/v1/orders', { body: '{"amount":' })).json()).toMatchObject({
      code: 400,
      key: 'invalid_json',
    })
    const form = await call('POST', '/v1/orders', { body: 'amount=1', headers: { 'Content-Type': 'text/plain' } })
    expect(form.status).toBe(415)
    expect(await form.json()).toMatchObject({ key: 'unsupported_media_type' })
    const big = await call('POST', '/v1/orders', { body: { amount: 1, metadata: { pad: 'x'.repeat(1_100_000) } } })
    expect(big.status).toBe(413)
    expect(await big.json()).toMatchObject({ key: 'payload_too_large' })
    expect(await snapshot(store)).toBe(before)
  })

  it('caps a body read whole (declared length) and one read as a stream (no length) alike', async () => {
    const { handler, keys, store } = await setup()
    const before = await snapshot(store)
    const post = (body: string | Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string>) =>
      handler(
        new Request('http://engine.test/v1/orders', {
          method: 'POST',
          headers: { ...keys.server, 'Content-Type': 'application/json', ...headers },
          body,
          duplex: 'half',
        } as RequestInit),
      )
    const big = JSON.stringify({ amount: 1, metadata: { pad: 'x'.repeat(1_100_000) } })
    // A length that understates the body (only an in-process caller can send one) is no way around the cap.
    const understated = await post(big, { 'Content-Length': '20' })
    expect([understated.status, ((await understated.json()) as { key: string }).key]).toEqual([
      413,
      'payload_too_large',
    ])
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    let sent = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent++
        controller.enqueue(chunk)
      },
    })
    const streamed = await post(endless, {})
    expect([streamed.status, ((await streamed.json()) as { key: string }).key]).toEqual([413, 'payload_too_large'])
    // Cut at the limit: no more than the cap (plus the chunks in flight) was read.
    expect(sent).toBeLessThan(24)
    const latin1 = await post(new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x7d]), { 'Content-Length': '5' })
    expect([latin1.status, ((await latin1.json()) as { key: string }).key]).toEqual([400, 'invalid_json'])
    const ok = await post(JSON.stringify({ amount: 1 }), { 'Content-Length': '13' })
    expect(ok.status).toBe(200)
    expect(await snapshot(store)).not.toBe(before)
  })

  it('parses the query in the SDK bracket notation and validates it like a body', async () => {
    expect(
      parseQuery(
        new URLSearchParams(
          'limit=5&filters[code][conditions][$in][0]=A&filters[code][conditions][$in][1]=B&expand[]=order',
        ),
      ),
    ).toEqual({
      limit: '5',
      filters: { code: { conditions: { $in: ['A', 'B'] } } },
      expand: ['order'],
    })
    const { call } = await setup()
    const bad = await call('GET', '/v1/loyalties?limit=500')
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ key: 'invalid_query_params', details: expect.stringContaining('limit') })
    expect((await call('GET', '/v1/loyalties?a[__proto__][x]=1')).status).toBe(400)
  })

  it('unknown paths are 404 endpoint_not_found, known paths with another method 405', async () => {
    const { call } = await setup()
    expect(await (await call('GET', '/v1/segments/seg_1')).json()).toMatchObject({
      code: 404,
      key: 'endpoint_not_found',
    })
    expect(await (await call('DELETE', '/v1/orders/ord_1')).json()).toMatchObject({
      code: 405,
      key: 'method_not_allowed',
    })
  })

  it('routes by literal segments first, decodes parameters once, and refuses a bad encoding', async () => {
    const { call, engine } = await setup()
    // `/v1/vouchers/:code` takes any code but the words other SDK calls use there.
    const code = await call('POST', '/v1/vouchers/A%20B', {
      body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    })
    expect([code.status, ((await code.json()) as { code: string }).code]).toEqual([200, 'A B'])
    expect((await call('GET', `/v1/vouchers/${encodeURIComponent('A B')}`)).status).toBe(200)
    expect((await call('POST', '/v1/vouchers/qualification', { body: {} })).status).not.toBe(200)
    // `/v1/promotions/tiers/:tierId` (two literals) wins over `/v1/promotions/:campaignId/tiers`.
    const tier = await call('GET', '/v1/promotions/tiers/promo_x')
    expect(await tier.json()).toMatchObject({ code: 404, key: 'not_found' })
    const bad = await call('GET', '/v1/vouchers/%E0%A4%A')
    expect([bad.status, ((await bad.json()) as { key: string }).key]).toEqual([400, 'invalid_path'])
    const wrong = await call('PUT', '/v1/vouchers/TEN')
    expect(wrong.status).toBe(405)
    expect(((await wrong.json()) as { details: string }).details).toMatch(
      /use (GET|POST|DELETE)(, (GET|POST|DELETE))+$/,
    )
    expect((await engine.vouchers.get('A B')).code).toBe('A B')
  })

  it('hands authentication the credential headers only: the token endpoints alone take them all', async () => {
    const { engine, keys } = await setup()
    const errors: unknown[] = []
    const handler = createFetchHandler(engine, { onError: (error) => errors.push(error) })
    /** A request whose headers cannot be listed, only read one by one, as a Node adapter has them cheaply. */
    const unlisted = (path: string, init: RequestInit) => {
      const request = new Request(`http://engine.test${path}`, init)
      const headers = request.headers
      const readOnly = {
        get: (name: string) => headers.get(name),
        has: (name: string) => headers.has(name),
        [Symbol.iterator]: () => {
          throw new Error('the headers were listed')
        },
      }
      return new Proxy(request, {
        get(target, property) {
          if (property === 'headers') return readOnly
          const value = Reflect.get(target, property, target)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
    }
    const ok = await handler(
      unlisted('/v1/redemptions', {
        method: 'POST',
        headers: { ...keys.server, 'Content-Type': 'application/json', 'X-Other': 'ignored' },
        body: JSON.stringify(redeem),
      }),
    )
    expect(ok.status).toBe(200)
    const token = await handler(
      unlisted('/v1/oauth/token', {
        method: 'POST',
        headers: { ...keys.server, 'Content-Type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', scope: 'api' }),
      }),
    )
    expect(token.status).toBe(500)
    expect(errors).toEqual([new Error('the headers were listed')])
  })

  it('answers the client family CORS preflight and echoes the origin on client responses', async () => {
    const { handler, keys } = await setup()
    const pre = await handler(
      new Request('http://engine.test/client/v1/validations', {
        method: 'OPTIONS',
        headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST' },
      }),
    )
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://shop.example')
    expect(pre.headers.get('access-control-allow-headers')).toContain('X-Client-Token')
    const res = await handler(
      new Request('http://engine.test/client/v1/validations', {
        method: 'POST',
        headers: { ...keys.client, 'Content-Type': 'application/json' },
        body: JSON.stringify({ redeemables: [{ object: 'voucher', id: 'TEN' }], order: { amount: 2000 } }),
      }),
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example')
  })

  it('no route answers another family’s keys, nor keys without the route’s scope', async () => {
    const { handler, keys, engine } = await setup()
    const narrow = await engine.auth.createApplication({ family: 'server', scopes: ['vouchers'] })
    for (const route of ROUTES) {
      const access = operationAccess(route.operation)
      if (!access || access.family === 'token') continue
      const path = route.path.replace(/:(\w+)/g, 'x')
      const others = (['server', 'client', 'management'] as const).filter((f) => f !== access.family)
      for (const family of others) {
        const res = await handler(
          new Request(`http://engine.test${path}`, { method: route.method, headers: keys[family] }),
        )
        expect([401, 403], `${route.method} ${route.path} with ${family} keys`).toContain(res.status)
      }
      if (access.family === 'server' && access.scope !== 'vouchers') {
        const res = await handler(
          new Request(`http://engine.test${path}`, {
            method: route.method,
            headers: { 'X-App-Id': narrow.app_id, 'X-App-Token': narrow.secret },
          }),
        )
        expect(res.status, `${route.method} ${route.path} without its scope`).toBe(403)
        expect(await res.json()).toMatchObject({ key: 'insufficient_scope' })
      }
    }
  })

  it('serves the management family, templates and referral holders', async () => {
    const { call, keys, engine } = await setup()
    const project = engineContext(engine).config.projectId
    const path = `/management/v1/projects/${project}/stacking-rules`
    const list = await call('GET', path, { headers: keys.management })
    expect(list.status).toBe(200)
    expect(await list.json()).toMatchObject({ object: 'list', total: 1 })
    const created = await call('POST', path, { headers: keys.management, body: { redeemables_limit: 10 } })
    expect(await created.json()).toMatchObject({ redeemables_limit: 10 })
    expect(await (await call('GET', '/v1/templates/campaigns?limit=5')).json()).toMatchObject({
      object: 'list',
      data_ref: 'campaign_templates',
      campaign_templates: [],
    })
    const holders = await call('GET', '/v1/referrals/members/NOPE/holders')
    expect(await holders.json()).toMatchObject({ code: 404, key: 'not_found', resource_type: 'voucher' })
  })

  it('keys mode still checks a bearer token when one is sent; bearer mode needs it', async () => {
    const { call } = await setup()
    expect((await call('GET', '/v1/vouchers/TEN', { headers: { Authorization: 'Bearer nope' } })).status).toBe(401)
    const strict = testEngine()
    const app = await strict.engine.auth.createApplication({ family: 'server' })
    const res = await createFetchHandler(strict.engine)(
      new Request('http://engine.test/v1/vouchers/TEN', {
        headers: { 'X-App-Id': app.app_id, 'X-App-Token': app.secret },
      }),
    )
    expect(await res.json()).toMatchObject({ code: 401, key: 'missing_header' })
  })
})

describe('Idempotency-Key over HTTP', () => {
  it('a redemption retried after a dropped response redeems once and answers the same body', async () => {
    const { call, engine } = await setup()
    const headers = { 'Idempotency-Key': 'checkout-42' }
    const first = await (await call('POST', '/v1/redemptions', { body: redeem, headers })).json()
    const again = await call('POST', '/v1/redemptions', { body: redeem, headers })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(first)
    expect((await engine.vouchers.get('TEN')).redemption.redeemed_quantity).toBe(1)
  })

  it('concurrent requests with one key give one effect', async () => {
    const { call, engine } = await setup()
    const headers = { 'Idempotency-Key': 'burst' }
    const answers = await Promise.all(
      Array.from({ length: 6 }, async () => (await call('POST', '/v1/redemptions', { body: redeem, headers })).json()),
    )
    for (const a of answers) expect(a).toEqual(answers[0])
    expect((await engine.vouchers.get('TEN')).redemption.redeemed_quantity).toBe(1)
  })

  it('another input under the key is 422; keys are per application; unsafe-only', async () => {
    const { call, engine } = await setup()
    const headers = { 'Idempotency-Key': 'k' }
    await call('POST', '/v1/redemptions', { body: redeem, headers })
    const other = await call('POST', '/v1/redemptions', { body: { ...redeem, order: { amount: 9000 } }, headers })
    expect(other.status).toBe(422)
    expect(await other.json()).toMatchObject({ key: 'idempotency_key_reused' })
    const second = await engine.auth.createApplication({ family: 'server' })
    const theirs = await call('POST', '/v1/redemptions', {
      body: redeem,
      headers: { ...headers, 'X-App-Id': second.app_id, 'X-App-Token': second.secret },
    })
    expect(theirs.status).toBe(200)
    expect((await engine.vouchers.get('TEN')).redemption.redeemed_quantity).toBe(2)
    const unsupported = await call('POST', '/v1/customers', { body: { source_id: 'x' }, headers })
    expect(await unsupported.json()).toMatchObject({ code: 400, key: 'idempotency_key_not_supported' })
  })
})

describe('store faults, trailing slashes and what onResponse is told', () => {
  it('answers 503 + Retry-After when the store cannot be reached; a commit of unknown outcome keeps its 500', async () => {
    const t = await setup()
    const told: unknown[] = []
    const handler = createFetchHandler(t.engine, { onResponse: ({ request: _, ...rest }) => told.push(rest) })
    const ctx = engineContext(t.engine)
    const store = ctx.store
    const fault = (key: string) => new EngineError({ code: 500, key, message: 'Store fault', details: 'test' })
    const request = (method: string, path: string, body?: unknown) =>
      handler(
        new Request(`http://engine.test${path}`, {
          method,
          headers: { ...t.keys.server, 'Content-Type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      )
    try {
      // Reads fail: the credentials cannot even be checked.
      ctx.store = new Proxy(store, {
        get: (target, name) =>
          name === 'credentials'
            ? new Proxy(target.credentials, {
                get: () => async () => {
                  throw fault('store_unavailable')
                },
              })
            : Reflect.get(target, name),
      })
      const down = await request('GET', '/v1/vouchers/TEN/')
      expect(down.status).toBe(503)
      expect(down.headers.get('Retry-After')).toBe('1')
      expect(await down.json()).toMatchObject({ code: 503, key: 'store_unavailable' })

      ctx.store = new Proxy(store, {
        get: (target, name) =>
          name === 'commit'
            ? async () => {
                throw fault('commit_outcome_unknown')
              }
            : Reflect.get(target, name),
      })
      const unknown = await request('POST', '/v1/customers', { source_id: 'maybe' })
      expect(unknown.status).toBe(500)
      expect(unknown.headers.get('Retry-After')).toBeNull()
      expect(await unknown.json()).toMatchObject({ code: 500, key: 'commit_outcome_unknown' })
    } finally {
      ctx.store = store
    }
    expect(told).toEqual([
      expect.objectContaining({
        method: 'GET',
        route: '/v1/vouchers/:code',
        status: 503,
        errorKey: 'store_unavailable',
      }),
      expect.objectContaining({
        method: 'POST',
        route: '/v1/customers',
        status: 500,
        errorKey: 'commit_outcome_unknown',
      }),
    ])
    // With the store back, a trailing slash is the path without it.
    expect((await request('GET', '/v1/vouchers/TEN/')).status).toBe(200)
    expect(told.at(-1)).toMatchObject({ route: '/v1/vouchers/:code', status: 200, errorKey: null })
  })

  it('admit: the host runs each operation once its credentials are checked and its body has arrived, or refuses it: 503 server_overloaded, nothing done', async () => {
    let refuse = false
    const admitted: string[] = []
    const told: Answered[] = []
    const { call, engine } = await setup({
      onResponse: (a) => told.push(a),
      admit: (work) => {
        admitted.push('admit')
        return refuse ? undefined : work()
      },
    })
    // Refused credentials never reach the host's admission.
    expect((await call('GET', '/v1/vouchers/TEN', { headers: { 'X-App-Token': 'wrong'.repeat(6) } })).status).toBe(401)
    expect(admitted).toEqual([])
    refuse = true
    const refused = await call('POST', '/v1/customers', { body: { source_id: 'refused' } })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('Retry-After')).toBe('1')
    const body = (await refused.json()) as Record<string, unknown>
    expect(body).toMatchObject({ code: 503, key: 'server_overloaded', message: 'Service unavailable' })
    expect(body.request_id).toBe(refused.headers.get('X-Request-Id'))
    expect(told.at(-1)).toMatchObject({ route: '/v1/customers', status: 503, errorKey: 'server_overloaded' })
    refuse = false
    await expect(engine.customers.get('refused')).rejects.toMatchObject({ key: 'not_found' })
    expect((await call('POST', '/v1/customers', { body: { source_id: 'admitted' } })).status).toBe(200)
    expect(admitted).toEqual(['admit', 'admit'])
  })
})
