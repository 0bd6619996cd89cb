import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

/** Worked example: a promotion stack of two tiers, the amount derived from the items. */
describe('promotion stack (two tiers)', () => {
  async function e03() {
    const t = testEngine()
    const campaign = await t.engine.promotions.create({
      name: 'Stacked tiers',
      promotion: {
        tiers: [
          { name: '10%', action: { discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' } } },
          { name: '$5', action: { discount: { type: 'AMOUNT', amount_off: 500, effect: 'APPLY_TO_ORDER' } } },
        ],
      },
    })
    const ids = campaign.promotion.tiers.map((tier) => tier.id)
    const stack = await t.engine.promotions.stacks.createInCampaign(campaign.id, {
      name: 'Both',
      tiers: { ids, hierarchy_mode: 'MANUAL' },
    })
    const body = {
      redeemables: [{ object: 'promotion_stack', id: stack.id }],
      order: {
        items: [
          { price: 200000, quantity: 1 },
          { price: 200000, quantity: 1 },
        ],
      },
    }
    return { ...t, ids, stack, body }
  }

  it('validates: 400000 from the items, 10% then 500 on the running total', async () => {
    const { engine, body, ids } = await e03()
    const result = await engine.raw.validations.validateStackable(body)
    expect(result.valid).toBe(true)
    expect(result.redeemables.map((r) => [r.id, r.status])).toEqual([
      [ids[0], 'APPLICABLE'],
      [ids[1], 'APPLICABLE'],
    ])
    expect(result.redeemables[0]?.order).toMatchObject({
      amount: 400000,
      applied_discount_amount: 40000,
      total_amount: 360000,
    })
    expect(result.redeemables[1]?.order).toMatchObject({
      applied_discount_amount: 500,
      discount_amount: 40500,
      total_amount: 359500,
    })
    expect(result.order).toMatchObject({ amount: 400000, discount_amount: 40500, total_amount: 359500 })
  })

  it('redeems: a parent related to the promotion stack with two stacked children', async () => {
    const { engine, body, stack, ids } = await e03()
    const redemption = await engine.raw.redemptions.redeemStackable(body)
    expect(redemption.parent_redemption).toMatchObject({
      related_object_type: 'promotion_stack',
      related_object_id: stack.id,
      result: 'SUCCESS',
    })
    expect(redemption.redemptions.map((r) => [r.related_object_type, r.related_object_id])).toEqual([
      ['promotion_tier', ids[0]],
      ['promotion_tier', ids[1]],
    ])
    expect(redemption.order.redemptions?.[redemption.parent_redemption.id]?.stacked).toEqual(
      redemption.redemptions.map((r) => r.id),
    )
    expect(redemption.order).toMatchObject({ amount: 400000, total_discount_amount: 40500, total_amount: 359500 })
  })
})

/** A session-locked 20% coupon; redeeming with the key gives the same numbers and releases it. */
describe('session-locked 20% coupon', () => {
  async function e04() {
    const t = testEngine()
    await t.engine.vouchers.create({
      code: 'LOCK20',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ORDER' },
      redemption: { quantity: 1 },
    })
    return t
  }

  it('locks with a generated ssn_ key for 7 DAYS, and the redemption with the key releases it', async () => {
    const { engine, store } = await e04()
    const validation = await engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'LOCK20' }],
      order: { amount: 200000 },
      session: { type: 'LOCK' },
    })
    expect(validation.order).toMatchObject({ discount_amount: 40000, total_amount: 160000 })
    expect(validation.session).toEqual({ key: expect.stringMatching(/^ssn_/), type: 'LOCK', ttl: 7, ttl_unit: 'DAYS' })
    const key = validation.session?.key as string
    const [lock] = (await store.sessions.list()).data
    expect(lock?.value).toMatchObject({ key, released_at: null, expires_at: '2026-01-22T10:00:00.000Z' })

    // Another request without the key sees the only use locked.
    const other = await engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'LOCK20' }],
      order: { amount: 200000 },
    })
    expect(other.inapplicable_redeemables[0]?.result).toMatchObject({ error: { key: 'quantity_exceeded' } })

    const redemption = await engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'LOCK20' }],
      order: { amount: 200000 },
      session: { type: 'LOCK', key },
    })
    expect(redemption.order).toMatchObject({ discount_amount: 40000, total_amount: 160000, status: 'PAID' })
    expect(redemption.redemptions[0]?.session).toEqual({ key })
    expect((await store.sessions.list()).data[0]?.value.released_at).toBe('2026-01-15T10:00:00.000Z')
    expect((await engine.vouchers.get('LOCK20')).redemption.redeemed_quantity).toBe(1)
  })
})

/** A 1000 coupon on a stored order of 10000 that already carries 9200 of discounts applies 800. */
describe('apply a discount to an existing order', () => {
  it('continues the stored order: applied 800, discount 10000, total 0', async () => {
    const { engine } = testEngine()
    await engine.vouchers.create({
      code: 'FIRST9200',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 9200, effect: 'APPLY_TO_ORDER' },
    })
    await engine.vouchers.create({
      code: 'THEN1000',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' },
    })
    const first = await engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'FIRST9200' }],
      order: { amount: 10000 },
    })
    expect(first.order).toMatchObject({ amount: 10000, total_discount_amount: 9200, total_amount: 800 })

    const body = { redeemables: [{ object: 'voucher', id: 'THEN1000' }], order: { id: first.order.id } }
    const validation = await engine.raw.validations.validateStackable(body)
    expect(validation.redeemables[0]?.order).toMatchObject({
      applied_discount_amount: 800,
      discount_amount: 10000,
      total_discount_amount: 10000,
      total_amount: 0,
    })
    const second = await engine.raw.redemptions.redeemStackable(body)
    expect(second.order).toMatchObject({
      id: first.order.id,
      amount: 10000,
      discount_amount: 10000,
      total_discount_amount: 10000,
      total_amount: 0,
    })
    expect(Object.keys(second.order.redemptions ?? {})).toEqual([
      first.parent_redemption.id,
      second.parent_redemption.id,
    ])
  })
})
