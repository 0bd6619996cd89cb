import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'

type T = ReturnType<typeof testEngine>

// docs/behaviour.md#formulas: a formula sets the discount's value; the static value is the fallback.
async function coupon(t: T, code: string, discount: Record<string, unknown>, metadata?: Record<string, unknown>) {
  return t.engine.raw.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount, ...(metadata ? { metadata } : {}) })
}

describe('amount_off_formula', () => {
  const discount = {
    type: 'AMOUNT',
    amount_off: 500,
    amount_off_formula: 'MIN(ORDER_AMOUNT x 0.1; 50)',
    effect: 'APPLY_TO_ORDER',
  }

  it('10% of the order in major units, to the cent, rounded once half-up', async () => {
    const t = testEngine()
    await coupon(t, 'TEN', discount)
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { amount: 12345 },
    })
    const r = result.redeemables[0]
    // 123.45 × 0.1 = 12.345 → 1234.5 cents → 1235.
    expect(r?.result).toEqual({ discount: { ...discount, amount_off: 1235, is_dynamic: true } })
    expect(r?.formulas).toEqual([{ field: 'amount_off', formula: discount.amount_off_formula, value: 1235 }])
    expect(result.order.total_amount).toBe(11110)
  })

  it('capped at 50.00 by MIN', async () => {
    const t = testEngine()
    await coupon(t, 'TEN', discount)
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { amount: 100000 },
    })
    expect(result.order.discount_amount).toBe(5000)
  })

  it('reads the order as left by the redeemables before it', async () => {
    const t = testEngine()
    await coupon(t, 'FIRST', { type: 'AMOUNT', amount_off: 2345, effect: 'APPLY_TO_ORDER' })
    await coupon(t, 'TEN', {
      ...discount,
      amount_off_formula: 'ROUND((ORDER_AMOUNT - 23.45) x 0.1; 2)',
    })
    const result = await t.engine.validations.validateStackable({
      redeemables: [
        { object: 'voucher', id: 'FIRST' },
        { object: 'voucher', id: 'TEN' },
      ],
      order: { amount: 12345 },
    })
    expect(result.redeemables.map((r) => r.order?.applied_discount_amount)).toEqual([2345, 1000])
  })

  it('a formula reading REDEEMABLE_METADATA and REDEMPTION_METADATA', async () => {
    const t = testEngine()
    await coupon(
      t,
      'META',
      { ...discount, amount_off_formula: 'REDEEMABLE_METADATA("base") + REDEMPTION_METADATA("extra")' },
      { base: 3 },
    )
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'META' }],
      order: { amount: 10000 },
      metadata: { extra: 1.5 },
    })
    expect(result.order.discount_amount).toBe(450)
  })
})

describe('percent_off_formula from CUSTOMER_METADATA', () => {
  const discount = {
    type: 'PERCENT',
    percent_off: 5,
    percent_off_formula: 'MIN(CUSTOMER_METADATA("loyalty_pct"); 20)',
    effect: 'APPLY_TO_ORDER',
  }

  it('the customer metadata sets the percentage', async () => {
    const t = testEngine()
    await coupon(t, 'PCT', discount)
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'PCT' }],
      order: { amount: 10099 },
      customer: { source_id: 'c1', metadata: { loyalty_pct: 12.5 } },
    })
    // 12.5% of 10099 = 1262.375 → 1262.
    expect(result.order.discount_amount).toBe(1262)
    expect(result.redeemables[0]?.result).toEqual({ discount: { ...discount, percent_off: 12.5, is_dynamic: true } })
  })

  it('missing metadata: the static percent_off applies, and the result says why', async () => {
    const t = testEngine()
    await coupon(t, 'PCT', discount)
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'PCT' }],
      order: { amount: 10000 },
      customer: { source_id: 'c1', metadata: {} },
    })
    expect(result.order.discount_amount).toBe(500)
    expect(result.redeemables[0]?.formulas).toEqual([
      {
        field: 'percent_off',
        formula: discount.percent_off_formula,
        value: 5,
        fallback: {
          code: 'missing_value',
          message: 'CUSTOMER_METADATA("loyalty_pct") is not set (at 4)',
          position: 4,
        },
      },
    ])
  })
})

describe('FIXED per-unit price_formula', () => {
  it('each matched line gets its own new price; the fallback price where the formula fails', async () => {
    const t = testEngine()
    const v = await coupon(t, 'NEWPRICE', { type: 'FIXED', fixed_amount: 0, effect: 'APPLY_TO_ITEMS' })
    const rule = await t.engine.validationRules.create({
      name: 'Shirts at 80%, rounded to 10 cents down',
      rules: {},
      applicable_to: {
        included: [
          {
            object: 'product',
            id: 'prod_shirt',
            price: 1000,
            price_formula: 'FLOOR(ORDER_ITEM_PRICE x 0.8 - ORDER_ITEM_METADATA("markdown"); 1)',
            effect: 'APPLY_TO_EVERY',
          },
        ],
      },
    })
    await t.engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'voucher',
      related_object_id: v.id,
    })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'NEWPRICE' }],
      order: {
        items: [
          { product_id: 'prod_shirt', price: 2599, quantity: 2, metadata: { markdown: 0 } }, // 20.792 → 20.70
          { product_id: 'prod_shirt', price: 1500, quantity: 1 }, // no markdown → price 10.00
          { product_id: 'prod_hat', price: 900, quantity: 1 },
        ],
      },
    })
    expect(result.order.items?.map((i) => i.applied_discount_amount)).toEqual([2 * (2599 - 2070), 500, 0])
    const r = result.redeemables[0]
    expect(r?.result).toMatchObject({ discount: { type: 'FIXED', is_dynamic: true } })
    expect(r?.formulas?.map((f) => [f.field, f.value, f.fallback?.code])).toEqual([
      ['order.items[0].price', 2070, undefined],
      ['order.items[1].price', 1000, 'missing_value'],
    ])
  })
})

describe('amount_off_formula reading the line', () => {
  it('ORDER_ITEM_PRICE × 0.01 + 1 off each matched line: 6.00 → 1.06, 10.00 → 1.10', async () => {
    const t = testEngine()
    await coupon(t, 'PERLINE', {
      type: 'AMOUNT',
      amount_off: 0,
      amount_off_formula: 'ORDER_ITEM_PRICE × 0.01 + 1',
      effect: 'APPLY_TO_ITEMS',
    })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'PERLINE' }],
      order: {
        items: [
          { product_id: 'a', price: 600, quantity: 1 },
          { product_id: 'b', price: 1000, quantity: 1 },
        ],
      },
    })
    expect(result.order.items?.map((i) => i.applied_discount_amount)).toEqual([106, 110])
  })
})
