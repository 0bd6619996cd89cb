import { describe, expect, it } from 'vitest'
import type { CalculatedOrder } from '../../src/model/order'
import { testEngine } from '../support/engine'

/** The order's arithmetic holds: totals follow the lines. */
function consistent(order: CalculatedOrder | null | undefined) {
  if (!order) throw new Error('no order')
  const itemsDiscount = order.items.reduce((n, i) => n + i.discount_amount, 0)
  expect(order.items_discount_amount).toBe(itemsDiscount)
  expect(order.total_discount_amount).toBe(order.discount_amount + itemsDiscount)
  expect(order.total_amount).toBe(order.amount - order.total_discount_amount)
  expect(order.amount).toBe(order.items.reduce((n, i) => n + i.amount, 0))
}

async function setup() {
  const t = testEngine()
  const gift = await t.engine.products.create({ name: 'Gift', source_id: 'gift', price: 1500 })
  const gift2 = await t.engine.products.create({ name: 'Gift 2', source_id: 'gift2', price: 700 })
  await t.engine.vouchers.create({
    code: 'UNIT',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'UNIT', unit_off: 2, unit_type: gift.id, effect: 'ADD_NEW_ITEMS' },
  })
  await t.engine.vouchers.create({
    code: 'UNIT2',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'UNIT', unit_off: 1, unit_type: gift2.id, effect: 'ADD_NEW_ITEMS' },
  })
  return t
}

describe('WITH_ORDER rollbacks of orders that redemptions added units to', () => {
  it('takes the added units and their amount off the order', async () => {
    const { engine } = await setup()
    const redeemed = await engine.redemptions.redeemStackable({
      customer: { source_id: 'c1' },
      order: { items: [{ source_id: 'a', quantity: 1, price: 1000 }] },
      redeemables: [{ object: 'voucher', id: 'UNIT' }],
    })
    expect(redeemed.order).toMatchObject({ amount: 4000, total_discount_amount: 3000, total_amount: 1000 })
    const rollback = await engine.redemptions.rollbackStackable(redeemed.parent_redemption.id)
    expect(rollback.order).toMatchObject({
      status: 'CANCELED',
      amount: 1000,
      total_discount_amount: 0,
      total_amount: 1000,
    })
    expect(rollback.order?.items).toHaveLength(1)
    consistent(rollback.order)
  })

  it('rolls back two redemptions of one order in either order, matching lines by what they are', async () => {
    for (const order of [
      [0, 1],
      [1, 0],
    ]) {
      const { engine } = await setup()
      const body = (code: string, first: boolean) => ({
        customer: { source_id: 'c1' },
        order: first
          ? { source_id: 'o-1', status: 'CREATED', items: [{ source_id: 'a', quantity: 1, price: 1000 }] }
          : { source_id: 'o-1', status: 'CREATED' },
        redeemables: [{ object: 'voucher', id: code }],
      })
      const r1 = await engine.raw.redemptions.redeemStackable(body('UNIT', true))
      const r2 = await engine.raw.redemptions.redeemStackable(body('UNIT2', false))
      expect(r2.order).toMatchObject({ amount: 4700, total_discount_amount: 3700, total_amount: 1000 })
      consistent(r2.order)
      const ids = [r1.parent_redemption.id, r2.parent_redemption.id]
      let last: CalculatedOrder | null = null
      for (const which of order) {
        const rb = await engine.redemptions.rollbackStackable(ids[which] as string)
        consistent(rb.order)
        last = rb.order
      }
      expect(last).toMatchObject({ amount: 1000, total_discount_amount: 0, total_amount: 1000 })
      expect(last?.items.map((i) => i.source_id)).toEqual(['a'])
    }
  })

  it('gives a promotion tier back exactly what its redemption added to the summary', async () => {
    const { engine } = await setup()
    const promotion = await engine.promotions.create({
      name: 'Five off',
      promotion: { tiers: [{ name: '5 off', action: { discount: { type: 'AMOUNT', amount_off: 500 } } }] },
    })
    const tier = promotion.promotion.tiers[0]?.id as string
    const redeemed = await engine.redemptions.redeemStackable({
      customer: { source_id: 'c1' },
      order: { items: [{ source_id: 'a', quantity: 1, price: 1000 }] },
      redeemables: [
        { object: 'promotion_tier', id: tier },
        { object: 'voucher', id: 'UNIT' },
      ],
    })
    expect((await engine.promotions.tiers.get(tier)).summary.redemptions.total_redeemed).toBe(1)
    await engine.redemptions.rollbackStackable(redeemed.parent_redemption.id)
    expect((await engine.promotions.tiers.get(tier)).summary).toEqual({
      redemptions: { total_redeemed: 0 },
      orders: { total_amount: 0, total_discount_amount: 0 },
    })
  })
})
