import { describe, expect, it } from 'vitest'
import { toDiscountTargeting } from '../../../src/rules/conditions/expand-collections'

describe('toDiscountTargeting', () => {
  const collections = { pcol_1: { products: ['prod_a'], skus: ['sku_b'] } }

  it('expands a collection into its products and SKUs with the same settings', () => {
    expect(
      toDiscountTargeting(
        {
          included: [
            { object: 'products_collection', id: 'pcol_1', effect: 'APPLY_TO_EVERY', quantity_limit: 2 },
            { object: 'product', id: 'prod_c', effect: 'APPLY_TO_CHEAPEST' },
          ],
          excluded: [{ object: 'sku', id: 'sku_x' }],
          included_all: false,
        },
        collections,
      ),
    ).toEqual({
      included: [
        { object: 'product', id: 'prod_a', effect: 'APPLY_TO_EVERY', quantity_limit: 2 },
        { object: 'sku', id: 'sku_b', effect: 'APPLY_TO_EVERY', quantity_limit: 2 },
        { object: 'product', id: 'prod_c', effect: 'APPLY_TO_CHEAPEST' },
      ],
      excluded: [{ object: 'sku', id: 'sku_x' }],
      included_all: false,
    })
  })

  it('keeps an unknown collection, or every collection when expansion is off', () => {
    const entry = { object: 'products_collection' as const, id: 'pcol_9' }
    expect(toDiscountTargeting({ included: [entry] }, collections)).toEqual({ included: [entry] })
    const known = { object: 'products_collection' as const, id: 'pcol_1' }
    expect(toDiscountTargeting({ excluded: [known] }, collections, { expandCollections: false })).toEqual({
      excluded: [known],
    })
    expect(toDiscountTargeting(undefined)).toEqual({})
  })
})
