import { describe, expect, it } from 'vitest'
import type { EarningLoyalty, EarningRule } from '../../src/model/loyalty'
import { calculateEarnedPoints, type EarningInput, selectEarningRules } from '../../src/rules/earned-points'

const order = (over: Partial<NonNullable<EarningInput['order']>> = {}): EarningInput => ({
  order: { amount: 45000, total_amount: 40000, metadata: {}, items: [], ...over },
})

describe('calculateEarnedPoints: FIXED and order amounts', () => {
  it('FIXED gives its points', () => {
    expect(calculateEarnedPoints({ type: 'FIXED', points: 5 }, order())).toBe(5)
  })

  it('ORDER_TOTAL_AMOUNT every 500 → 10 points on 45000 gives 900 (the webhook example)', () => {
    const rule: EarningLoyalty = {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_TOTAL_AMOUNT',
      order: { total_amount: { every: 500, points: 10 } },
    }
    expect(calculateEarnedPoints(rule, order({ total_amount: 45000 }))).toBe(900)
  })

  it('ORDER_AMOUNT floors: 45099 at every 1000 → 2 points gives 90', () => {
    const rule: EarningLoyalty = {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_AMOUNT',
      order: { amount: { every: 1000, points: 2 } },
    }
    expect(calculateEarnedPoints(rule, order({ amount: 45099 }))).toBe(90)
    expect(calculateEarnedPoints(rule, order({ amount: 999 }))).toBe(0)
    expect(calculateEarnedPoints(rule, order({ amount: -5000 }))).toBe(0)
    expect(calculateEarnedPoints(rule, order({ amount: null }))).toBe(0)
    expect(calculateEarnedPoints(rule, {})).toBe(0)
  })
})

describe('calculateEarnedPoints: metadata', () => {
  const orderMeta: EarningLoyalty = {
    type: 'PROPORTIONAL',
    calculation_type: 'ORDER_METADATA',
    order: { metadata: { every: 2, points: 1, property: 'number_of_store_visits' } },
  }
  it('ORDER_METADATA reads a numeric property', () => {
    expect(calculateEarnedPoints(orderMeta, order({ metadata: { number_of_store_visits: 7 } }))).toBe(3)
    expect(calculateEarnedPoints(orderMeta, order({ metadata: { number_of_store_visits: 7.9 } }))).toBe(3)
  })
  it('non-numeric or missing metadata gives 0', () => {
    expect(calculateEarnedPoints(orderMeta, order({ metadata: { number_of_store_visits: '7' } }))).toBe(0)
    expect(calculateEarnedPoints(orderMeta, order({ metadata: { other: 7 } }))).toBe(0)
    expect(calculateEarnedPoints(orderMeta, order({ metadata: { number_of_store_visits: Number.NaN } }))).toBe(0)
  })
  it('CUSTOMER_METADATA and CUSTOM_EVENT_METADATA', () => {
    const customer: EarningLoyalty = {
      type: 'PROPORTIONAL',
      calculation_type: 'CUSTOMER_METADATA',
      customer: { metadata: { every: 10, points: 3, property: 'age' } },
    }
    expect(calculateEarnedPoints(customer, { customer: { metadata: { age: 42 } } })).toBe(12)
    const event: EarningLoyalty = {
      type: 'PROPORTIONAL',
      calculation_type: 'CUSTOM_EVENT_METADATA',
      custom_event: { metadata: { every: 1, points: 5, property: 'stars' } },
    }
    expect(calculateEarnedPoints(event, { customEvent: { metadata: { stars: 4 } } })).toBe(20)
  })
})

describe('calculateEarnedPoints: order items', () => {
  const items = [
    { product_id: 'prod_a', sku_id: 'sku_a1', quantity: 2, amount: 4000, subtotal_amount: 3000 },
    { product_id: 'prod_a', sku_id: 'sku_a2', quantity: 1, amount: 2500, subtotal_amount: 2500 },
    { product_id: 'prod_b', sku_id: null, quantity: 3, amount: 9000, subtotal_amount: 8000 },
    { product_id: 'prod_a', sku_id: 'sku_a1', quantity: 1, amount: 2000, subtotal_amount: 0, free_quantity: 1 },
  ]
  const input: EarningInput = {
    order: { amount: 15500, items },
    collections: { col_1: { products: ['prod_b'], skus: ['sku_a2'] }, col_2: { products: ['prod_b'], skus: [] } },
  }

  it('ORDER_ITEMS_QUANTITY: a product matches its SKUs; free items are excluded', () => {
    const rule: EarningLoyalty = {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_ITEMS_QUANTITY',
      order_items: { quantity: { every: 1, points: 10, object: 'product', id: 'prod_a' } },
    }
    expect(calculateEarnedPoints(rule, input)).toBe(30)
  })

  it('ORDER_ITEMS_AMOUNT for one SKU', () => {
    const rule: EarningLoyalty = {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_ITEMS_AMOUNT',
      order_items: { amount: { every: 1000, points: 1, object: 'sku', id: 'sku_a1' } },
    }
    expect(calculateEarnedPoints(rule, input)).toBe(4)
  })

  it('ORDER_ITEMS_SUBTOTAL_AMOUNT for a collection (its products and SKUs)', () => {
    const rule: EarningLoyalty = {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_ITEMS_SUBTOTAL_AMOUNT',
      order_items: { subtotal_amount: { every: 1000, points: 1, object: 'products_collection', id: 'col_1' } },
    }
    // 2500 (sku_a2) + 8000 (prod_b) = 10500 → 10 points.
    expect(calculateEarnedPoints(rule, input)).toBe(10)
  })

  it('an item in several targeted collections counts once', () => {
    const rule: EarningLoyalty = {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_ITEMS_QUANTITY',
      order_items: {
        quantity: {
          every: 1,
          points: 1,
          applicable_to: [
            { object: 'products_collection', id: 'col_1' },
            { object: 'products_collection', id: 'col_2' },
          ],
        },
      },
    }
    // sku_a2 ×1 + prod_b ×3, prod_b in both collections counted once.
    expect(calculateEarnedPoints(rule, input)).toBe(4)
  })

  it('an unknown collection matches nothing', () => {
    const rule: EarningLoyalty = {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_ITEMS_QUANTITY',
      order_items: { quantity: { every: 1, points: 1, object: 'products_collection', id: 'col_x' } },
    }
    expect(calculateEarnedPoints(rule, input)).toBe(0)
  })
})

describe('calculateEarnedPoints: tier mappings', () => {
  const rule: EarningLoyalty = {
    type: 'PROPORTIONAL',
    calculation_type: 'ORDER_AMOUNT',
    order: { amount: { every: 100, points: 1 } },
  }
  it('MULTIPLY multiplies and floors', () => {
    expect(calculateEarnedPoints(rule, order({ amount: 4550 }), { type: 'MULTIPLY', multiplier: 3 })).toBe(135)
    expect(calculateEarnedPoints(rule, order({ amount: 4550 }), { type: 'MULTIPLY', multiplier: 1.5 })).toBe(67)
    expect(calculateEarnedPoints(rule, order({ amount: 4550 }), { type: 'MULTIPLY', multiplier: 0.1 })).toBe(4)
  })
  it('MULTIPLY is exact where floats are not (100 × 0.29 is 29, not 28.999…)', () => {
    expect(calculateEarnedPoints({ type: 'FIXED', points: 100 }, {}, { type: 'MULTIPLY', multiplier: 0.29 })).toBe(29)
    expect(calculateEarnedPoints({ type: 'FIXED', points: 2 ** 50 }, {}, { type: 'MULTIPLY', multiplier: 1.5 })).toBe(
      1688849860263936,
    )
  })
  it('CUSTOM gives its fixed points when the rule earns anything', () => {
    expect(calculateEarnedPoints(rule, order({ amount: 4550 }), { type: 'CUSTOM', points: 200 })).toBe(200)
    expect(calculateEarnedPoints(rule, order({ amount: 50 }), { type: 'CUSTOM', points: 200 })).toBe(0)
    expect(calculateEarnedPoints({ type: 'FIXED', points: 5 }, {}, { type: 'CUSTOM', points: 5 })).toBe(5)
  })
})

describe('selectEarningRules', () => {
  const base = (over: Partial<EarningRule>): EarningRule => ({
    id: 'ern_1',
    campaign_id: 'camp_1',
    validation_rule_id: null,
    loyalty: { type: 'FIXED', points: 1 },
    event: 'order.paid',
    source: { object_id: 'camp_1', object_type: 'campaign' },
    active: true,
    metadata: {},
    created_at: '2025-01-01T00:00:00Z',
    updated_at: null,
    object: 'earning_rule',
    ...over,
  })
  const rules = [
    base({ id: 'paid' }),
    base({ id: 'paid_inactive', active: false }),
    base({ id: 'paid_future', start_date: '2025-06-01T00:00:00Z' }),
    base({ id: 'paid_expired', expiration_date: '2025-03-01T00:00:00Z' }),
    base({ id: 'seg', event: 'customer.segment.entered', segment: { id: 'seg_1' } }),
    base({ id: 'tier_gold', event: 'customer.loyalty.tier.joined', loyalty_tier: { id: 'ltr_gold' } }),
    base({ id: 'tier_any', event: 'customer.loyalty.tier.joined', loyalty_tier: { id: '__ANY__' } }),
    base({ id: 'custom', event: 'review_written', custom_event: { schema_id: 'ms_1' } }),
  ]
  const now = new Date('2025-04-01T12:00:00Z')
  const ids = (r: EarningRule[]) => r.map((x) => x.id)
  const sel = { now, timeZone: 'UTC' }

  it('order.paid: active rules within their window', () => {
    expect(ids(selectEarningRules(rules, { ...sel, event: 'order.paid' }))).toEqual(['paid'])
  })
  it('segment entered needs the segment id', () => {
    expect(ids(selectEarningRules(rules, { ...sel, event: 'customer.segment.entered', segmentId: 'seg_1' }))).toEqual([
      'seg',
    ])
    expect(ids(selectEarningRules(rules, { ...sel, event: 'customer.segment.entered', segmentId: 'seg_2' }))).toEqual(
      [],
    )
  })
  it('tier events match the tier or __ANY__', () => {
    expect(
      ids(selectEarningRules(rules, { ...sel, event: 'customer.loyalty.tier.joined', tierId: 'ltr_gold' })),
    ).toEqual(['tier_gold', 'tier_any'])
    expect(ids(selectEarningRules(rules, { ...sel, event: 'customer.loyalty.tier.joined', tierId: 'ltr_x' }))).toEqual([
      'tier_any',
    ])
    expect(ids(selectEarningRules(rules, { ...sel, event: 'customer.loyalty.tier.left', tierId: 'ltr_gold' }))).toEqual(
      [],
    )
  })
  it('custom events match by name and schema', () => {
    expect(ids(selectEarningRules(rules, { ...sel, event: 'review_written', customEventSchemaId: 'ms_1' }))).toEqual([
      'custom',
    ])
    expect(ids(selectEarningRules(rules, { ...sel, event: 'review_written', customEventSchemaId: 'ms_2' }))).toEqual([])
    expect(ids(selectEarningRules(rules, { ...sel, event: 'other_event' }))).toEqual([])
  })
  it('the window runs from start_date to expiration_date', () => {
    expect(
      ids(selectEarningRules(rules, { ...sel, event: 'order.paid', now: new Date('2025-06-01T00:00:00Z') })),
    ).toEqual(['paid', 'paid_future'])
    expect(
      ids(selectEarningRules(rules, { ...sel, event: 'order.paid', now: new Date('2025-02-28T23:59:59Z') })),
    ).toEqual(['paid', 'paid_expired'])
  })
  it('honours days of week, hours and timeframes in the engine time zone', () => {
    const limited = [
      base({ id: 'weekend', validity_day_of_week: [0, 6] }),
      base({
        id: 'mornings',
        validity_hours: { daily: [{ start_time: '08:00', expiration_time: '12:00', days_of_week: [] }] },
      }),
      // Counted from created_at (2025-01-01T00:00Z): the first hour of every day.
      base({ id: 'first_hour', validity_timeframe: { duration: 'PT1H', interval: 'P1D' } }),
    ]
    const at = (iso: string, timeZone = 'UTC') =>
      ids(selectEarningRules(limited, { event: 'order.paid', now: new Date(iso), timeZone }))
    // Saturday 2025-04-05 10:00 UTC: weekend and morning.
    expect(at('2025-04-05T10:00:00Z')).toEqual(['weekend', 'mornings'])
    // Friday 2025-04-04 23:30 UTC is already Saturday 01:30 in Warsaw, and the daily window, stepped
    // on the Warsaw calendar from 01:00 local, is 01:00–02:00 local after the switch to summer time.
    expect(at('2025-04-04T23:30:00Z')).toEqual([])
    expect(at('2025-04-04T23:30:00Z', 'Europe/Warsaw')).toEqual(['weekend', 'first_hour'])
    // Tuesday 2025-04-01 00:30 UTC: inside the daily first hour only.
    expect(at('2025-04-01T00:30:00Z')).toEqual(['first_hour'])
    expect(at('2025-04-01T13:00:00Z')).toEqual([])
  })
})
