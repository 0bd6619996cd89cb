import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { createMemoryStore, type MemoryStore } from '../../src/memory'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import type { Write } from '../../src/storage/ports'
import { chainCounter } from '../support/chain'
import * as chainShop from '../support/chain-shop'
import { manualClock } from '../support/engine'
import { cardPayingWithPoints } from './loyalty/fixtures'

/*
 * What an operation costs the store, counted (docs/storage.md#load-decide-commit): the longest chain
 * of sequential store calls (each level is a database round trip) and the rows a list examines,
 * which must not grow with what is stored.
 */

function engineOn(store: ReturnType<typeof chainCounter>['store']) {
  return createEngine({ store, clock: manualClock(), random: seededRandom(1) })
}

async function shop() {
  const counter = chainCounter(createMemoryStore())
  const engine = engineOn(counter.store)
  const body = await chainShop.seedChainShop(engine)
  return { counter, engine, body }
}

describe('the longest chain of sequential store calls', () => {
  it('a validation of four redeemables for a known customer: at most 4 (3 levels of reads, then the activity commit)', async () => {
    const { counter, engine, body } = await shop()
    counter.reset()
    const result = await engine.raw.validations.validateStackable(body)
    expect(result.valid).toBe(true)
    expect(counter.depth).toBeLessThanOrEqual(4)
  })

  it('a one-line validation and redemption of a known code for a known customer: 3 cold, then 2 (level 2 started with level 1 from hints)', async () => {
    const counter = chainCounter(createMemoryStore())
    const engine = engineOn(counter.store)
    const body = await chainShop.seedOneLineShop(engine)
    const depth = async (run: () => Promise<unknown>) => {
      counter.reset()
      await run()
      return counter.depth
    }
    expect(await depth(() => engine.raw.validations.validateStackable(body))).toBe(3)
    expect(await depth(() => engine.raw.validations.validateStackable(body))).toBe(2)
    expect(await depth(() => engine.raw.redemptions.redeemStackable(body))).toBe(2)
  })

  it('a redemption of four redeemables, a new customer created with it: at most 5', async () => {
    const { counter, engine, body } = await shop()
    counter.reset()
    const result = await engine.raw.redemptions.redeemStackable({ ...body, customer: { source_id: 'new' } })
    expect(result.parent_redemption.result).toBe('SUCCESS')
    expect(counter.depth).toBeLessThanOrEqual(5)
  })

  it('loyalty operations: a member paying with points and earning at most 6, a paid order at most 4, a reward redemption at most 3', async () => {
    const counter = chainCounter(createMemoryStore())
    const chains = await chainShop.loyaltyChains(engineOn(counter.store), counter)
    expect(chains.memberRedemption).toBeLessThanOrEqual(6)
    expect(chains.paidOrder).toBeLessThanOrEqual(4)
    expect(chains.rewardRedemption).toBeLessThanOrEqual(3)
  })
  it.each(chainShop.AUTO_JOIN_CARDS)(
    "a new customer's paid order and redemption joining an auto-join program (%s): 3 made on demand (the request's reads, the program's earning rules beside its free cards, the commit), 4 with a free card (its ledger and standing)",
    async (cards) => {
      const memory = createMemoryStore()
      const counter = chainCounter(memory)
      const engine = engineOn(counter.store)
      const { clubId } = await chainShop.seedAutoJoinShop(engine, cards)
      const chains = await chainShop.newMemberChains(engine, counter, memory, clubId)
      const levels = cards === 'AUTO_UPDATE, made on demand' ? 3 : 4
      expect({ paidOrder: chains.paidOrder.depth, redemption: chains.redemption.depth }).toEqual({
        paidOrder: levels,
        redemption: levels,
      })
      chainShop.expectCardsFrom(cards, chains)
    },
  )

  it("generating a program's 50 cards from a pattern under 2^40 codes: their codes looked up in one read, not one each (6, where it was 55)", async () => {
    const counter = chainCounter(createMemoryStore())
    const engine = engineOn(counter.store)
    await engine.loyalties.create({
      name: 'Club',
      type: 'AUTO_UPDATE',
      vouchers_count: 50,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'CLUB-####' } },
    })
    counter.reset()
    await engine.asyncActions.runPending()
    expect(counter.depth).toBeLessThanOrEqual(6)
    expect((await engine.loyalties.list()).campaigns[0]?.vouchers_count).toBe(50)
  })

  it("a publication from a campaign's free codes, for a new and a known customer: at most 4", async () => {
    const counter = chainCounter(createMemoryStore())
    const engine = engineOn(counter.store)
    await chainShop.seedPublicationShop(engine)
    for (const source_id of ['new', 'known']) {
      counter.reset()
      await engine.publications.create({ campaign: { name: 'Welcome' }, customer: { source_id } })
      expect(counter.depth, source_id).toBeLessThanOrEqual(4)
    }
  })
})

describe('rows examined do not grow with what is stored', () => {
  it("a page of a customer's feed reads the page, whatever the feed's length and the other customers' feeds", async () => {
    const store = createMemoryStore()
    const engine = createEngine({ store, clock: manualClock(), random: seededRandom(1) })
    const ana = await engine.customers.create({ source_id: 'ana' })
    const bob = await engine.customers.create({ source_id: 'bob' })
    const filler = (customer: string, n: number): Write[] =>
      Array.from({ length: n }, (_, i) => ({
        op: 'put',
        collection: 'activities',
        value: {
          id: `act_${customer}_${String(i).padStart(6, '0')}`,
          type: 'customer.filler',
          customer_id: customer,
          category: 'ACTION',
          data: {},
          group_id: 'g',
          created_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
          object: 'customer_activity',
        },
        expectedVersion: null,
        shape: currentShape('activities'),
      })) as Write[]
    await store.commit({ writes: filler(ana.id, 10_000) })
    await store.commit({ writes: filler(bob.id, 10_000) })
    const examined = async (run: () => Promise<unknown>) => {
      const before = (store as MemoryStore).stats.rowsExamined
      await run()
      return (store as MemoryStore).stats.rowsExamined - before
    }
    const first = await engine.customers.listActivity(ana.id, { limit: 10 })
    expect(first.data).toHaveLength(10)
    expect(await examined(() => engine.customers.listActivity(ana.id, { limit: 10 }))).toBeLessThanOrEqual(10 + 2)
    const cursor = first.data.at(-1)?.id ?? ''
    expect(
      await examined(() => engine.customers.listActivity(ana.id, { limit: 10, starting_after_id: cursor })),
    ).toBeLessThanOrEqual(10 + 2)
    // 20,000 rows committed first: 3.4 s on a 2-core machine at load 18. A safety limit, no timing asserted.
  }, 60_000)

  it('a redemption under a budget rule reads counters, not past redemptions: as many rows after 300 of them', async () => {
    const memory = createMemoryStore()
    const engine = createEngine({ store: memory, clock: manualClock(), random: seededRandom(1) })
    await engine.customers.create({ source_id: 'ana' })
    const code = await engine.vouchers.create({
      code: 'CAPPED',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
      redemption: { quantity: 100_000 },
    })
    const rule = await engine.validationRules.create({
      name: 'budget',
      rules: { '1': { name: 'redemption.count.per_customer', conditions: { $less_than_or_equal: [100_000] } } },
    })
    await engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'voucher',
      related_object_id: code.id,
    })
    const cost = async () => {
      const before = memory.stats.rowsExamined
      const result = await engine.redemptions.redeemStackable({
        customer: { source_id: 'ana' },
        order: { amount: 1000 },
        redeemables: [{ object: 'voucher', id: 'CAPPED' }],
      })
      expect(result.parent_redemption.result).toBe('SUCCESS')
      return memory.stats.rowsExamined - before
    }
    const early = await cost()
    for (let i = 0; i < 300; i++) await cost()
    expect(await cost()).toBe(early)
  }, 60_000)

  it("a member's paid order reads the card's live buckets, not its history; the card's summary still adds up", async () => {
    const memory = createMemoryStore()
    const engine = createEngine({ store: memory, clock: manualClock(), random: seededRandom(1) })
    const { club, card, coin } = await cardPayingWithPoints(engine)
    const pay = async () => {
      const before = memory.stats.rowsExamined
      await engine.orders.create({ customer: { source_id: 'alice' }, status: 'PAID', amount: 20_000 })
      return memory.stats.rowsExamined - before
    }
    const early = await pay()
    for (let i = 0; i < 200; i++) await pay()
    // Spend everything: 202 buckets become history.
    const full = await engine.loyalties.getMember(club.id, card.id)
    const balance = full.loyalty_card?.balance ?? 0
    await engine.loyalties.redeemReward(club.id, card.id, {
      reward: { id: coin.id, points: balance },
      order: { amount: balance * 10 },
    })
    expect(await pay()).toBeLessThanOrEqual(early + 2)
    const after = await engine.loyalties.getMember(club.id, card.id)
    const buckets = await memory.points_buckets.list({ where: { voucher_id: card.id } })
    const sum = (f: (b: (typeof buckets.data)[number]['value']) => number) =>
      buckets.data.reduce((n, b) => n + f(b.value), 0)
    expect(after.loyalty_card?.balance).toBe(sum((b) => b.remaining))
    expect(after.loyalty_card?.points).toBe(sum((b) => b.points))
    expect(after.loyalty_card?.balance).toBe(20)
  }, 60_000)

  it('a qualification reads the offers that could reach the cart: as many rows among 1,000 or 5,000 that cannot', async () => {
    const memory = createMemoryStore()
    const counter = chainCounter(memory)
    const engine = engineOn(counter.store)
    const products: string[] = []
    for (let i = 0; i < 30; i++) {
      products.push((await engine.products.create({ name: `P${i}`, source_id: `p${i}`, price: 1000 })).id)
    }
    const on = async (product: string) =>
      (
        await engine.validationRules.create({
          name: `On ${product}`,
          rules: {},
          applicable_to: { included: [{ object: 'product', id: product }] },
        })
      ).id
    const targeting = await Promise.all(products.map(on))
    const discount = { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS' }
    // Reachable: 5 tiers with no product restriction, 5 on a cart product (products 0–4).
    await engine.raw.promotions.create({
      name: 'Reachable',
      promotion: {
        tiers: Array.from({ length: 10 }, (_, i) => ({
          name: `Reachable ${i}`,
          action: { discount },
          ...(i < 5 ? {} : { validation_rules: [targeting[i - 5]] }),
        })),
      },
    })
    // Unreachable: tiers on products 10–29, which the cart lacks, 500 per campaign.
    let made = 0
    const unreachable = async (n: number) => {
      for (; n > 0; n -= 500) {
        await engine.raw.promotions.create({
          name: `Elsewhere ${made}`,
          promotion: {
            tiers: Array.from({ length: Math.min(n, 500) }, (_, i) => ({
              name: `Elsewhere ${made}-${i}`,
              action: { discount },
              validation_rules: [targeting[10 + (i % 20)]],
            })),
          },
        })
        made++
      }
    }
    await engine.customers.create({ source_id: 'ana' })
    for (let i = 0; i < 5; i++) {
      await engine.vouchers.create({
        code: `ANA${i}`,
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'PERCENT', percent_off: 5 },
      })
      await engine.raw.publications.create({ customer: { source_id: 'ana' }, voucher: `ANA${i}` })
    }
    const body = {
      customer: { source_id: 'ana' },
      order: { items: products.slice(0, 10).map((id) => ({ product_id: id, quantity: 1 })) },
      options: { limit: 50 },
    }
    const cost = async () => {
      counter.reset()
      const before = memory.stats.rowsExamined
      const result = await engine.raw.qualifications.checkEligibility(body)
      expect(result.redeemables.total).toBe(15)
      return { rows: memory.stats.rowsExamined - before, depth: counter.depth }
    }
    await unreachable(1000)
    const small = await cost()
    await unreachable(4000)
    const large = await cost()
    expect(large.rows).toBe(small.rows)
    // The wallet (5 codes), the 10 tiers the cart reaches and their rule assignments.
    expect(small.rows).toBeLessThanOrEqual(30)
    // The customer; the wallet, the cart's catalogue entries and the collections holding them; the
    // tiers the cart reaches (with the wallet's codes); then the validation loader's three levels.
    expect(small.depth).toBeLessThanOrEqual(6)
  }, 120_000)
})
