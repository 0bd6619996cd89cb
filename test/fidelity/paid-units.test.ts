import { describe, expect, it } from 'vitest'
import { freeUnits } from '../../src/rules/earned-points'
import { member, programEarning } from '../operations/loyalty/fixtures'
import { testEngine } from '../support/engine'

const line = { quantity: 3, initial_quantity: 3, discount_quantity: 0, discount_amount: 0, price: 1000 }

describe('freeUnits: the units of a line the customer does not pay for', () => {
  it('no discount: none', () => expect(freeUnits(line)).toBe(0))
  it('ADD_NEW_ITEMS of 2 on a line of 3: the 2 added', () =>
    expect(freeUnits({ ...line, quantity: 5, discount_quantity: 2, discount_amount: 2000 })).toBe(2))
  it('ADD_MISSING_ITEMS of 3 on a line of 1: the 2 added and the 1 held, all free', () =>
    expect(freeUnits({ ...line, initial_quantity: 1, discount_quantity: 3, discount_amount: 3000 })).toBe(3))
  it('a free unit of a line already holding 3: 1', () =>
    expect(freeUnits({ ...line, discount_quantity: 1, discount_amount: 1000 })).toBe(1))
  it('10% off three units: none (they are paid for)', () =>
    expect(freeUnits({ ...line, discount_quantity: 3, discount_amount: 300 })).toBe(0))
  it('a whole added line (quantity 0 before): all of it', () =>
    expect(freeUnits({ ...line, quantity: 2, initial_quantity: 0, discount_quantity: 2, discount_amount: 2000 })).toBe(
      2,
    ))
})

describe('ORDER_ITEMS_QUANTITY earning counts only purchased units', () => {
  it('3 mugs bought + 1 free mug (ADD_NEW_ITEMS) earn for 3, not 4', async () => {
    const { engine } = testEngine()
    const club = await programEarning(engine, {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_ITEMS_QUANTITY',
      order_items: { quantity: { every: 1, points: 10, object: 'product', id: 'prod_mug' } },
    })
    const card = await member(engine, club.id)
    await engine.vouchers.create({
      code: 'FREE-MUG',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'UNIT', unit_off: 1, unit_type: 'prod_mug', effect: 'ADD_NEW_ITEMS' },
    })
    const redeemed = await engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'FREE-MUG' }],
      customer: { source_id: 'alice' },
      order: { status: 'PAID', items: [{ product_id: 'prod_mug', quantity: 3, price: 1000 }] },
    })
    expect(redeemed.order?.items?.[0]).toMatchObject({ quantity: 4, initial_quantity: 3, discount_quantity: 1 })
    expect((await engine.loyalties.getMember(club.id, card.id)).loyalty_card?.points).toBe(30)
  })
})
