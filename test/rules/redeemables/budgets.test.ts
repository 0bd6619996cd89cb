import { describe, expect, it } from 'vitest'
import type { CalculatedOrderItem } from '../../../src/model/order'
import type { ApplicableToEntry } from '../../../src/model/validation-rule'
import { normalizeOrder } from '../../../src/rules/discounts'
import { countUnitsUsed, hasUnitBudget, unitRoomOf } from '../../../src/rules/redeemables'

/** Past lines with `applied_discount_quantity` set as a stored child redemption records it. */
function lines(...spec: [product: string, discounted: number][]): CalculatedOrderItem[] {
  const items = normalizeOrder({ items: spec.map(([product_id]) => ({ product_id, price: 1000, quantity: 9 })) }).items
  return items.map((item, i) => ({ ...item, applied_discount_quantity: spec[i]?.[1] ?? 0 }))
}

const collections = { merch: { products: ['tee', 'cap'] } }
const entries: ApplicableToEntry[] = [
  { object: 'product', id: 'mug', product_campaign_quantity_limit: 10, product_customer_campaign_quantity_limit: 4 },
  { object: 'products_collection', id: 'merch', product_in_collection_campaign_quantity_limit: 5 },
  { object: 'product', id: 'pen' },
]

describe('unit budgets: counting past redemptions', () => {
  it('hasUnitBudget: a value or a formula', () => {
    expect(entries.map(hasUnitBudget)).toEqual([true, true, false])
    expect(hasUnitBudget({ object: 'sku', id: 's', product_promotion_tier_quantity_limit_formula: '2' })).toBe(true)
  })

  it('counts each past line for the first matching entry, per customer and per tier', () => {
    const used = countUnitsUsed(
      entries,
      [
        { customer_id: 'alex', related_object_id: 'tier_1', items: lines(['mug', 3], ['tee', 5], ['pen', 2]) },
        { customer_id: 'bobby', related_object_id: 'tier_2', items: lines(['mug', 2], ['cap', 1]) },
      ],
      { tier_id: 'tier_1', customer_id: 'alex' },
      collections,
    )
    expect(used).toEqual([
      {
        campaign: 5,
        customer_campaign: 3,
        promotion_tier: 3,
        customer_promotion_tier: 3,
        members_campaign: {},
        members_customer_campaign: {},
      },
      {
        campaign: 6,
        customer_campaign: 5,
        promotion_tier: 5,
        customer_promotion_tier: 5,
        members_campaign: { tee: 5, cap: 1 },
        members_customer_campaign: { tee: 5 },
      },
      undefined,
    ])
  })

  it('room: the tightest budget left, never below zero; tier budgets bind tiers only', () => {
    const used = countUnitsUsed(
      entries,
      [{ customer_id: 'alex', related_object_id: 'v', items: lines(['mug', 3], ['tee', 6]) }],
      { tier_id: null, customer_id: 'alex' },
      collections,
    )
    expect(unitRoomOf(entries, used, false, undefined, [])).toEqual([
      { units: 1 },
      { member_default: 5, members: { tee: 0 } },
      undefined,
    ])
    const tierOnly: ApplicableToEntry[] = [{ object: 'product', id: 'mug', product_promotion_tier_quantity_limit: 4 }]
    const tierUsed = countUnitsUsed(tierOnly, [], { tier_id: null, customer_id: null }, undefined)
    expect(unitRoomOf(tierOnly, tierUsed, false, undefined, [])).toEqual([undefined])
    expect(unitRoomOf(tierOnly, tierUsed, true, undefined, [])).toEqual([{ units: 4 }])
  })
})
