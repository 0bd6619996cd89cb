import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { createPostgresStore, type PostgresStore } from '../../src/postgres'
import { cardWithPoints } from '../support/shops'
import { emptySchema, useClonedPool } from './database'

/*
 * Contention answered with business results on PostgreSQL (docs/storage.md#alternatives): 200
 * concurrent requests over a pool of 8 connections on one code, one gift card, one member's loyalty
 * card and one campaign's free codes give exactly what fits, the documented failures for the rest,
 * no 409, and (counts, not times) about one commit per request.
 */

const N = 200

const db = useClonedPool(8)

type Engine = ReturnType<typeof createEngine>

async function fresh(): Promise<{ engine: Engine; store: PostgresStore }> {
  await emptySchema(db.pool, 'promo_engine')
  const store = createPostgresStore({ pool: db.pool })
  const engine = createEngine({ store, random: seededRandom(11) })
  await engine.customers.create({ source_id: 'ana' })
  return { engine, store }
}

/** Runs `n` requests at once: outcomes by name (a redemption's result or failure code, or the error key). */
async function race(store: PostgresStore, request: (i: number) => Promise<string>) {
  const commits = store.stats.commits
  const outcomes = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      request(i).catch((e: unknown) => `thrown ${(e as { key?: string }).key ?? String(e)}`),
    ),
  )
  const tally: Record<string, number> = {}
  for (const o of outcomes) tally[o] = (tally[o] ?? 0) + 1
  return { tally, commits: store.stats.commits - commits }
}

const redeem = async (engine: Engine, redeemable: Record<string, unknown>, status?: string) => {
  const r = await engine.raw.redemptions.redeemStackable({
    customer: { source_id: 'ana' },
    order: { amount: 1000, ...(status ? { status } : {}) },
    redeemables: [redeemable],
  })
  const parent = r.parent_redemption as { result: string; failure_code?: string }
  return parent.result === 'SUCCESS' ? 'SUCCESS' : (parent.failure_code ?? 'FAILURE')
}

describe('contention on PostgreSQL, default options', { timeout: 60_000 }, () => {
  it(`${N} concurrent redemptions of a code with quantity 20: 20 succeed, the rest quantity_exceeded`, async () => {
    const { engine, store } = await fresh()
    await engine.vouchers.create({
      code: 'HOT',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
      redemption: { quantity: 20 },
    })
    const { tally, commits } = await race(store, () => redeem(engine, { object: 'voucher', id: 'HOT' }))
    expect(tally).toEqual({ SUCCESS: 20, quantity_exceeded: N - 20 })
    expect(commits).toBeLessThanOrEqual(1.2 * N)
    expect((await engine.vouchers.get('HOT')).redemption.redeemed_quantity).toBe(20)
  })

  it(`${N} concurrent payments of 70 from a gift card of 1,000: 14 succeed, the balance is 20`, async () => {
    const { engine, store } = await fresh()
    await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 1000 } })
    const { tally, commits } = await race(store, () =>
      redeem(engine, { object: 'voucher', id: 'GIFT', gift: { credits: 70 } }),
    )
    expect(tally).toEqual({ SUCCESS: 14, gift_amount_exceeded: N - 14 })
    expect(commits).toBeLessThanOrEqual(1.2 * N)
    expect((await engine.vouchers.get('GIFT')).gift?.balance).toBe(20)
  })

  it(`${N} concurrent payments of 10 points by one member from a card of 300: 30 succeed`, async () => {
    const { engine, store } = await fresh()
    const { card, coin } = await cardWithPoints(engine, 300)
    const { tally, commits } = await race(store, () =>
      redeem(engine, { object: 'voucher', id: card.code, reward: { id: coin.id, points: 10 } }),
    )
    expect(tally).toEqual({ SUCCESS: 30, loyalty_card_points_exceeded: N - 30 })
    expect(commits).toBeLessThanOrEqual(1.2 * N)
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(0)
  })

  it(`${N} concurrent publications from ${N + 40} free codes: ${N} distinct codes`, async () => {
    const { engine, store } = await fresh()
    await engine.campaigns.create({
      name: 'Welcome',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
      vouchers_count: N + 40,
    })
    await engine.asyncActions.runPending()
    const codes = new Set<string>()
    const { tally, commits } = await race(store, async (i) => {
      const p = await engine.publications.create({ campaign: { name: 'Welcome' }, customer: { source_id: `p${i}` } })
      if (p.voucher) codes.add(p.voucher.code)
      return 'SUCCESS'
    })
    expect(tally).toEqual({ SUCCESS: N })
    expect(codes.size).toBe(N)
    expect(commits).toBeLessThanOrEqual(1.2 * N)
  })
})
