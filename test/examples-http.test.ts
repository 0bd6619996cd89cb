import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpHost } from '../examples/http-host'
import { testEngine } from './support/engine'

/** The HTTP host of examples/http-host.ts (the fetch handler on node:http), driven over loopback: token, scopes, validation, errors. */
describe('examples/http-host.ts', () => {
  const { engine } = testEngine()
  const server = httpHost(engine)
  let base = ''
  let app: { app_id: string; secret: string }

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    app = await engine.auth.createApplication({ name: 'checkout', family: 'server' })
    await engine.vouchers.create({
      code: 'TEN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' },
    })
  })
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())))

  const appHeaders = () => ({ 'X-App-Id': app.app_id, 'X-App-Token': app.secret })

  async function token(scope: string): Promise<string> {
    const res = await fetch(`${base}/v1/oauth/token`, {
      method: 'POST',
      headers: { ...appHeaders(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { access_token: string; token_type: string; scope: string }
    expect(body).toMatchObject({ token_type: 'Bearer', scope })
    return body.access_token
  }

  it('issues a token, then validates a cart with it', async () => {
    const bearer = await token('validations vouchers')
    const res = await fetch(`${base}/v1/validations`, {
      method: 'POST',
      headers: { ...appHeaders(), authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ order: { amount: 25000 }, redeemables: [{ object: 'voucher', id: 'TEN' }] }),
    })
    expect(res.status).toBe(200)
    const result = (await res.json()) as { valid: boolean; order: { total_amount: number } }
    expect(result).toMatchObject({ valid: true, order: { total_amount: 22500 } })
  })

  it('answers 403 for a token without the scope, 401 without one, 400 for bad input, 404 for an unknown code', async () => {
    const bearer = await token('vouchers')
    const headers = { ...appHeaders(), authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }
    const forbidden = await fetch(`${base}/v1/redemptions`, { method: 'POST', headers, body: '{}' })
    expect(forbidden.status).toBe(403)
    expect(await forbidden.json()).toMatchObject({ key: 'insufficient_scope' })
    const anonymous = await fetch(`${base}/v1/vouchers/TEN`, { headers: appHeaders() })
    expect(anonymous.status).toBe(401)
    const full = await token('api')
    const all = { ...appHeaders(), authorization: `Bearer ${full}`, 'content-type': 'application/json' }
    const bad = await fetch(`${base}/v1/validations`, {
      method: 'POST',
      headers: all,
      body: JSON.stringify({ redeemables: [] }),
    })
    expect(bad.status).toBe(400)
    // Every answer carries its request id, in the body of an error and in a header.
    expect(await bad.json()).toMatchObject({
      code: 400,
      key: 'invalid_payload',
      request_id: bad.headers.get('x-request-id'),
    })
    expect(bad.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/)
    const missing = await fetch(`${base}/v1/vouchers/NOPE`, { headers: all })
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ code: 404, key: 'not_found' })
    const found = await fetch(`${base}/v1/vouchers/TEN`, { headers: all })
    expect(((await found.json()) as { code: string }).code).toBe('TEN')
  })
})
