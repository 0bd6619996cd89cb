import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

/** reference/examples.md E-01: gift card 100 credits, then a 20% coupon, then an $80 promotion tier. */
async function e01() {
  const t = testEngine()
  const { engine } = t
  await engine.vouchers.create({ code: 'dBj56oqJ', type: 'GIFT_VOUCHER', gift: { amount: 20500 } })
  await engine.vouchers.create({
    code: '39vnjyS8',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ORDER' },
  })
  const promotion = await engine.promotions.create({
    name: 'Eighty off',
    promotion: {
      tiers: [
        { name: '$80 off', action: { discount: { type: 'AMOUNT', amount_off: 8000, effect: 'APPLY_TO_ORDER' } } },
      ],
    },
  })
  const tierId = promotion.promotion.tiers[0]?.id as string
  const body = {
    customer: { source_id: 'alice' },
    order: { amount: 200000 },
    redeemables: [
      { object: 'voucher', id: 'dBj56oqJ', gift: { credits: 100 } },
      { object: 'voucher', id: '39vnjyS8' },
      { object: 'promotion_tier', id: tierId },
    ],
  }
  return { ...t, body, tierId }
}

describe('E-01 gift card + 20% coupon + $80 promotion tier', () => {
  it('validates with a cumulative snapshot after each redeemable', async () => {
    const { engine, body } = await e01()
    const result = await engine.validations.validateStackable(body)
    expect(result.valid).toBe(true)
    expect(result.redeemables.map((r) => r.status)).toEqual(['APPLICABLE', 'APPLICABLE', 'APPLICABLE'])
    const rows = result.redeemables.map((r) => [
      r.order?.discount_amount,
      r.order?.applied_discount_amount,
      r.order?.total_discount_amount,
      r.order?.total_amount,
    ])
    expect(rows).toEqual([
      [100, 100, 100, 199900],
      [40080, 39980, 40080, 159920],
      [48080, 8000, 48080, 151920],
    ])
    expect(result.order).toMatchObject({
      amount: 200000,
      discount_amount: 48080,
      applied_discount_amount: 48080,
      total_discount_amount: 48080,
      total_amount: 151920,
    })
    expect(result.redeemables[0]?.result).toEqual({ gift: { credits: 100, balance: 20500 } })
    expect(result.stacking_rules.redeemables_application_mode).toBe('ALL')
  })
})
