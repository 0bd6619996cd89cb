import { describe, expect, it } from 'vitest'
import type { Customer } from '../../src/model/customer'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import { testEngine } from '../support/engine'

type T = ReturnType<typeof testEngine>

const fiveOff = { type: 'AMOUNT', amount_off: 500, effect: 'APPLY_TO_ORDER' } as const

async function tier(t: T, name = 'Five off') {
  const campaign = await t.engine.promotions.create({
    name,
    promotion: { tiers: [{ name, action: { discount: fiveOff } }] },
  })
  return campaign.promotion.tiers[0]?.id as string
}

/** Worked example: error payloads, exactly. */
describe('G unknown voucher, then a promotion tier (ALL)', () => {
  it('the voucher is not_found 404 with resource_id/resource_type; the tier is SKIPPED', async () => {
    const t = testEngine()
    const tierId = await tier(t)
    const result = await t.engine.validations.validateStackable({
      redeemables: [
        { object: 'voucher', id: 'eee33463' },
        { object: 'promotion_tier', id: tierId },
      ],
      order: { amount: 10000 },
    })
    expect(result.valid).toBe(false)
    expect(result.redeemables.map((r) => [r.id, r.status])).toEqual([
      ['eee33463', 'INAPPLICABLE'],
      [tierId, 'SKIPPED'],
    ])
    expect(result.redeemables[0]?.result).toMatchObject({
      error: {
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: 'Cannot find voucher with id eee33463',
        resource_id: 'eee33463',
        resource_type: 'voucher',
      },
    })
    expect(result.redeemables[0]?.explanation).toMatchObject({ check: 'exists' })
    expect(result.redeemables[1]?.result).toEqual({
      details: {
        key: 'preceding_validation_failed',
        message: 'Redeemable cannot be applied due to preceding validation failure',
      },
    })
    expect(result.order).toMatchObject({ total_discount_amount: 0, total_amount: 10000 })
  })
})

describe('G custom messages per rule (customer.segment and product.id)', () => {
  const SEGMENT_MESSAGE = "You can't get discount because you are not a new customer"
  const FALLBACK = 'You must buy IPhone and be our new customer to get this discount'

  async function setup() {
    const t = testEngine()
    const iphone = await t.engine.products.create({ name: 'iPhone', source_id: 'iphone', price: 100000 })
    const rule = await t.engine.validationRules.create({
      name: 'New customers buying an iPhone',
      error: { message: FALLBACK },
      rules: {
        '1': { name: 'customer.segment', conditions: { $is: ['seg_new'] }, error: { message: SEGMENT_MESSAGE } },
        '2': { name: 'product.id', conditions: { $is: [{ id: iphone.id, object: 'product' }] } },
        logic: '1 and 2',
      },
    })
    const voucher = await t.engine.vouchers.create({
      code: 'NEWIPHONE',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 10000, effect: 'APPLY_TO_ORDER' },
    })
    await t.engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'voucher',
      related_object_id: voucher.id,
    })
    await t.engine.customers.create({ source_id: 'newbie' })
    await t.engine.customers.create({ source_id: 'oldie' })
    // Segment membership is computed elsewhere; the test writes it straight to the store.
    const stored = (await t.store.customers.findBy('source_id', 'newbie')) as { value: Customer; version: number }
    await t.store.commit({
      writes: [
        {
          op: 'put',
          collection: 'customers',
          value: { ...stored.value, segments: ['seg_new'] },
          expectedVersion: stored.version,
          shape: currentShape('customers'),
        },
      ],
    })
    const body = (customer: string, items: unknown[]) => ({
      redeemables: [{ object: 'voucher', id: 'NEWIPHONE' }],
      customer: { source_id: customer },
      order: { items },
    })
    return { ...t, iphone, rule, body }
  }

  it('a segment failure returns rule 1’s message with customer_rules_violated', async () => {
    const { engine, iphone, rule, body } = await setup()
    const result = await engine.raw.validations.validateStackable(
      body('oldie', [{ product_id: iphone.id, price: 100000, quantity: 1 }]),
    )
    expect(result.valid).toBe(false)
    expect(result.redeemables[0]?.result).toMatchObject({
      error: {
        code: 400,
        key: 'customer_rules_violated',
        message: 'customer does not match segment rules',
        details: `Discount Coupon cannot be redeemed because of violated validation rules: ${rule.id}`,
        error: { message: SEGMENT_MESSAGE },
      },
    })
    expect(result.redeemables[0]?.explanation).toMatchObject({
      check: 'validation_rule',
      rule_id: rule.id,
      failures: [{ rule: '1', name: 'customer.segment', operator: '$is', expected: ['seg_new'], actual: [] }],
    })
  })

  it('a missing iPhone returns the fallback message with order_rules_violated', async () => {
    const { engine, rule, body } = await setup()
    const result = await engine.raw.validations.validateStackable(body('newbie', [{ price: 3000, quantity: 1 }]))
    expect(result.redeemables[0]?.result).toMatchObject({
      error: {
        code: 400,
        key: 'order_rules_violated',
        message: 'order does not match validation rules',
        details: `Discount Coupon cannot be redeemed because of violated validation rules: ${rule.id}`,
        error: { message: FALLBACK },
      },
    })
    expect(result.redeemables[0]?.explanation).toMatchObject({
      check: 'validation_rule',
      rule_id: rule.id,
      failures: [{ rule: '2', name: 'product.id', operator: '$is' }],
    })
  })

  it('passing both is valid with amount_off 10000', async () => {
    const { engine, iphone, body } = await setup()
    const result = await engine.raw.validations.validateStackable(
      body('newbie', [{ product_id: iphone.id, price: 100000, quantity: 1 }]),
    )
    expect(result.valid).toBe(true)
    expect(result.redeemables[0]?.result).toMatchObject({ discount: { type: 'AMOUNT', amount_off: 10000 } })
    expect(result.order).toMatchObject({ amount: 100000, total_discount_amount: 10000, total_amount: 90000 })
  })
})

describe('G failed redemptions', () => {
  it('a disabled voucher: failure_code voucher_disabled, "voucher is disabled"', async () => {
    const t = testEngine()
    await t.engine.vouchers.create({ code: 'OFF', type: 'DISCOUNT_VOUCHER', discount: fiveOff, active: false })
    const redemption = await t.engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'OFF' }],
      order: { amount: 1000 },
    })
    expect(redemption.parent_redemption).toMatchObject({
      result: 'FAILURE',
      status: 'FAILED',
      failure_code: 'voucher_disabled',
      failure_message: 'voucher is disabled',
    })
    expect(redemption.parent_redemption.id).toMatch(/^rf_/)
    expect(redemption.redemptions[0]).toMatchObject({
      result: 'FAILURE',
      failure_code: 'voucher_disabled',
      failure_message: 'voucher is disabled',
      redemption: redemption.parent_redemption.id,
    })
    expect(await t.engine.redemptions.get(redemption.parent_redemption.id)).toEqual(redemption.parent_redemption)
    expect((await t.engine.vouchers.get('OFF')).redemption.redeemed_quantity).toBe(0)
  })

  it('an inactive promotion tier: failure_code promotion_inactive, "Inactive Promotion"', async () => {
    const t = testEngine()
    const tierId = await tier(t)
    await t.engine.promotions.tiers.disable(tierId)
    const redemption = await t.engine.redemptions.redeemStackable({
      redeemables: [{ object: 'promotion_tier', id: tierId }],
      order: { amount: 1000 },
    })
    expect(redemption.parent_redemption).toMatchObject({
      result: 'FAILURE',
      failure_code: 'promotion_inactive',
      failure_message: 'Inactive Promotion',
    })
    expect(redemption.inapplicable_redeemables[0]?.result).toMatchObject({
      error: { key: 'promotion_inactive', details: `Promotion Tier with id: ${tierId} is disabled.` },
    })
    expect((await t.engine.promotions.tiers.get(tierId)).summary.redemptions.total_redeemed).toBe(0)
  })

  it('an unknown code: failure_code not_found, "Resource not found"', async () => {
    const t = testEngine()
    const redemption = await t.engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'NOPE' }],
      order: { amount: 1000 },
    })
    expect(redemption.parent_redemption).toMatchObject({
      failure_code: 'not_found',
      failure_message: 'Resource not found',
    })
  })

  it('a gift card without an amount: missing_amount', async () => {
    const t = testEngine()
    await t.engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 1000 } })
    const result = await t.engine.validations.validateStackable({ redeemables: [{ object: 'voucher', id: 'GIFT' }] })
    expect(result.redeemables[0]?.result).toMatchObject({
      error: {
        code: 400,
        key: 'missing_amount',
        message: 'Missing amount',
        details: 'Amount is required when redeeming a GIFT_VOUCHER',
      },
    })
  })
})
