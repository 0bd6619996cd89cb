import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MemoryStore } from '../../src/memory'
import { testEngine } from '../support/engine'
import { ALL_FAMILIES, feedMatchesStore, hotShop, operationsOf, outcomeOf, tally } from '../support/hot-rows'

/*
 * Shared rows under concurrent distinct customers, on the memory store (docs/storage.md#shared-rows):
 * in a shop with an auto-join loyalty program, each family's N concurrent requests by N new customers
 * give exactly what fits, never a 409, at most 1.2 commits per request, and the change feed holds
 * exactly what was committed. The same families run on PostgreSQL from 4 processes
 * (test/postgres/hot-rows.test.ts).
 */

describe('rows shared by distinct customers, default options', () => {
  for (const family of ALL_FAMILIES) {
    it(`${family.name}: N concurrent customers get what fits, 0 × 409, ≤ ${family.commitsPerRequest ?? 1.2} commits per request`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(1, 7, 60, 200), async (n) => {
          const { engine, store } = testEngine()
          const shop = await hotShop(engine)
          const customers = Array.from({ length: n }, (_, i) => `cust-${i}`)
          for (const c of customers) await family.before?.(engine, shop, c)
          const commits = (store as MemoryStore).stats.commits
          const outcomes = await Promise.all(customers.map((c) => outcomeOf(() => family.request(engine, shop, c))))
          const spent = (store as MemoryStore).stats.commits - commits
          expect(tally(outcomes)).toEqual(family.expected(n))
          expect(spent).toBeLessThanOrEqual(
            Math.ceil((family.commitsPerRequest ?? 1.2) * operationsOf(family, customers)),
          )
          await family.check?.(engine, shop, n)
          await feedMatchesStore(store)
        }),
        { numRuns: 4 },
      )
      // Up to 4 shops and 200 customers at once: seconds on a loaded machine.
    }, 60_000)
  }
})

describe('requests creating the same new customer', () => {
  it('two requests naming one new source_id both succeed against one customer row, for every pair of kinds', async () => {
    const { engine, store } = testEngine()
    const shop = await hotShop(engine)
    const kinds = [
      (c: string, i: number) =>
        engine.customers.create({ source_id: c, name: `Name ${i}`, metadata: { [`k${i}`]: i } }),
      (c: string) =>
        engine.redemptions.redeemStackable({
          customer: { source_id: c },
          order: { amount: 10_000 },
          redeemables: [{ object: 'voucher', id: shop.quantityCode }],
        }),
      (c: string) => engine.orders.create({ customer: { source_id: c }, status: 'PAID', amount: 1000 }),
      (c: string) => engine.publications.create({ campaign: shop.coupons, customer: { source_id: c } }),
    ]
    const pairs = kinds.flatMap((a, i) => kinds.map((b, j) => ({ a, b, customer: `new-${i}-${j}` })))
    // Every pair at once: 32 requests, 16 new customers.
    const outcomes = await Promise.all(
      pairs.flatMap(({ a, b, customer }) => [outcomeOf(() => a(customer, 0)), outcomeOf(() => b(customer, 1))]),
    )
    expect(tally(outcomes)).toEqual({ ok: 2 * pairs.length })
    for (const { a, b, customer } of pairs) {
      // One row: `source_id` is the customers' natural key, so a second insert could never commit.
      const found = await store.customers.findBy('source_id', customer)
      expect(found).toBeDefined()
      // Both upserts' metadata keys land: fields are set, not the row rewritten at a version.
      const metadata = found?.value.metadata ?? {}
      if (a === kinds[0]) expect(metadata.k0).toBe(0)
      if (b === kinds[0]) expect(metadata.k1).toBe(1)
      // At most one card in the auto-join program, however many paid orders enrolled them at once.
      const cards = await store.vouchers.list({ where: { campaign_id: shop.club, holder_id: found?.value.id ?? '' } })
      expect(cards.data.length).toBeLessThanOrEqual(1)
    }
    await feedMatchesStore(store)
  })
})

describe('two redeemables of one campaign in one request', () => {
  it('count together against its budget: with room for one, the second is refused, never both counted', async () => {
    const { engine, store } = testEngine()
    const campaign = await engine.campaigns.create({
      name: 'One left',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
      vouchers_count: 3,
    })
    const rule = await engine.validationRules.create({
      name: 'at most 2',
      rules: { '1': { name: 'campaign.redemptions.count', conditions: { $less_than_or_equal: [2] } } },
    })
    await engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'campaign',
      related_object_id: campaign.id,
    })
    const codes = (await store.vouchers.list({ where: { campaign_id: campaign.id } })).data.map((s) => s.value.code)
    const redeem = (ids: string[]) =>
      engine.redemptions.redeemStackable({
        customer: { source_id: 'ana' },
        order: { amount: 10_000 },
        redeemables: ids.map((id) => ({ object: 'voucher' as const, id })),
      })
    expect((await redeem([codes[0] as string])).parent_redemption.result).toBe('SUCCESS')
    // One left: two codes of the campaign at once do not both fit.
    const both = await redeem([codes[1] as string, codes[2] as string])
    expect(both.parent_redemption.result).toBe('FAILURE')
    expect((await redeem([codes[1] as string])).parent_redemption.result).toBe('SUCCESS')
    const counter = await store.counters.get(`c:${campaign.id}`)
    expect(counter?.value.count).toBe(2)
  })
})
