import { describe, expect, it } from 'vitest'
import { SHIPPING_PRODUCT_ID } from '../../../src/model/discount'
import { applyStep, normalizeOrder } from '../../../src/rules/discounts'
import { discount } from './helpers'

const order = normalizeOrder({
  items: [
    { product_id: 'shirt', price: 2000, quantity: 1 },
    { product_id: SHIPPING_PRODUCT_ID, price: 990, quantity: 1 },
  ],
})

describe('UNIT', () => {
  it('free shipping: ADD_MISSING_ITEMS (the default) discounts the shipping line already there', () => {
    const r = applyStep(order, discount({ type: 'UNIT', unit_off: 1, unit_type: SHIPPING_PRODUCT_ID }))
    expect(r.order.items[1]).toMatchObject({
      quantity: 1,
      applied_quantity: 0,
      discount_amount: 990,
      subtotal_amount: 0,
    })
    expect(r.order).toMatchObject({ amount: 2990, total_amount: 2000, items_discount_amount: 990 })
  })

  it('ADD_MISSING_ITEMS tops up: 1 shirt, 3 free → 2 added, 3 discounted', () => {
    const r = applyStep(order, discount({ type: 'UNIT', unit_off: 3, unit_type: 'shirt', effect: 'ADD_MISSING_ITEMS' }))
    expect(r.order.items[0]).toMatchObject({
      quantity: 3,
      initial_quantity: 1,
      amount: 6000,
      initial_amount: 2000,
      applied_quantity: 2,
      applied_quantity_amount: 4000,
      discount_amount: 6000,
      discount_quantity: 3,
    })
    expect(r.order).toMatchObject({ amount: 6990, initial_amount: 2990, total_amount: 990 })
    expect(r.applied.added_amount).toBe(4000)
  })

  it('ADD_NEW_ITEMS always adds; a product not in the order takes the caller catalogue price', () => {
    const r = applyStep(order, discount({ type: 'UNIT', unit_off: 2, unit_type: 'sticker', effect: 'ADD_NEW_ITEMS' }), {
      prices: { product: { sticker: 150 } },
    })
    expect(r.order.items[2]).toMatchObject({
      object: 'order_item',
      product_id: 'sticker',
      related_object: 'product',
      quantity: 2,
      initial_quantity: 0,
      price: 150,
      amount: 300,
      initial_amount: 0,
      discount_amount: 300,
    })
    expect(r.order).toMatchObject({ amount: 3290, total_amount: 2990 })
  })

  it('free shipping on an order without a shipping line adds one at price 0 by default: no effect', () => {
    const r = applyStep(
      normalizeOrder({ amount: 500 }),
      discount({ type: 'UNIT', unit_off: 1, unit_type: SHIPPING_PRODUCT_ID }),
    )
    expect(r.order.items[0]).toMatchObject({
      product_id: SHIPPING_PRODUCT_ID,
      quantity: 1,
      price: 0,
      discount_amount: 0,
    })
    expect(r.order.total_amount).toBe(500)
    expect(r.effect).toBe('applied') // a unit was added
  })
})
