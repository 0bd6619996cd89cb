import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import type { MemoryStore } from '../../../src/memory'
import { testEngine } from '../../support/engine'

/*
 * Two codes of one campaign in one request count together against every campaign-level limit
 * (docs/storage.md#counters): each is decided on the stored counters plus what the one before it adds.
 */

type Engine = ReturnType<typeof testEngine>['engine']

const PER_UNIT = { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' } as const

/** A coupon campaign of two codes with one validation rule assigned to the campaign. */
async function twoCodes(engine: Engine, rule: Record<string, unknown>) {
  const mug = await engine.products.create({ source_id: 'mug', name: 'Mug', price: 1000 })
  const campaign = await engine.campaigns.create({
    name: 'Two codes',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'STATIC',
    voucher: { type: 'DISCOUNT_VOUCHER', discount: PER_UNIT },
    vouchers_count: 2,
  })
  const created = await engine.raw.validationRules.create({ name: 'Limit', ...rule } as never)
  await engine.validationRules.createAssignment(created.id, {
    related_object_type: 'campaign',
    related_object_id: campaign.id,
  })
  const codes = await engineContext(engine).store.vouchers.list({ where: { campaign_id: campaign.id } })
  return { mug: mug.id, campaign: campaign.id, codes: codes.data.map((s) => s.value.code) }
}

const limitRule = (name: string, limit: number) => ({
  rules: { '1': { name, conditions: { $less_than_or_equal: [limit] } } },
})

async function redeemBoth(engine: Engine, shop: { mug: string; codes: string[] }, units = 1) {
  return engine.raw.redemptions.redeemStackable({
    redeemables: shop.codes.map((id) => ({ object: 'voucher', id })),
    customer: { source_id: 'ana' },
    order: { items: [{ product_id: shop.mug, quantity: units, price: 1000 }] },
  })
}

describe('two codes of one campaign in one request, against its limits', () => {
  const cases: [name: string, rule: Record<string, unknown>, both: boolean][] = [
    ['campaign.redemptions.count ≤ 1', limitRule('campaign.redemptions.count', 1), false],
    ['campaign.redemptions.count.daily ≤ 1', limitRule('campaign.redemptions.count.daily', 1), false],
    ['campaign.redemptions.count.monthly ≤ 1', limitRule('campaign.redemptions.count.monthly', 1), false],
    // One customer is one distinct customer, however many of its redemptions the request holds.
    ['campaign.redemptions.customers_count ≤ 1', limitRule('campaign.redemptions.customers_count', 1), true],
    ['campaign.orders.amount ≤ 1500 (orders of 1000)', limitRule('campaign.orders.amount', 1500), false],
    [
      'campaign.orders.amount_discounted ≤ 150 (100 off each)',
      limitRule('campaign.orders.amount_discounted', 150),
      false,
    ],
  ]
  for (const [name, rule, both] of cases) {
    it(`${name}: ${both ? 'both fit' : 'only one fits'}, in one commit`, async () => {
      const { engine, store } = testEngine()
      const shop = await twoCodes(engine, rule)
      const commits = (store as MemoryStore).stats.commits
      const r = await redeemBoth(engine, shop)
      expect((store as MemoryStore).stats.commits - commits).toBe(1)
      if (both) {
        expect(r.parent_redemption.result).toBe('SUCCESS')
        expect(r.redemptions.filter((c) => c.result === 'SUCCESS')).toHaveLength(2)
        return
      }
      // Counted together the second passes the limit: the request is refused (the default stacking
      // rules redeem all or nothing) and nothing is counted...
      expect(r.parent_redemption.result).toBe('FAILURE')
      expect((await store.counters.get(`c:${shop.campaign}`))?.value.count ?? 0).toBe(0)
      // ...while either code alone fits.
      const alone = await engine.redemptions.redeemStackable({
        redeemables: [{ object: 'voucher', id: shop.codes[1] as string }],
        customer: { source_id: 'ana' },
        order: { items: [{ product_id: shop.mug, quantity: 1, price: 1000 }] },
      })
      expect(alone.parent_redemption.result).toBe('SUCCESS')
    })
  }

  it('a unit budget of 3 units: the two codes share it (2 + 1), the rows count 3', async () => {
    const { engine, store } = testEngine()
    const mugId = (await engine.products.create({ source_id: 'cup', name: 'Cup', price: 1000 })).id
    const shop = await twoCodes(engine, {
      rules: {},
      applicable_to: { included: [{ object: 'product', id: mugId, product_campaign_quantity_limit: 3 }] },
    })
    const r = await engine.raw.redemptions.redeemStackable({
      redeemables: shop.codes.map((id) => ({ object: 'voucher', id })),
      customer: { source_id: 'ana' },
      order: { items: [{ product_id: mugId, quantity: 2, price: 1000 }] },
    })
    expect(r.parent_redemption.result).toBe('SUCCESS')
    // The first code discounts both units, the second the one unit the shared budget has left.
    expect(r.redemptions.map((c) => c.order?.items?.[0]?.discount_amount)).toEqual([200, 300])
    expect(r.order.items?.[0]?.discount_amount).toBe(300)
    const row = await store.counters.get(`u:${shop.campaign}:product/${mugId}`)
    expect(row?.value.count).toBe(3)
    // The child keeps what it counted, for its rollback; results leave the bookkeeping out.
    const stored = await store.redemptions.getMany(r.redemptions.map((c) => c.id))
    expect(stored.map((s) => s.value.unit_counts?.[`u:${shop.campaign}:product/${mugId}`])).toEqual([2, 1])
    expect(r.redemptions.some((c) => 'unit_counts' in c)).toBe(false)
    const listed = await engine.redemptions.get(r.redemptions[0]?.id as string)
    expect('unit_counts' in listed).toBe(false)
    // The budget is spent for the next customer.
    const next = await engine.raw.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: shop.codes[0] as string }],
      customer: { source_id: 'bo' },
      order: { items: [{ product_id: mugId, quantity: 2, price: 1000 }] },
    })
    expect(next.order?.items?.[0]?.discount_quantity).toBe(0)
  })
})
