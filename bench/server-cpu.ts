import pg from 'pg'
import { createEngine, createMemoryStore, type Store } from '../src'
import { createFetchHandler } from '../src/http'
import { createPostgresStore } from '../src/postgres'
import { startEmbedded } from '../test/postgres/embedded'

/*
 * `npx tsx bench/server-cpu.ts`: the CPU time of one request of the open loop's mix (bench/open-loop.ts:
 * a validation and a redemption of a public code, a paid order in an auto-join program, each from a
 * new customer), called one at a time in this process, two ways: the engine's function directly, and
 * through the fetch handler (a `Request` in, the `Response` read). What the open loop's server spends
 * beyond these is Node's HTTP server, the adapter, the logs and the metrics. Single-threaded and
 * measured by `process.cpuUsage`, so it stays comparable on a loaded machine where latencies do not.
 *
 * Environment: STORE=memory (default: an embedded PostgreSQL, fsync off), N requests per case (300),
 * KINDS (validation,redemption,order), HOW (engine or handler; both by default). Each case runs twice;
 * the second is printed.
 */

type Kind = 'validation' | 'redemption' | 'order'
const memory = process.env.STORE === 'memory'
const N = Number(process.env.N ?? 300)
const KINDS = (process.env.KINDS ?? 'validation,redemption,order').split(',') as Kind[]

const database = memory ? undefined : await startEmbedded({ fsync: 'off' })
const pool = database ? new pg.Pool({ connectionString: database.url, max: 10 }).on('error', () => {}) : undefined
let store: Store = createMemoryStore()
if (pool) {
  const postgres = createPostgresStore({ pool })
  await postgres.migrate()
  store = postgres
}
const engine = createEngine({ authentication: 'keys', store })
const app = { app_id: 'load-app', secret: 'load-secret-of-the-bench-24chars' }
await engine.auth.createApplication({ family: 'server', ...app })
const handler = createFetchHandler(engine)
const headers = { 'X-App-Id': app.app_id, 'X-App-Token': app.secret, 'Content-Type': 'application/json' }
const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
  const response = await handler(
    new Request(`http://bench${path}`, { method: 'POST', headers, body: JSON.stringify(body) }),
  )
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${text}`)
  return JSON.parse(text) as Record<string, unknown>
}

await post('/v1/products', { name: 'Shoe', source_id: 'shoe', price: 5000 })
await post('/v1/vouchers', { code: 'PUBLIC', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } })
const club = await post('/v1/loyalties', {
  name: 'Club',
  type: 'AUTO_UPDATE',
  auto_join: true,
  voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'CLUB-########' } },
})
await post('/v1/async-actions/run-pending', {})
await post(`/v1/loyalties/${club.id}/earning-rules`, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 10 } }])

const order = { amount: 10_000, items: [{ source_id: 'shoe', quantity: 2 }] }
const redeemables = [{ object: 'voucher', id: 'PUBLIC' }]
const bodyOf = (kind: Kind, customer: string) =>
  kind === 'order'
    ? { customer: { source_id: customer }, status: 'PAID', ...order }
    : { customer: { source_id: customer }, order, redeemables }
const path = { validation: '/v1/validations', redemption: '/v1/redemptions', order: '/v1/orders' }
const direct = {
  validation: (body: unknown) => engine.raw.validations.validateStackable(body),
  redemption: (body: unknown) => engine.raw.redemptions.redeemStackable(body),
  order: (body: unknown) => engine.raw.orders.create(body),
}

console.log(`${memory ? 'memory store' : 'PostgreSQL (embedded, fsync off)'}; ${N} requests per case, one at a time`)
console.log('| request | called | CPU ms/request | wall ms/request |')
console.log('| --- | --- | ---: | ---: |')
let n = 0
for (let round = 0; round < 2; round++) {
  for (const kind of KINDS) {
    for (const how of ['engine', 'handler'] as const) {
      if (process.env.HOW && process.env.HOW !== how) continue
      const call = (c: string) => (how === 'engine' ? direct[kind](bodyOf(kind, c)) : post(path[kind], bodyOf(kind, c)))
      for (let i = 0; i < 50; i++) await call(`w${n++}`)
      const cpu = process.cpuUsage()
      const started = performance.now()
      for (let i = 0; i < N; i++) await call(`c${n++}`)
      const used = process.cpuUsage(cpu)
      const wall = performance.now() - started
      if (round === 1)
        console.log(
          `| ${kind} | ${how} | ${((used.user + used.system) / N / 1000).toFixed(3)} | ${(wall / N).toFixed(2)} |`,
        )
    }
  }
}
await pool?.end()
await database?.stop()
