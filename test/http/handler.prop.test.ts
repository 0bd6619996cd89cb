import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createFetchHandler, ROUTES } from '../../src/http'
import { snapshot, testEngine } from '../support/engine'

/**
 * Bad input over HTTP: generated methods, paths, headers and bodies never get a 500, never hang, and
 * every refusal is `EngineError` JSON that left the store as it was.
 */
// 2.2 s on a 2-core machine at load 18: a safety limit, no timing is asserted.
describe('fetch handler under generated requests', { timeout: 30_000 }, () => {
  it('answers every request with a 2xx or a 4xx EngineError; a refusal writes nothing', async () => {
    const { engine, store } = testEngine({ authentication: 'keys' })
    const handler = createFetchHandler(engine, { onError: (e) => expect.unreachable(String(e)) })
    const app = await engine.auth.createApplication({ family: 'server' })
    const client = await engine.auth.createApplication({ family: 'client', allowed_origins: ['*'] })
    await engine.vouchers.create({
      code: 'TEN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 10 },
    })

    const segment = fc.oneof(
      fc.constantFrom('TEN', 'x', '%', '%E0%A4%A', '..', '', 'v1', 'client', 'tiers', 'members'),
      fc.string({ maxLength: 12 }).map(encodeURIComponent),
    )
    const anyMethod = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD')
    // Mostly a real route with its own method and generated parameters; sometimes anything at all.
    const routed = fc
      .tuple(fc.constantFrom(...ROUTES), fc.array(segment, { minLength: 8, maxLength: 8 }))
      .map(([r, values]) => ({ method: r.method as string, path: r.path.replace(/:\w+/g, () => values.pop() ?? 'x') }))
    const target = fc.oneof(
      { weight: 4, arbitrary: routed },
      { weight: 1, arbitrary: fc.record({ method: anyMethod, path: routed.map((r) => r.path) }) },
      {
        weight: 1,
        arbitrary: fc.record({
          method: anyMethod,
          path: fc.array(segment, { maxLength: 6 }).map((s) => `/${s.join('/')}`),
        }),
      },
    )
    const query = fc.oneof(
      fc.constant(''),
      fc.constantFrom('?limit=abc', '?limit=5', '?a[b][c][d][e][f][g]=1', '?a=1&a[b]=2', '?filters[x]=1', '?%=1'),
      fc.string({ maxLength: 20 }).map((s) => `?${s}`),
    )
    const keys = fc.constantFrom<Record<string, string>>(
      {},
      { 'X-App-Id': app.app_id, 'X-App-Token': app.secret },
      { 'X-App-Id': app.app_id, 'X-App-Token': 'wrong' },
      { 'X-Client-Application-Id': client.app_id, 'X-Client-Token': client.secret, Origin: 'https://a.example' },
      { 'X-App-Id': app.app_id, 'X-App-Token': app.secret, Authorization: 'Bearer x' },
      { 'X-App-Id': app.app_id, 'X-App-Token': app.secret, 'Idempotency-Key': 'k k' },
      { 'X-App-Id': app.app_id, 'X-App-Token': app.secret, 'Idempotency-Key': 'fuzz' },
    )
    const contentType = fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/merge-patch+json',
      '',
    )
    const body = fc.oneof(
      fc.constant(undefined),
      fc.json({ maxDepth: 3 }),
      fc.string({ maxLength: 40 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify({ redeemables: v, order: v, customer: v, amount: v })),
    )

    await fc.assert(
      fc.asyncProperty(target, query, keys, contentType, body, async ({ method: m, path: p }, q, k, type, b) => {
        let url: URL
        try {
          url = new URL(`http://engine.test${p}${q}`)
        } catch {
          return
        }
        const sendsBody = b !== undefined && m !== 'GET' && m !== 'HEAD'
        const headers = { ...k, ...(type === '' ? {} : { 'Content-Type': type }) }
        const before = await snapshot(store)
        const res = await handler(new Request(url, { method: m, headers, ...(sendsBody ? { body: b } : {}) }))
        expect(res.status).not.toBe(500)
        expect(res.headers.get('x-request-id')).toMatch(/^req_/)
        if (res.status < 400) return
        expect(res.status).toBeLessThan(500)
        const json = (await res.json()) as Record<string, unknown>
        expect(json).toMatchObject({ code: res.status, key: expect.any(String), message: expect.any(String) })
        expect(json.request_id).toBe(res.headers.get('x-request-id'))
        // A refused rollback records its failure (the interface's failed rollback); nothing else writes.
        if (!/\/rollbacks?$/.test(url.pathname)) expect(await snapshot(store)).toBe(before)
      }),
      { numRuns: 300 },
    )
  })
})
