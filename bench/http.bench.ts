import pino from 'pino'
import { afterAll, beforeAll, bench, describe } from 'vitest'
import { createLogger } from '../packages/server/src/observe'
import { type RunningServer, startServer } from '../packages/server/src/server'
import type { createEngine } from '../src/engine'
import { createFetchHandler } from '../src/http'

/**
 * What the HTTP layer costs on top of the operation: one stackable validation called in-process,
 * through the fetch handler (a `Request` built in-process: routing, auth by keys, JSON both ways), and
 * through the server over loopback (node:http and the adapter added; metrics counted, logs off), and
 * through the server writing its JSON log line per request (to /dev/null: the cost of making it).
 */
const body = {
  redeemables: [{ object: 'voucher', id: 'TEN' }],
  order: { amount: 25000, items: [{ product_id: 'p1', quantity: 2, price: 12500 }] },
  customer: { source_id: 'bench' },
}

let server: RunningServer
let logged: RunningServer
let handler: (request: Request) => Promise<Response>
let engine: ReturnType<typeof createEngine>
let headers: Record<string, string>

beforeAll(async () => {
  server = await startServer({ asyncIntervalMs: 0 })
  engine = server.engine
  logged = await startServer({
    asyncIntervalMs: 0,
    engine,
    logger: createLogger('info', pino.destination({ dest: '/dev/null', sync: true })),
    settings: { keys: server.keys },
  })
  handler = createFetchHandler(engine)
  headers = {
    'X-App-Id': server.keys.server.app_id,
    'X-App-Token': server.keys.server.secret,
    'Content-Type': 'application/json',
  }
  await engine.vouchers.create({
    code: 'TEN',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' },
  })
})
afterAll(async () => {
  await logged.close()
  await server.close()
})

describe('validateStackable, one voucher, one line', () => {
  bench('in-process operation', async () => {
    await engine.raw.validations.validateStackable(body)
  })
  bench('fetch handler (in-process Request)', async () => {
    const res = await handler(
      new Request('http://engine.test/v1/validations', { method: 'POST', headers, body: JSON.stringify(body) }),
    )
    await res.json()
  })
  bench('server over loopback', async () => {
    const res = await fetch(`${server.url}/v1/validations`, { method: 'POST', headers, body: JSON.stringify(body) })
    await res.json()
  })
  bench('server over loopback, JSON log line per request', async () => {
    const res = await fetch(`${logged.url}/v1/validations`, { method: 'POST', headers, body: JSON.stringify(body) })
    await res.json()
  })
})
