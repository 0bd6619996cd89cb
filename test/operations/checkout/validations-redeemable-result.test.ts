import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'

type T = ReturnType<typeof testEngine>

async function coupon(t: T, code: string, discount: Record<string, unknown>) {
  return t.engine.raw.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount })
}

async function targeted(t: T, voucherId: string, applicableTo: Record<string, unknown>) {
  const rule = await t.engine.validationRules.create({ name: 'Targets', rules: {}, applicable_to: applicableTo })
  await t.engine.validationRules.createAssignment(rule.id, {
    related_object_type: 'voucher',
    related_object_id: voucherId,
  })
}

const lines = {
  items: [
    { product_id: 'prod_a', price: 1000, quantity: 2 },
    { product_id: 'prod_b', price: 500, quantity: 1 },
  ],
}

describe('redeemable result: result.discount', () => {
  it('AMOUNT with no effect and no targets shows the default APPLY_TO_ORDER and is_dynamic false', async () => {
    const t = testEngine()
    await coupon(t, 'FIVE', { type: 'AMOUNT', amount_off: 500, aggregated_amount_limit: 300 })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'FIVE' }],
      order: { amount: 5000 },
    })
    expect(result.redeemables[0]?.result).toEqual({
      discount: {
        type: 'AMOUNT',
        amount_off: 500,
        aggregated_amount_limit: 300,
        effect: 'APPLY_TO_ORDER',
        is_dynamic: false,
      },
    })
  })

  it('PERCENT with no effect and targeted products shows APPLY_TO_ITEMS', async () => {
    const t = testEngine()
    const v = await coupon(t, 'TENPC', { type: 'PERCENT', percent_off: 10 })
    await targeted(t, v.id, { included: [{ object: 'product', id: 'prod_a' }] })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TENPC' }],
      order: lines,
    })
    expect(result.redeemables[0]?.result).toEqual({
      discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS', is_dynamic: false },
    })
    expect(result.order.total_discount_amount).toBe(200)
  })

  it('UNIT with no effect shows ADD_MISSING_ITEMS', async () => {
    const t = testEngine()
    await coupon(t, 'FREEA', { type: 'UNIT', unit_off: 1, unit_type: 'prod_a' })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'FREEA' }],
      order: lines,
    })
    expect(result.redeemables[0]?.result).toMatchObject({
      discount: { type: 'UNIT', unit_off: 1, unit_type: 'prod_a', effect: 'ADD_MISSING_ITEMS', is_dynamic: false },
    })
  })

  it('a stored effect is shown as stored', async () => {
    const t = testEngine()
    await coupon(t, 'PROP', { type: 'AMOUNT', amount_off: 300, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'PROP' }],
      order: lines,
    })
    expect(result.redeemables[0]?.result).toEqual({
      discount: { type: 'AMOUNT', amount_off: 300, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY', is_dynamic: false },
    })
  })

  it('a formula makes it dynamic and the resolved effect is shown too', async () => {
    const t = testEngine()
    await coupon(t, 'HALF', { type: 'AMOUNT', amount_off: 1, amount_off_formula: 'ORDER_AMOUNT / 2' })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'HALF' }],
      order: { amount: 4000 },
    })
    expect(result.redeemables[0]?.result).toEqual({
      discount: {
        type: 'AMOUNT',
        amount_off: 2000,
        amount_off_formula: 'ORDER_AMOUNT / 2',
        effect: 'APPLY_TO_ORDER',
        is_dynamic: true,
      },
    })
  })
})

describe('redeemable result: name with expand redeemable', () => {
  it('a campaign voucher shows its campaign name', async () => {
    const t = testEngine()
    await t.engine.campaigns.create({
      name: 'Spring',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 0,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    })
    await t.engine.vouchers.create({
      code: 'SPRING1',
      type: 'DISCOUNT_VOUCHER',
      campaign: 'Spring',
      discount: { type: 'AMOUNT', amount_off: 100 },
    })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'SPRING1' }],
      order: { amount: 5000 },
      options: { expand: ['redeemable'] },
    })
    expect(result.redeemables[0]).toMatchObject({ campaign_name: 'Spring', name: 'Spring' })
  })
})

describe('redeemable result: applicable_to entries carry every stored field', () => {
  it('limits, price, repeat, skip_initially and source ids are echoed', async () => {
    const t = testEngine()
    const v = await coupon(t, 'LIM', { type: 'AMOUNT', amount_off: 300, effect: 'APPLY_TO_ITEMS' })
    const entry = {
      object: 'product',
      id: 'prod_a',
      source_id: 'a-src',
      product_id: 'prod_a',
      product_source_id: 'a-src',
      quantity_limit: 5,
      aggregated_quantity_limit: 10,
      amount_limit: 800,
      aggregated_amount_limit: 900,
      repeat: 2,
      skip_initially: 0,
    }
    await targeted(t, v.id, { included: [entry] })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'LIM' }],
      order: lines,
    })
    const data = result.redeemables[0]?.applicable_to?.data
    expect(data).toHaveLength(1)
    expect(data?.[0]).toMatchObject({
      ...entry,
      effect: 'APPLY_TO_EVERY',
      target: 'ITEM',
      order_item_indices: [0],
    })
  })
})
