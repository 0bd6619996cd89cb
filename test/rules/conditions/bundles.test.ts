import { describe, expect, it } from 'vitest'
import type { BundleRules } from '../../../src/model/validation-rule'
import { evaluateBundle } from '../../../src/rules/conditions/bundles'

const part = (id: string, object: 'product' | 'sku' | 'products_collection', units = 1) => ({
  name: 'order.items.any',
  conditions: {
    $is: [{ id, type: object === 'products_collection' ? 'products_collection' : 'product_or_sku', object }],
  },
  rules: { '1': { name: 'order.items.quantity', conditions: { $more_than_or_equal: [units] } } },
})

describe('evaluateBundle (examples.md F)', () => {
  it('lip balm + hand cream × 5 bundles', () => {
    const rules: BundleRules = {
      limit: 5,
      '1': part('prod_lip_balm', 'product'),
      '2': part('prod_hand_cream', 'product'),
    }
    const items = [
      { product_id: 'prod_lip_balm', price: 500, quantity: 5 },
      { product_id: 'prod_hand_cream', price: 900, quantity: 6 },
    ]
    expect(evaluateBundle(rules, items)).toEqual({
      quantity: 5,
      limit: 5,
      identified: [
        { id: 'prod_lip_balm', object: 'product', item_index: 0, item_quantity: 5 },
        { id: 'prod_hand_cream', object: 'product', item_index: 1, item_quantity: 5 },
      ],
      missing: [],
    })
  })

  it('the limit caps the count', () => {
    const rules: BundleRules = {
      limit: 3,
      '1': part('prod_lip_balm', 'product'),
      '2': part('prod_hand_cream', 'product'),
    }
    const items = [
      { product_id: 'prod_lip_balm', quantity: 5 },
      { product_id: 'prod_hand_cream', quantity: 5 },
    ]
    expect(evaluateBundle(rules, items).quantity).toBe(3)
  })

  it('laptop + bag: 2 laptops and 2 bags make 2 bundles; a missing bag gives 0 and names it', () => {
    const rules: BundleRules = { limit: 10, '1': part('prod_laptop', 'product'), '2': part('prod_bag', 'product') }
    expect(
      evaluateBundle(rules, [
        { product_id: 'prod_laptop', quantity: 2 },
        { product_id: 'prod_bag', quantity: 2 },
        { product_id: 'prod_mouse', quantity: 3 },
      ]).quantity,
    ).toBe(2)
    expect(evaluateBundle(rules, [{ product_id: 'prod_laptop', quantity: 2 }])).toEqual({
      quantity: 0,
      limit: 10,
      identified: [{ id: 'prod_laptop', object: 'product', item_index: 0, item_quantity: 1 }],
      missing: [{ id: 'prod_bag', object: 'product', item_quantity: 1 }],
    })
  })

  it('crisps: 2 packs per bundle, 4 packs give 2 bundles; 3 packs give 1', () => {
    const rules: BundleRules = { limit: 5, '1': part('prod_crisps', 'product', 2) }
    expect(evaluateBundle(rules, [{ product_id: 'prod_crisps', quantity: 4 }]).quantity).toBe(2)
    expect(evaluateBundle(rules, [{ product_id: 'prod_crisps', quantity: 3 }])).toEqual({
      quantity: 1,
      limit: 5,
      identified: [{ id: 'prod_crisps', object: 'product', item_index: 0, item_quantity: 2 }],
      missing: [],
    })
    expect(evaluateBundle(rules, [{ product_id: 'prod_crisps', quantity: 1 }]).missing).toEqual([
      { id: 'prod_crisps', object: 'product', item_quantity: 1 },
    ])
  })

  it('collects units across lines, from SKUs and collections, each unit counted once', () => {
    const rules: BundleRules = {
      limit: 10,
      '1': part('pcol_drinks', 'products_collection', 2),
      '2': part('sku_ticket_vip', 'sku'),
    }
    const items = [
      { product_id: 'prod_cola', price: 200, quantity: 1 },
      { product_id: 'prod_ticket', sku_id: 'sku_ticket_vip', price: 1000, quantity: 2 },
      { product_id: 'prod_juice', price: 300, quantity: 2 },
    ]
    const collections = { pcol_drinks: { products: ['prod_cola', 'prod_juice'], skus: [] } }
    expect(evaluateBundle(rules, items, collections)).toEqual({
      quantity: 1,
      limit: 10,
      identified: [
        { id: 'prod_cola', object: 'product', item_index: 0, item_quantity: 1 },
        { id: 'prod_juice', object: 'product', item_index: 2, item_quantity: 1 },
        { id: 'sku_ticket_vip', object: 'sku', item_index: 1, item_quantity: 1 },
      ],
      missing: [],
    })
  })

  it('an unknown collection is missing; no limit means one bundle', () => {
    const rules: BundleRules = { '1': part('pcol_unknown', 'products_collection') }
    expect(evaluateBundle(rules, [{ product_id: 'prod_cola', quantity: 3 }])).toEqual({
      quantity: 0,
      limit: 1,
      identified: [],
      missing: [{ id: 'pcol_unknown', object: 'products_collection', item_quantity: 1 }],
    })
  })

  it('overlapping parts do not count the same unit twice', () => {
    const rules: BundleRules = { limit: 5, '1': part('prod_a', 'product'), '2': part('prod_a', 'product') }
    expect(evaluateBundle(rules, [{ product_id: 'prod_a', quantity: 3 }]).quantity).toBe(1)
  })
})
