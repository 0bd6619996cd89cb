import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

/** Worked example: gift card 100 credits, then a 20% coupon, then an $80 promotion tier. */
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

describe('gift card + 20% coupon + $80 promotion tier', () => {
  it('validates with a cumulative snapshot after each redeemable', async () => {
    const { engine, body } = await e01()
    const result = await engine.raw.validations.validateStackable(body)
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

describe('redemption and rollback', () => {
  it('redeems: a parent with three stacked children, the order PAID, the gift card charged', async () => {
    const { engine, body, tierId } = await e01()
    const redemption = await engine.raw.redemptions.redeemStackable(body)
    expect(redemption.parent_redemption).toMatchObject({ result: 'SUCCESS', status: 'SUCCEEDED', redemption: null })
    expect(redemption.redemptions.map((r) => [r.related_object_type, r.result, r.redemption])).toEqual([
      ['voucher', 'SUCCESS', redemption.parent_redemption.id],
      ['voucher', 'SUCCESS', redemption.parent_redemption.id],
      ['promotion_tier', 'SUCCESS', redemption.parent_redemption.id],
    ])
    expect(redemption.redemptions[0]).toMatchObject({ amount: 100, gift: { amount: 100 } })
    expect(redemption.order).toMatchObject({ status: 'PAID', total_amount: 151920, total_discount_amount: 48080 })
    expect(redemption.order.redemptions?.[redemption.parent_redemption.id]).toMatchObject({
      related_object_type: 'redemption',
      stacked: redemption.redemptions.map((r) => r.id),
    })
    const gift = await engine.vouchers.get('dBj56oqJ')
    expect(gift.gift).toMatchObject({ amount: 20500, balance: 20400 })
    expect(gift.redemption).toMatchObject({ redeemed_quantity: 1, redeemed_amount: 100 })
    expect((await engine.vouchers.get('39vnjyS8')).redemption.redeemed_quantity).toBe(1)
    expect((await engine.promotions.tiers.get(tierId)).summary).toEqual({
      redemptions: { total_redeemed: 1 },
      orders: { total_amount: 200000, total_discount_amount: 8000 },
    })
  })

  it('rolls back: negative amounts, every counter and balance restored, the order CANCELED', async () => {
    const { engine, body, tierId } = await e01()
    const redemption = await engine.raw.redemptions.redeemStackable(body)
    const rollback = await engine.redemptions.rollbackStackable(redemption.parent_redemption.id, { reason: 'refund' })
    expect(rollback.rollbacks.map((r) => r.amount)).toEqual([-100, undefined, undefined])
    expect(rollback.rollbacks[0]?.gift).toEqual({ amount: -100 })
    expect(rollback.order).toMatchObject({
      status: 'CANCELED',
      amount: 200000,
      total_discount_amount: 0,
      total_amount: 200000,
    })
    const gift = await engine.vouchers.get('dBj56oqJ')
    expect(gift.gift).toMatchObject({ balance: 20500 })
    expect(gift.redemption).toMatchObject({ redeemed_quantity: 0, redeemed_amount: 0 })
    expect((await engine.promotions.tiers.get(tierId)).summary.redemptions.total_redeemed).toBe(0)
    expect(await engine.redemptions.get(redemption.parent_redemption.id)).toMatchObject({ status: 'ROLLED_BACK' })
    await expect(engine.redemptions.rollbackStackable(redemption.parent_redemption.id)).rejects.toMatchObject({
      key: 'already_rolled_back',
    })
    await expect(engine.redemptions.rollbackStackable(redemption.redemptions[0]?.id as string)).rejects.toMatchObject({
      key: 'invalid_redemption_parent',
    })
  })
})
