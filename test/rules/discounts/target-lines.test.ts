import { describe, expect, it } from 'vitest'
import type { ApplicableToEntry } from '../../../src/model/validation-rule'
import { applyStep, normalizeOrder, selectTargets } from '../../../src/rules/discounts'
import { discount, product } from './helpers'

const order = normalizeOrder({
  items: [
    { product_id: 'shirt', sku_id: 'shirt-m', price: 3000, quantity: 2 },
    { product_id: 'shirt', sku_id: 'shirt-l', price: 2000, quantity: 3 },
    { product_id: 'cap', price: 2000, quantity: 1 },
    { product_id: 'mug', price: 1000, quantity: 4 },
  ],
})
const ctx = { once: false, unitScale: 1 }
const picks = (included: ApplicableToEntry[], excluded: ApplicableToEntry[] = []) =>
  selectTargets(order.items, { included, excluded }, ctx).picks.map((p) => [p.index, p.units])

describe('selectTargets', () => {
  it('a product entry covers its SKUs; a SKU entry only itself; excluded wins', () => {
    expect(picks([product('shirt')])).toEqual([
      [0, 2],
      [1, 3],
    ])
    expect(picks([{ object: 'sku', id: 'shirt-l' }])).toEqual([[1, 3]])
    expect(picks([product('shirt')], [{ object: 'sku', id: 'shirt-m' }])).toEqual([[1, 3]])
  })

  it('collections come resolved; excluded members stay out', () => {
    const sel = selectTargets(
      order.items,
      { included: [{ object: 'products_collection', id: 'summer' }], excluded: [product('mug')] },
      { ...ctx, collections: { summer: { products: ['cap', 'mug'], skus: ['shirt-l'] } } },
    )
    expect(sel.picks.map((p) => p.index)).toEqual([1, 2])
    expect(sel.inapplicable_to).toMatchObject({
      object: 'list',
      data_ref: 'data',
      total: 1,
      data: [{ id: 'mug', order_item_indices: [3], order_item_units: [{ index: 3, units: [1, 2, 3, 4] }] }],
    })
  })

  it('included_all: every line not excluded; no entries: every line', () => {
    const all = selectTargets(order.items, { included_all: true, excluded: [product('cap')] }, ctx)
    expect(all.picks.map((p) => p.index)).toEqual([0, 1, 3])
    expect(selectTargets(order.items, undefined, ctx).picks.length).toBe(4)
  })

  it('cheapest and most expensive: price, then lower subtotal, then request order', () => {
    // shirt-l (2000 × 3 = 6000) and cap (2000 × 1 = 2000) tie on price: the cap has the lower subtotal.
    const withEffect = (effect: NonNullable<ApplicableToEntry['effect']>, target: 'ITEM' | 'UNIT' = 'ITEM') =>
      selectTargets(
        order.items,
        { included: [{ object: 'products_collection', id: 'x', effect, target }] },
        { ...ctx, collections: { x: { products: ['shirt', 'cap'] } } },
      ).picks.map((p) => [p.index, p.units])
    expect(withEffect('APPLY_TO_CHEAPEST')).toEqual([[2, 1]])
    expect(withEffect('APPLY_TO_MOST_EXPENSIVE')).toEqual([[0, 2]])
    expect(withEffect('APPLY_TO_CHEAPEST', 'UNIT')).toEqual([[2, 1]])
    expect(withEffect('APPLY_FROM_CHEAPEST')).toEqual([
      [2, 1],
      [1, 3],
      [0, 2],
    ])
    expect(withEffect('APPLY_FROM_MOST_EXPENSIVE')).toEqual([
      [0, 2],
      [2, 1],
      [1, 3],
    ])
  })

  it('skip_initially 1, repeat 3 over 10 units picks units 2, 5, 8', () => {
    const ten = normalizeOrder({
      items: [
        { product_id: 'a', price: 100, quantity: 4 },
        { product_id: 'a', price: 100, quantity: 6 },
      ],
    })
    const sel = selectTargets(
      ten.items,
      { included: [product('a', { target: 'UNIT', skip_initially: 1, repeat: 3 })] },
      ctx,
    )
    expect(sel.picks.map((p) => [p.index, p.units])).toEqual([
      [0, 1],
      [1, 2],
    ])
    expect(sel.applicable_to.data[0]?.order_item_units).toEqual([
      { index: 0, units: [2], units_limit_exceeded: false },
      { index: 1, units: [1, 4], units_limit_exceeded: false },
    ])
  })

  it('ITEM target skip/repeat counts lines; quantity and aggregated quantity limits, tightest wins', () => {
    expect(picks([product('mug', { quantity_limit: 3 })])).toEqual([[3, 3]])
    expect(picks([product('shirt', { quantity_limit: 2, aggregated_quantity_limit: 3 })])).toEqual([
      [0, 2],
      [1, 1],
    ])
    expect(picks([{ object: 'products_collection', id: 'none' }])).toEqual([])
    const everyOther = selectTargets(order.items, { included_all: true }, ctx)
    expect(everyOther.picks.length).toBe(4)
    expect(
      selectTargets(order.items, { included: [product('shirt', { skip_initially: 1 })] }, ctx).picks.map(
        (p) => p.index,
      ),
    ).toEqual([1])
  })

  it('units are not listed when the order holds more than 1000 units', () => {
    const big = normalizeOrder({ items: [{ product_id: 'a', price: 1, quantity: 1001 }] })
    const sel = selectTargets(big.items, { included: [product('a')] }, ctx)
    expect(sel.applicable_to.data[0]?.order_item_units).toEqual([{ index: 0, units_limit_exceeded: true }])
  })

  it('amount_limit per line and aggregated_amount_limit per entry cap the discount', () => {
    const r = applyStep(
      order,
      discount(
        { type: 'PERCENT', percent_off: 50, effect: 'APPLY_TO_ITEMS' },
        { included: [product('shirt', { amount_limit: 2000, aggregated_amount_limit: 3500 }), product('mug')] },
      ),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([2000, 1500, 0, 2000])
    expect(r.applicable_to.total).toBe(2)
  })
})
