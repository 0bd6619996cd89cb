import { describe, expect, it } from 'vitest'
import { normalizeOrder, selectTargets } from '../../../src/rules/discounts'

const order = normalizeOrder({
  items: [
    { product_id: 'shirt', sku_id: 'shirt-m', price: 3000, quantity: 2 },
    { product_id: 'shirt', sku_id: 'shirt-l', price: 2000, quantity: 3 },
    { product_id: 'cap', price: 2000, quantity: 4 },
  ],
})
const collections = { merch: { products: ['cap'], skus: ['shirt-m', 'shirt-l'] } }

describe('selectTargets with unit budgets (room as plain data)', () => {
  it('entry room cuts units in application order, with the per-request limits: the tightest wins', () => {
    const sel = selectTargets(
      order.items,
      { included: [{ object: 'product', id: 'shirt', quantity_limit: 2 }] },
      { once: false, unitScale: 1, unitRoom: [{ units: 3 }] },
    )
    // Line 0: 2 units (limit 2, room 3 → 1 left); line 1: limit 2, room 1 → 1.
    expect(sel.picks.map((p) => [p.index, p.units])).toEqual([
      [0, 2],
      [1, 1],
    ])
    expect(sel.applicable_to.data[0]).toMatchObject({
      order_item_units: [
        { index: 0, units: [1, 2], units_limit_exceeded: false },
        { index: 1, units: [1], units_limit_exceeded: false },
      ],
      unit_budget: { remaining_units: 3, refused_units: 1 },
    })
  })

  it('bundles scale the per-request limits, never the budget', () => {
    const sel = selectTargets(
      order.items,
      { included: [{ object: 'product', id: 'cap', quantity_limit: 1 }] },
      { once: false, unitScale: 3, unitRoom: [{ units: 2 }] },
    )
    expect(sel.picks.map((p) => p.units)).toEqual([2])
  })

  it('collection members have a room each, SKU members by SKU id; unlisted members get the default', () => {
    const sel = selectTargets(
      order.items,
      { included: [{ object: 'products_collection', id: 'merch' }] },
      { once: false, unitScale: 1, collections, unitRoom: [{ members: { 'shirt-m': 0, cap: 1 }, member_default: 2 }] },
    )
    expect(sel.picks.map((p) => [p.index, p.units])).toEqual([
      [1, 2],
      [2, 1],
    ])
    expect(sel.applicable_to.data[0]?.unit_budget).toEqual({
      members: { 'shirt-m': 0, 'shirt-l': 2, cap: 1 },
      refused_units: 6,
    })
  })

  it('an entry without room, or no room at all, is not reported', () => {
    const sel = selectTargets(
      order.items,
      { included: [{ object: 'product', id: 'cap' }] },
      { once: false, unitScale: 1, unitRoom: [undefined] },
    )
    expect(sel.picks.map((p) => p.units)).toEqual([4])
    expect(sel.applicable_to.data[0]).not.toHaveProperty('unit_budget')
  })
})
