/**
 * Contention with default options (docs/storage.md#counters, #alternatives): N concurrent requests on
 * one code with quantity 100, one gift card, one loyalty card, and N concurrent publications from
 * one campaign, N concurrent redemptions on one per-line unit budget (by one customer, then by
 * distinct ones); then the cost of preparing alternatives where none is needed: N concurrent
 * redemptions of a code that never runs out, and N one at a time. Counts successes, business
 * failures, 409s, store commits per request and the process's CPU time per request.
 *
 *   npx tsx bench/contention.ts                  # memory store, N = 10,000
 *   npx tsx bench/contention.ts 2000
 *   npx tsx bench/contention.ts --postgres       # PostgreSQL (PROMO_PG_URL, else embedded), N = 2,000, pool of 16
 */
import pg from 'pg'
import { createEngine } from '../src/engine'
import { isEngineError } from '../src/errors'
import { seededRandom } from '../src/ids'
import { createMemoryStore } from '../src/memory'
import type { Store } from '../src/storage/ports'
import { cardWithPoints, unitBudgetTier } from '../test/support/shops'

const POSTGRES = process.argv.includes('--postgres')
const N = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? (POSTGRES ? 2000 : 10_000))
const POOL = 16

type Engine = ReturnType<typeof createEngine>
type Counted = Store & { stats: { commits: number } }

let schemas = 0
let database: Promise<{ pool: pg.Pool; stop(): Promise<void> }> | undefined

/** A fresh store: the memory store, or a new schema on PostgreSQL behind a pool of 16 connections. */
async function makeStore(): Promise<Counted> {
  if (!POSTGRES) return createMemoryStore()
  database ??= (async () => {
    const { server } = await import('./postgres/server')
    const db = await server()
    const pool = new pg.Pool({ connectionString: db.url, max: POOL }).on('error', () => {})
    return {
      pool,
      async stop() {
        await pool.end()
        await db.stop()
      },
    }
  })()
  const { pool } = await database
  const { createPostgresStore } = await import('../src/postgres')
  const store = createPostgresStore({ pool, schema: `contention_${++schemas}` })
  await store.migrate()
  return store
}

async function run(
  name: string,
  setup: (engine: Engine) => Promise<(i: number) => Promise<string>>,
  options: { sequential?: boolean } = {},
) {
  const store = await makeStore()
  const engine = createEngine({ store, random: seededRandom(5) })
  await engine.customers.create({ source_id: 'ana' })
  const request = await setup(engine)
  const commits = store.stats.commits
  const cpu = process.cpuUsage()
  const started = performance.now()
  const one = (i: number) =>
    request(i).catch((e: unknown) => (isEngineError(e) ? `${e.code} ${e.key}` : `thrown ${String(e)}`))
  const outcomes: string[] = []
  if (options.sequential) for (let i = 0; i < N; i++) outcomes.push(await one(i))
  else outcomes.push(...(await Promise.all(Array.from({ length: N }, (_, i) => one(i)))))
  const ms = performance.now() - started
  const used = process.cpuUsage(cpu)
  const tally = new Map<string, number>()
  for (const o of outcomes) tally.set(o, (tally.get(o) ?? 0) + 1)
  const perRequest = (store.stats.commits - commits) / N
  const cpuPerRequest = (used.user + used.system) / 1000 / N
  const summary = [...tally].map(([k, v]) => `${v} ${k}`).join(', ')
  console.log(
    `| ${name} | ${N} | ${summary} | ${perRequest.toFixed(2)} | ${cpuPerRequest.toFixed(2)} | ${(ms / 1000).toFixed(1)} s |`,
  )
}

const redemption = async (engine: Engine, redeemable: Record<string, unknown>, customer = 'ana') => {
  const r = await engine.raw.redemptions.redeemStackable({
    customer: { source_id: customer },
    order: { amount: 1000 },
    redeemables: [redeemable],
  })
  return r.parent_redemption.result === 'SUCCESS' ? 'SUCCESS' : (r.parent_redemption.failure_code ?? 'FAILURE')
}

const code = (engine: Engine, quantity: number) =>
  engine.vouchers.create({
    code: 'HOT',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100 },
    redemption: { quantity },
  })

/** A promotion tier of $1 off each shoe, at most N / 10 shoes in all; request i orders 1 + i mod 5 shoes. */
async function unitBudget(engine: Engine, customer: (i: number) => string) {
  const shoe = await engine.products.create({ name: 'Shoe', source_id: 'shoe', price: 5000 })
  const tier = await unitBudgetTier(engine, shoe.id, N / 10)
  return async (i: number) => {
    const r = await engine.raw.redemptions.redeemStackable({
      customer: { source_id: customer(i) },
      order: { items: [{ source_id: 'shoe', quantity: 1 + (i % 5) }] },
      redeemables: [{ object: 'promotion_tier', id: tier }],
    })
    const units = r.order?.items?.[0]?.discount_quantity ?? 0
    return r.parent_redemption.result === 'SUCCESS'
      ? `SUCCESS (${units > 0 ? 'units off' : 'none off'})`
      : (r.parent_redemption.failure_code ?? 'FAILURE')
  }
}

async function main() {
  console.log(`${POSTGRES ? `PostgreSQL, pool of ${POOL}` : 'memory store'}, ${N} requests`)
  console.log('| contention | requests | outcomes | commits per request | CPU ms per request | wall |')
  console.log('| --- | ---: | --- | ---: | ---: | ---: |')
  await run('one code, quantity 100', async (engine) => {
    await code(engine, 100)
    return () => redemption(engine, { object: 'voucher', id: 'HOT' })
  })
  await run('one gift card of 10,000, 70 each', async (engine) => {
    await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 10_000 } })
    return () => redemption(engine, { object: 'voucher', id: 'GIFT', gift: { credits: 70 } })
  })
  await run('one loyalty card of 710 points, 10 each', async (engine) => {
    const { card, coin } = await cardWithPoints(engine, 710)
    return () => redemption(engine, { object: 'voucher', id: card.code, reward: { id: coin.id, points: 10 } })
  })
  await run(`publications from ${Math.round(N * 1.2)} free codes`, async (engine) => {
    await engine.campaigns.create({
      name: 'Welcome',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
      vouchers_count: Math.round(N * 1.2),
    })
    await engine.asyncActions.runPending()
    return async (i) => {
      const p = await engine.publications.create({ campaign: { name: 'Welcome' }, customer: { source_id: `p${i}` } })
      return p.voucher ? 'SUCCESS' : 'no code'
    }
  })
  await run(`a per-line unit budget of ${N / 10} shoes, 1 to 5 each, one customer`, (engine) =>
    unitBudget(engine, () => 'ana'),
  )
  await run(`a per-line unit budget of ${N / 10} shoes, 1 to 5 each, distinct customers`, (engine) =>
    unitBudget(engine, (i) => `c${i}`),
  )
  await run(`one code, quantity ${N} (none refused)`, async (engine) => {
    await code(engine, N)
    return () => redemption(engine, { object: 'voucher', id: 'HOT' })
  })
  await run(
    `one code, quantity ${N}, one request at a time`,
    async (engine) => {
      await code(engine, N)
      return () => redemption(engine, { object: 'voucher', id: 'HOT' })
    },
    { sequential: true },
  )
  await (await database)?.stop()
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
