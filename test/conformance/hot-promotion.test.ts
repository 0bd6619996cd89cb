import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

/**
 * The busiest objects of a shop: one promotion tier and one unlimited coupon that every checkout
 * redeems. Their counters are increments, so concurrent checkouts never conflict on them: all succeed
 * with the default retry budget, and the counters are exact.
 */
describe('a hot promotion tier and an unlimited coupon under concurrent checkouts', () => {
  it('40 concurrent redemptions all succeed and count exactly', async () => {
    const { engine } = testEngine()
    await engine.vouchers.create({
      code: 'EVERYONE',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
    })
    const promotion = await engine.promotions.create({
      name: 'Site-wide',
      promotion: { tiers: [{ name: '5% off', action: { discount: { type: 'PERCENT', percent_off: 5 } } }] },
    })
    const tier = promotion.promotion.tiers[0]?.id as string
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        engine.redemptions.redeemStackable({
          customer: { source_id: `shopper-${i}` },
          order: { amount: 10000 },
          redeemables: [
            { object: 'voucher', id: 'EVERYONE' },
            { object: 'promotion_tier', id: tier },
          ],
        }),
      ),
    )
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    expect((await engine.vouchers.get('EVERYONE')).redemption.redeemed_quantity).toBe(40)
    // Each checkout: 100 off, then 5% of 9900 = 495.
    expect((await engine.promotions.tiers.get(tier)).summary).toEqual({
      redemptions: { total_redeemed: 40 },
      orders: { total_amount: 400000, total_discount_amount: 40 * 495 },
    })
  })
})
