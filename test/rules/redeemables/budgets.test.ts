import { describe, expect, it } from 'vitest'
import type { CalculatedOrderItem } from '../../../src/model/order'
import type { ApplicableToEntry } from '../../../src/model/validation-rule'
import { normalizeOrder } from '../../../src/rules/discounts'
import {
  hasUnitBudget,
  unitCounterIds,
  unitCounterWrites,
  unitLimitsOf,
  unitRoomOf,
  unitsTaken,
  unitUseFromRows,
} from '../../../src/rules/redeemables'
import type { Counter } from '../../../src/storage/ports'

/** Lines with `applied_discount_quantity` set as a redeemable's step leaves them. */
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
const alexInTier = { campaign: 'camp', tier: 'tier_1', customer: 'alex' }

const rows = (counts: Record<string, number>): Map<string, Counter> =>
  new Map(Object.entries(counts).map(([id, count]) => [id, { id, count }]))

describe('unit budgets: counter rows', () => {
  it('hasUnitBudget: a value or a formula', () => {
    expect(entries.map(hasUnitBudget)).toEqual([true, true, false])
    expect(hasUnitBudget({ object: 'sku', id: 's', product_promotion_tier_quantity_limit_formula: '2' })).toBe(true)
  })

  it('reads the rows of budgeted entries and of the members the order holds', () => {
    expect(unitCounterIds(entries, alexInTier, lines(['mug', 0], ['tee', 0], ['pen', 0]), collections)).toEqual([
      'u:camp:product/mug',
      'uc:camp:product/mug:alex',
      'ut:tier_1:product/mug',
      'utc:tier_1:product/mug:alex',
      'u:camp:products_collection/merch',
      'uc:camp:products_collection/merch:alex',
      'ut:tier_1:products_collection/merch',
      'utc:tier_1:products_collection/merch:alex',
      'um:camp:products_collection/merch:tee',
      'umc:camp:products_collection/merch:tee:alex',
    ])
    // A code, an unknown customer: the campaign rows only.
    expect(
      unitCounterIds(entries.slice(0, 1), { campaign: 'camp', tier: null, customer: null }, lines(['mug', 0]), {}),
    ).toEqual(['u:camp:product/mug'])
  })

  it('what each line adds counts for the first matching entry, per customer, tier and member', () => {
    const taken = unitsTaken(entries, alexInTier, lines(['mug', 3], ['tee', 5], ['pen', 2], ['cap', 0]), collections)
    expect(Object.fromEntries(taken)).toEqual({
      'u:camp:product/mug': 3,
      'uc:camp:product/mug:alex': 3,
      'ut:tier_1:product/mug': 3,
      'utc:tier_1:product/mug:alex': 3,
      'u:camp:products_collection/merch': 5,
      'uc:camp:products_collection/merch:alex': 5,
      'ut:tier_1:products_collection/merch': 5,
      'utc:tier_1:products_collection/merch:alex': 5,
      'um:camp:products_collection/merch:tee': 5,
      'umc:camp:products_collection/merch:tee:alex': 5,
    })
  })

  it('use from the rows plus what the request took before; room is the tightest budget left', () => {
    const items = lines(['mug', 0], ['tee', 0], ['cap', 0])
    const stored = rows({
      'u:camp:product/mug': 5,
      'uc:camp:product/mug:alex': 3,
      'um:camp:products_collection/merch:tee': 6,
    })
    const pending = new Map([['uc:camp:product/mug:alex', 1]])
    const code = { campaign: 'camp', tier: null, customer: 'alex' }
    const used = unitUseFromRows(entries, code, stored, items, collections, pending)
    expect(used[0]).toMatchObject({ campaign: 5, customer_campaign: 4 })
    expect(used[1]).toMatchObject({ campaign: 0, members_campaign: { tee: 6 }, members_customer_campaign: {} })
    expect(used[2]).toBeUndefined()
    const limits = unitLimitsOf(entries, false, undefined, [])
    expect(limits).toEqual([{ campaign: 10, customer_campaign: 4 }, { member: 5 }, undefined])
    expect(unitRoomOf(used, limits)).toEqual([{ units: 0 }, { member_default: 5, members: { tee: 0 } }, undefined])
    // Tier budgets bind promotion tiers only.
    const tierOnly: ApplicableToEntry[] = [{ object: 'product', id: 'mug', product_promotion_tier_quantity_limit: 4 }]
    const none = unitUseFromRows(tierOnly, code, new Map(), items, undefined)
    expect(unitRoomOf(none, unitLimitsOf(tierOnly, false, undefined, []))).toEqual([undefined])
    expect(unitRoomOf(none, unitLimitsOf(tierOnly, true, undefined, []))).toEqual([{ units: 4 }])
  })

  it('writes each row it adds to, guarded by the limit the decision used for that row', () => {
    const code = { campaign: 'camp', tier: null, customer: 'alex' }
    const limits = unitLimitsOf(entries, false, undefined, [])
    const writes = unitCounterWrites(entries, code, lines(['mug', 2], ['cap', 1], ['pen', 4]), collections, limits)
    expect(writes).toEqual([
      { id: 'u:camp:product/mug', by: { count: 2 }, guard: { count: { max: 10 } } },
      { id: 'uc:camp:product/mug:alex', by: { count: 2 }, guard: { count: { max: 4 } } },
      { id: 'u:camp:products_collection/merch', by: { count: 1 } },
      { id: 'uc:camp:products_collection/merch:alex', by: { count: 1 } },
      { id: 'um:camp:products_collection/merch:cap', by: { count: 1 }, guard: { count: { max: 5 } } },
      { id: 'umc:camp:products_collection/merch:cap:alex', by: { count: 1 } },
    ])
    expect(unitCounterWrites(entries, code, lines(['pen', 4]), collections, limits)).toEqual([])
  })
})
