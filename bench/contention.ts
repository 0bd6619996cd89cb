/**
 * Contention with default options (docs/storage.md#counters): N concurrent requests on one code with
 * quantity 100, one gift card, one loyalty card, and N concurrent publications, on the memory store.
 * Counts successes, business failures, 409s and store commits per request.
 *
 *   npx tsx bench/contention.ts          # N = 10,000
 *   npx tsx bench/contention.ts 2000
 */
import { createEngine } from '../src/engine'
import { isEngineError } from '../src/errors'
import { seededRandom } from '../src/ids'
import { createMemoryStore } from '../src/memory'

const N = Number(process.argv[2] ?? 10_000)

type Engine = ReturnType<typeof createEngine>

async function run(name: string, setup: (engine: Engine) => Promise<(i: number) => Promise<string>>) {
  const store = createMemoryStore()
  const engine = createEngine({ store, random: seededRandom(5) })
  await engine.customers.create({ source_id: 'ana' })
  const request = await setup(engine)
  const commits = store.stats.commits
  const started = performance.now()
  const outcomes = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      request(i).catch((e: unknown) => (isEngineError(e) ? `${e.code} ${e.key}` : `thrown ${String(e)}`)),
    ),
  )
  const ms = performance.now() - started
  const tally = new Map<string, number>()
  for (const o of outcomes) tally.set(o, (tally.get(o) ?? 0) + 1)
  const perRequest = (store.stats.commits - commits) / N
  const summary = [...tally].map(([k, v]) => `${v} ${k}`).join(', ')
  console.log(`| ${name} | ${N} | ${summary} | ${perRequest.toFixed(2)} | ${(ms / 1000).toFixed(1)} s |`)
}

const redemption = async (engine: Engine, redeemable: Record<string, unknown>, customer = 'ana') => {
  const r = await engine.redemptions.redeemStackable({
    customer: { source_id: customer },
    order: { amount: 1000 },
    redeemables: [redeemable],
  })
  return r.parent_redemption.result === 'SUCCESS' ? 'SUCCESS' : (r.parent_redemption.failure_code ?? 'FAILURE')
}

async function main() {
  console.log('| contention | requests | outcomes | commits per request | wall |')
  console.log('| --- | ---: | --- | ---: | ---: |')
  await run('one code, quantity 100', async (engine) => {
    await engine.vouchers.create({
      code: 'HOT',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
      redemption: { quantity: 100 },
    })
    return () => redemption(engine, { object: 'voucher', id: 'HOT' })
  })
  await run('one gift card of 10,000, 70 each', async (engine) => {
    await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 10_000 } })
    return () => redemption(engine, { object: 'voucher', id: 'GIFT', gift: { credits: 70 } })
  })
  await run('one loyalty card of 710 points, 10 each', async (engine) => {
    const club = await engine.loyalties.create({
      name: 'Club',
      type: 'AUTO_UPDATE',
      vouchers_count: 1,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 710 } },
    })
    await engine.asyncActions.runPending()
    const card = await engine.loyalties.createMember(club.id, { customer: { source_id: 'ana' } })
    const coin = await engine.rewards.create({
      name: 'Coin',
      type: 'COIN',
      parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } },
    })
    await engine.rewards.createAssignment(coin.id, { campaign: club.id })
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
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
