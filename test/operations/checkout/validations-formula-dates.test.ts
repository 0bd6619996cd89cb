import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'

// docs/behaviour.md#formulas: date operands in dynamic formulas, read on the engine's clock and in its zone.
describe('a birthday-month discount', () => {
  const discount = {
    type: 'PERCENT',
    percent_off: 5,
    percent_off_formula: 'IF(MONTH(CUSTOMER_BIRTHDATE) = MONTH(TODAY); 15; 5)',
    effect: 'APPLY_TO_ORDER',
  }

  async function setup(birthdate: string | null) {
    const t = testEngine() // clock at 2026-01-15T10:00Z, zone UTC
    await t.engine.raw.vouchers.create({ code: 'BDAY', type: 'DISCOUNT_VOUCHER', discount })
    await t.engine.customers.create({ source_id: 'ana', ...(birthdate === null ? {} : { birthdate }) })
    return t
  }

  it('15% in the customer’s birth month, 5% in another month', async () => {
    const t = await setup('1990-01-28')
    const request = {
      redeemables: [{ object: 'voucher' as const, id: 'BDAY' }],
      order: { amount: 10000 },
      customer: { source_id: 'ana' },
    }
    const january = await t.engine.validations.validateStackable(request)
    expect(january.order.discount_amount).toBe(1500)
    expect(january.redeemables[0]?.formulas).toEqual([
      { field: 'percent_off', formula: discount.percent_off_formula, value: 15 },
    ])
    t.clock.set('2026-02-01T10:00:00.000Z')
    const february = await t.engine.validations.validateStackable(request)
    expect(february.order.discount_amount).toBe(500)
  })

  it('a customer the store does not know yet: the birthdate the request gives', async () => {
    const t = testEngine()
    await t.engine.raw.vouchers.create({ code: 'BDAY', type: 'DISCOUNT_VOUCHER', discount })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'BDAY' }],
      order: { amount: 10000 },
      customer: { source_id: 'new', birthdate: '2001-01-02' },
    })
    expect(result.order.discount_amount).toBe(1500)
  })

  it('no birthdate: the static 5% applies and the result says why', async () => {
    const t = await setup(null)
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'BDAY' }],
      order: { amount: 10000 },
      customer: { source_id: 'ana' },
    })
    expect(result.order.discount_amount).toBe(500)
    expect(result.redeemables[0]?.formulas).toEqual([
      {
        field: 'percent_off',
        formula: discount.percent_off_formula,
        value: 5,
        fallback: { code: 'missing_value', message: 'CUSTOMER_BIRTHDATE is not set (at 9)', position: 9 },
      },
    ])
  })
})

describe('DAYS_UNTIL(VOUCHER_EXPIRATION_DATE) in Europe/Warsaw', () => {
  it('a euro off per Warsaw day left: one less at Warsaw midnight (23:00 UTC), not UTC midnight', async () => {
    const t = testEngine({ timezone: 'Europe/Warsaw' })
    await t.engine.vouchers.create({
      code: 'HURRY',
      type: 'DISCOUNT_VOUCHER',
      // 00:30 on 21 January in Warsaw.
      expiration_date: '2026-01-20T23:30:00.000Z',
      discount: {
        type: 'AMOUNT',
        amount_off: 0,
        amount_off_formula: 'DAYS_UNTIL(VOUCHER_EXPIRATION_DATE)',
        effect: 'APPLY_TO_ORDER',
      },
    })
    const request = { redeemables: [{ object: 'voucher' as const, id: 'HURRY' }], order: { amount: 10000 } }
    t.clock.set('2026-01-15T22:59:00.000Z') // 23:59 on the 15th in Warsaw
    expect((await t.engine.validations.validateStackable(request)).order.discount_amount).toBe(600)
    t.clock.set('2026-01-15T23:00:00.000Z') // 00:00 on the 16th in Warsaw
    expect((await t.engine.validations.validateStackable(request)).order.discount_amount).toBe(500)
  })
})

describe('a promotion tier reads its own dates and the day of the month', () => {
  it('IF(DAY_OF_MONTH(TODAY) = 15; 20; 10) percent, and DAYS_SINCE(PROMOTION_TIER_START_DATE)', async () => {
    const t = testEngine()
    const promo = await t.engine.promotions.create({
      name: 'Mid-month',
      campaign_type: 'PROMOTION',
      promotion: {
        tiers: [
          {
            name: 'Mid',
            start_date: '2026-01-05T00:00:00.000Z',
            action: {
              discount: {
                type: 'AMOUNT',
                amount_off: 100,
                amount_off_formula: 'IF(DAY_OF_MONTH(TODAY) = 15; 20; 10) + DAYS_SINCE(PROMOTION_TIER_START_DATE)',
                effect: 'APPLY_TO_ORDER',
              },
            },
          },
        ],
      },
    })
    const id = promo.promotion.tiers[0]?.id ?? ''
    const request = { redeemables: [{ object: 'promotion_tier' as const, id }], order: { amount: 10000 } }
    expect((await t.engine.validations.validateStackable(request)).order.discount_amount).toBe(3000) // 20 + 10 days
    t.clock.set('2026-01-16T10:00:00.000Z')
    expect((await t.engine.validations.validateStackable(request)).order.discount_amount).toBe(2100) // 10 + 11 days
  })
})
