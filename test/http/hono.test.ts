import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http'
import { testEngine } from '../support/engine'

/** The mounting example of docs/http.md: the fetch handler under a prefix of a Hono app. */
describe('mounting in Hono', () => {
  it('serves the engine under /promo next to the app’s own routes', async () => {
    const { engine } = testEngine({ authentication: 'keys' })
    const app = new Hono()
    const promo = createFetchHandler(engine, { basePath: '/promo' })
    app.get('/health', (c) => c.text('ok'))
    app.all('/promo/*', (c) => promo(c.req.raw))

    const { app_id, secret } = await engine.auth.createApplication({ family: 'server' })
    await engine.vouchers.create({
      code: 'HONO',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 5 },
    })
    const res = await app.request('/promo/v1/vouchers/HONO', { headers: { 'X-App-Id': app_id, 'X-App-Token': secret } })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ code: 'HONO', discount: { amount_off: 5 } })
    expect(await (await app.request('/health')).text()).toBe('ok')
  })
})
