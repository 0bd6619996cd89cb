import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

type T = ReturnType<typeof testEngine>

/**
 * Worked example: the legacy client helper's unit tests (voucherify-nodejs-sdk
 * `test/utils.spec.js`), in major units there, as engine literals in cents here. This is not server
 * behaviour; it checks the engine gives the same numbers for the same situation:
 * - "base price 50" is the cart: one order of 5000 cents;
 * - AMOUNT and PERCENT are order-level discounts (APPLY_TO_ORDER) on it;
 * - UNIT `unit_off 1` at "unit price 20" is one unit of a product priced 2000 that is already in the
 *   cart (a 2000 line plus a 3000 line), discounted by ADD_MISSING_ITEMS: nothing is added, so the
 *   cart stays 5000 and the unit comes off it. (ADD_NEW_ITEMS would add a 2000 unit and a cart of
 *   7000 → 5000, which is not the helper's "price 30.00".)
 * The helper rounds half-up at the cent (`Math.round(v * 100.001) / 100`); the engine's default
 * rounding is half-up too.
 */

async function validate(t: T, discount: Record<string, unknown>, items: Record<string, unknown>[]) {
  await t.engine.raw.vouchers.create({ code: 'E16', type: 'DISCOUNT_VOUCHER', discount })
  const r = await t.engine.validations.validateStackable({
    redeemables: [{ object: 'voucher', id: 'E16' }],
    order: { items },
  })
  expect(r.redeemables[0]?.status).toBe('APPLICABLE')
  const o = r.order as NonNullable<typeof r.order>
  return { amount: o.amount, discount: o.total_discount_amount, price: o.total_amount }
}

const cart = [{ product_id: 'prod_base', price: 5000, quantity: 1 }]

describe('legacy helper numbers (cents)', () => {
  it('AMOUNT amount_off 1000 on 5000 → discount 1000, new price 4000', async () => {
    const r = await validate(testEngine(), { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' }, cart)
    expect(r).toEqual({ amount: 5000, discount: 1000, price: 4000 })
  })

  it('PERCENT 10 on 5000 → discount 500, price 4500', async () => {
    const r = await validate(testEngine(), { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' }, cart)
    expect(r).toEqual({ amount: 5000, discount: 500, price: 4500 })
  })

  it('UNIT unit_off 1 of a 2000 product already in the 5000 cart (ADD_MISSING_ITEMS) → discount 2000, price 3000', async () => {
    const t = testEngine()
    const unit = await t.engine.products.create({ source_id: 'unit', name: 'Unit', price: 2000 })
    const r = await validate(t, { type: 'UNIT', unit_off: 1, unit_type: unit.id, effect: 'ADD_MISSING_ITEMS' }, [
      { product_id: unit.id, price: 2000, quantity: 1 },
      { product_id: 'prod_rest', price: 3000, quantity: 1 },
    ])
    expect(r).toEqual({ amount: 5000, discount: 2000, price: 3000 })
  })

  it('the caps: AMOUNT at the base (6000 off 5000 → 5000); PERCENT by amount_limit (10% capped at 300)', async () => {
    const amount = await validate(testEngine(), { type: 'AMOUNT', amount_off: 6000, effect: 'APPLY_TO_ORDER' }, cart)
    expect(amount).toEqual({ amount: 5000, discount: 5000, price: 0 })
    const percent = await validate(
      testEngine(),
      { type: 'PERCENT', percent_off: 10, amount_limit: 300, effect: 'APPLY_TO_ORDER' },
      cart,
    )
    expect(percent).toEqual({ amount: 5000, discount: 300, price: 4700 })
  })

  it('half-up at the cent, as Math.round(v * 100.001): 10% of 40.05 → 4.01 (401 cents)', async () => {
    const r = await validate(testEngine(), { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' }, [
      { product_id: 'prod_base', price: 4005, quantity: 1 },
    ])
    expect(r).toEqual({ amount: 4005, discount: 401, price: 3604 })
  })
})
