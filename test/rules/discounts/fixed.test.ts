import { describe, expect, it } from 'vitest'
import { applyStep, normalizeOrder } from '../../../src/rules/discounts'
import { discount, product } from './helpers'

const order = normalizeOrder({
  items: [
    { product_id: 'a', price: 1000, quantity: 3 },
    { product_id: 'b', price: 400, quantity: 2 },
  ],
})

describe('FIXED', () => {
  it('APPLY_TO_ORDER: the order costs the new price; never raised', () => {
    expect(
      applyStep(order, discount({ type: 'FIXED', fixed_amount: 2500, effect: 'APPLY_TO_ORDER' })).order,
    ).toMatchObject({
      discount_amount: 1300,
      total_amount: 2500,
    })
    expect(applyStep(order, discount({ type: 'FIXED', fixed_amount: 9000, effect: 'APPLY_TO_ORDER' })).effect).toBe(
      'no_effect',
    )
  })

  it('APPLY_TO_ITEMS: each chosen unit at the new price; cheaper units untouched', () => {
    const r = applyStep(
      order,
      discount({ type: 'FIXED', fixed_amount: 500 }, { included: [product('a'), product('b')] }),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([1500, 0])
    expect(r.order.items[0]?.subtotal_amount).toBe(1500)
  })

  it('a per-target price wins over fixed_amount; quantity_limit counts units', () => {
    const r = applyStep(
      order,
      discount({ type: 'FIXED', fixed_amount: 500 }, { included: [product('a', { price: 100, quantity_limit: 2 })] }),
    )
    expect(r.order.items[0]).toMatchObject({ discount_amount: 1800, discount_quantity: 2 })
  })

  it('a product price covers its SKUs', () => {
    const skus = normalizeOrder({
      items: [
        { product_id: 'p', sku_id: 's1', price: 900, quantity: 1 },
        { product_id: 'p', sku_id: 's2', price: 1100, quantity: 1 },
      ],
    })
    const r = applyStep(
      skus,
      discount({ type: 'FIXED', fixed_amount: 0 }, { included: [product('p', { price: 500 })] }),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([400, 600])
  })
})
