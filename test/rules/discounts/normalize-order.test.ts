import { describe, expect, it } from 'vitest'
import { EngineError } from '../../../src/errors'
import { normalizeOrder } from '../../../src/rules/discounts'

describe('normalizeOrder', () => {
  it('derives the amount from price × quantity and fills every calculated field', () => {
    const order = normalizeOrder({
      items: [
        { product_id: 'a', price: 250, quantity: '3' },
        { sku_id: 's', price: 100 },
      ],
    })
    expect(order).toMatchObject({ amount: 850, initial_amount: 850, total_amount: 850, total_discount_amount: 0 })
    expect(order.items[0]).toEqual({
      object: 'order_item',
      product_id: 'a',
      quantity: 3,
      discount_quantity: 0,
      initial_quantity: 3,
      amount: 750,
      discount_amount: 0,
      applied_discount_amount: 0,
      applied_discount_quantity: 0,
      applied_quantity: 0,
      applied_quantity_amount: 0,
      initial_amount: 750,
      price: 250,
      subtotal_amount: 750,
      metadata: {},
    })
    expect(order.items[1]?.quantity).toBe(1)
  })

  it('takes catalogue prices: SKU before product; an item with no price or amount adds nothing', () => {
    const order = normalizeOrder(
      {
        items: [
          { product_id: 'p', sku_id: 's', quantity: 2 },
          { product_id: 'p', quantity: 1 },
          { product_id: 'unknown', quantity: 4 },
        ],
      },
      { prices: { product: { p: 1000 }, sku: { s: 1200 } } },
    )
    expect(order.items.map((i) => i.amount)).toEqual([2400, 1000, 0])
    expect(order.amount).toBe(3400)
  })

  it('a declared amount wins; an amount-only line gets its mean unit price', () => {
    const order = normalizeOrder({ amount: 999, items: [{ amount: 1001, quantity: 2 }] })
    expect(order.amount).toBe(999)
    expect(order.items[0]?.price).toBe(501)
  })

  it('rejects bad amounts naming the field, and more than 500 items', () => {
    const bad = (f: () => unknown) => {
      try {
        f()
      } catch (e) {
        return (e as EngineError).path
      }
      return 'no error'
    }
    expect(bad(() => normalizeOrder({ items: [{ price: 1 }, { price: 1 }, { price: 1 }, { price: -5 }] }))).toBe(
      'order.items[3].price',
    )
    expect(bad(() => normalizeOrder({ items: [{ price: 1.5 }] }))).toBe('order.items[0].price')
    expect(bad(() => normalizeOrder({ items: [{ price: 1, quantity: '2.5' }] }))).toBe('order.items[0].quantity')
    expect(bad(() => normalizeOrder({ amount: 2 ** 53 }))).toBe('order.amount')
    expect(bad(() => normalizeOrder({ items: [{ price: 2 ** 40, quantity: 2 ** 20 }] }))).toBe('order.items[0].amount')
    expect(bad(() => normalizeOrder({ items: Array.from({ length: 501 }, () => ({ price: 1 })) }))).toBe('order.items')
    expect(() => normalizeOrder({ items: Array.from({ length: 500 }, () => ({ price: 1 })) })).not.toThrow()
    expect(() => normalizeOrder({ items: [{ price: -1 }] })).toThrow(EngineError)
  })

  it('does not mutate its input', () => {
    const input = { items: [{ product: { id: 'p', price: 300 }, quantity: 2 }] }
    const copy = structuredClone(input)
    const order = normalizeOrder(input)
    expect(input).toEqual(copy)
    expect(order.items[0]).toMatchObject({ product_id: 'p', amount: 600 })
  })

  it('keeps a declared item amount that differs from price × quantity, and a declared order amount', () => {
    const order = normalizeOrder({ amount: 50, items: [{ product_id: 'a', price: 1001, quantity: 3, amount: 2500 }] })
    expect(order.items[0]).toMatchObject({ price: 1001, quantity: 3, amount: 2500, initial_amount: 2500 })
    expect(order).toMatchObject({ amount: 50, initial_amount: 50, total_amount: 50 })
  })
})
