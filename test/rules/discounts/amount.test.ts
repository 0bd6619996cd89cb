import { describe, expect, it } from 'vitest'
import { applyStep, normalizeOrder } from '../../../src/rules/discounts'
import { discount, product } from './helpers'

const order = normalizeOrder({
  items: [
    { product_id: 'a', price: 700, quantity: 1 },
    { product_id: 'b', price: 1000, quantity: 3 },
    { product_id: 'c', price: 333, quantity: 1 },
  ],
})
const abc = { included: [product('a'), product('b'), product('c')] }

describe('AMOUNT', () => {
  it('APPLY_TO_ORDER: capped at the remaining total', () => {
    const r = applyStep(order, discount({ type: 'AMOUNT', amount_off: 5000 }))
    expect(r.order).toMatchObject({ discount_amount: 4033, total_amount: 0, applied_discount_amount: 4033 })
    expect(r.effect).toBe('applied')
  })

  it('APPLY_TO_ITEMS: each line, capped at the line (700 line, 1000 off → 700)', () => {
    const r = applyStep(order, discount({ type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS' }, abc))
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([700, 1000, 333])
    expect(r.order.items.map((i) => i.subtotal_amount)).toEqual([0, 2000, 0])
    expect(r.order).toMatchObject({ items_discount_amount: 2033, discount_amount: 0, total_amount: 2000 })
  })

  it('APPLY_TO_ITEMS with aggregated_amount_limit: earlier lines keep theirs', () => {
    const r = applyStep(
      order,
      discount({ type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS', aggregated_amount_limit: 1200 }, abc),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([700, 500, 0])
  })

  it('APPLY_TO_ITEMS_BY_QUANTITY: per unit, with quantity limits', () => {
    const r = applyStep(
      order,
      discount(
        { type: 'AMOUNT', amount_off: 200, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' },
        { included: [product('b', { quantity_limit: 2 }), product('c')] },
      ),
    )
    expect(r.order.items.map((i) => [i.discount_amount, i.discount_quantity])).toEqual([
      [0, 0],
      [400, 2],
      [200, 1],
    ])
  })

  it('APPLY_TO_ITEMS_PROPORTIONALLY: by line amount, largest remainder, parts sum exactly', () => {
    // weights 700, 3000, 333 of 4033: 100 → 17.36, 74.39, 8.26 → 17, 74, 8 = 99; the 1 left goes to 0.39.
    const r = applyStep(
      order,
      discount({ type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' }, abc),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([17, 75, 8])
  })

  it('APPLY_TO_ITEMS_PROPORTIONALLY: a line that cannot take its share passes it on', () => {
    const r = applyStep(
      order,
      discount(
        { type: 'AMOUNT', amount_off: 3900, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' },
        {
          included: [product('a', { amount_limit: 100 }), product('b'), product('c')],
        },
      ),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([100, 3000, 333])
    expect(r.order.items_discount_amount).toBe(3433)
  })

  it('APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY: by units', () => {
    const r = applyStep(
      order,
      discount({ type: 'AMOUNT', amount_off: 500, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY' }, abc),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([100, 300, 100])
  })

  it('default effect: APPLY_TO_ITEMS with targets, APPLY_TO_ORDER without', () => {
    const withTargets = applyStep(order, discount({ type: 'AMOUNT', amount_off: 100 }, { excluded: [product('a')] }))
    expect(withTargets.order.items.map((i) => i.discount_amount)).toEqual([0, 100, 100])
    expect(withTargets.inapplicable_to.data[0]?.order_item_indices).toEqual([0])
    const orderLevel = applyStep(order, discount({ type: 'AMOUNT', amount_off: 100 }))
    expect(orderLevel.order.discount_amount).toBe(100)
    expect(orderLevel.order.items_discount_amount).toBe(0)
  })

  it('a zero discount is no_effect', () => {
    expect(applyStep(order, discount({ type: 'AMOUNT', amount_off: 0 })).effect).toBe('no_effect')
  })

  it('rejects a bad amount_off', () => {
    expect(() => applyStep(order, discount({ type: 'AMOUNT', amount_off: -1 }))).toThrow(
      expect.objectContaining({ path: 'discount.amount_off' }),
    )
  })
})
