import { describe, expect, it } from 'vitest'
import { applyStep, calculateSequence, normalizeOrder } from '../../../src/rules/discounts'
import { credit, discount, product } from './helpers'

/** The worked discount examples, with every number they give. */

describe('A. stacking / order calculation', () => {
  it('gift 100 + 20% + $80, DISCOUNTED_AMOUNT in request order', () => {
    const order = normalizeOrder({ amount: 200000 })
    const r = calculateSequence(order, [
      credit(100),
      discount({ type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ORDER' }),
      discount({ type: 'AMOUNT', amount_off: 8000, effect: 'APPLY_TO_ORDER' }),
    ])
    const rows = r.steps.map((s) => [
      s.order.discount_amount,
      s.order.applied_discount_amount,
      s.order.total_discount_amount,
      s.order.total_amount,
    ])
    expect(rows).toEqual([
      [100, 100, 100, 199900],
      [40080, 39980, 40080, 159920],
      [48080, 8000, 48080, 151920],
    ])
    expect(r.steps[0]?.applied.requested_amount).toBe(100)
    expect(r.steps[0]?.applied.discount_amount).toBe(100)
    expect(r.order.discount_amount).toBe(48080)
    expect(r.order.applied_discount_amount).toBe(48080)
    expect(r.order.total_discount_amount).toBe(48080)
    expect(r.order.total_applied_discount_amount).toBe(48080)
    expect(r.order.total_amount).toBe(151920)
    expect(r.order.amount).toBe(200000)
  })

  it('promotion stack over derived amount: 10% then $5', () => {
    const order = normalizeOrder({
      items: [
        { price: 200000, quantity: 1 },
        { price: 200000, quantity: 1 },
      ],
    })
    expect(order.amount).toBe(400000)
    const r = calculateSequence(order, [
      discount({ type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' }),
      discount({ type: 'AMOUNT', amount_off: 500, effect: 'APPLY_TO_ORDER' }),
    ])
    expect(r.steps[0]?.order.applied_discount_amount).toBe(40000)
    expect(r.steps[0]?.order.total_amount).toBe(360000)
    expect(r.steps[1]?.order.applied_discount_amount).toBe(500)
    expect(r.steps[1]?.order.discount_amount).toBe(40500)
    expect(r.steps[1]?.order.total_amount).toBe(359500)
    expect(r.order.total_amount).toBe(359500)
  })

  it('20% of 200000', () => {
    const r = applyStep(
      normalizeOrder({ amount: 200000 }),
      discount({ type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ORDER' }),
    )
    expect(r.order.discount_amount).toBe(40000)
    expect(r.order.total_amount).toBe(160000)
  })

  it('an amount discount on an already discounted order is capped at what is left', () => {
    const earlier = calculateSequence(normalizeOrder({ amount: 10000 }), [
      discount({ type: 'AMOUNT', amount_off: 9200, effect: 'APPLY_TO_ORDER' }),
    ]).order
    const r = calculateSequence(earlier, [discount({ type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' })])
    expect(r.order.applied_discount_amount).toBe(800)
    expect(r.order.discount_amount).toBe(10000)
    expect(r.order.total_discount_amount).toBe(10000)
    expect(r.order.total_amount).toBe(0)
  })
})

describe('B. discount effects', () => {
  const items = [
    { product_id: 'mug', price: 2000, quantity: 1 },
    { product_id: 'pen', price: 8000, quantity: 1 },
    { product_id: 'tshirt', price: 5000, quantity: 1 },
    { product_id: 'iphone', price: 180000, quantity: 1 },
  ]
  const mugAndPen = { included: [product('mug'), product('pen')] }

  it('10% APPLY_TO_ORDER on a declared amount of 20050', () => {
    const order = normalizeOrder({ amount: 20050, items: [{ price: 10000, quantity: 1 }] })
    const r = applyStep(order, discount({ type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' }))
    expect(r.order.discount_amount).toBe(2005)
    expect(r.order.total_discount_amount).toBe(2005)
    expect(r.order.total_amount).toBe(18045)
  })

  it('$10 APPLY_TO_ITEMS on mug and pen', () => {
    const order = normalizeOrder({ amount: 195000, items })
    const r = applyStep(order, discount({ type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS' }, mugAndPen))
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([1000, 1000, 0, 0])
    expect(r.order.total_discount_amount).toBe(2000)
    expect(r.order.items_discount_amount).toBe(2000)
    expect(r.order.total_amount).toBe(193000)
    expect(r.applicable_to.data.map((d) => d.order_item_indices)).toEqual([[0], [1]])
  })

  it('$10 APPLY_TO_ITEMS_PROPORTIONALLY on mug and pen', () => {
    const order = normalizeOrder({ amount: 195000, items })
    const r = applyStep(
      order,
      discount({ type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' }, mugAndPen),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([200, 800, 0, 0])
    expect(r.order.total_discount_amount).toBe(1000)
    expect(r.order.total_amount).toBe(194000)
  })

  it('a declared amount below the items: the total is clamped at 0', () => {
    const order = normalizeOrder({ amount: 15100, items: [{ product_id: 'p', price: 50070, quantity: 1 }] })
    const r = applyStep(order, discount({ type: 'PERCENT', percent_off: 50 }, { included: [product('p')] }))
    expect(r.order.items[0]?.discount_amount).toBe(25035)
    expect(r.order.total_discount_amount).toBe(25035)
    expect(r.order.total_amount).toBe(0)
  })
})

describe('F. bundles (multiplier semantics)', () => {
  it('$1 per bundle × 5 bundles → $5 off the cart', () => {
    const r = applyStep(normalizeOrder({ amount: 10000 }), discount({ type: 'AMOUNT', amount_off: 100 }, undefined, 5))
    expect(r.order.discount_amount).toBe(500)
  })

  it('5% per bundle × 5 bundles → 25% off the cart', () => {
    const r = applyStep(normalizeOrder({ amount: 10000 }), discount({ type: 'PERCENT', percent_off: 5 }, undefined, 5))
    expect(r.order.discount_amount).toBe(2500)
    expect(r.order.total_amount).toBe(7500)
  })

  it('new price $50 per bundle, 5 bundles → $50 total, not multiplied', () => {
    const r = applyStep(
      normalizeOrder({ amount: 40000 }),
      discount({ type: 'FIXED', fixed_amount: 5000, effect: 'APPLY_TO_ORDER' }, undefined, 5),
    )
    expect(r.order.total_amount).toBe(5000)
    expect(r.order.discount_amount).toBe(35000)
  })

  const laptopOrder = normalizeOrder({
    items: [
      { product_id: 'laptop', price: 100000, quantity: 2 },
      { product_id: 'bag', price: 5000, quantity: 2 },
      { product_id: 'mouse', price: 3000, quantity: 3 },
    ],
  })
  it('$20 off a mouse per unit, limit 1 per line, 2 bundles → 2 mice = $40; no limit → 3 mice = $60', () => {
    const limited = applyStep(
      laptopOrder,
      discount(
        { type: 'AMOUNT', amount_off: 2000, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' },
        { included: [product('mouse', { quantity_limit: 1 })] },
        2,
      ),
    )
    expect(limited.order.items[2]?.discount_amount).toBe(4000)
    expect(limited.order.items[2]?.discount_quantity).toBe(2)
    const unlimited = applyStep(
      laptopOrder,
      discount(
        { type: 'AMOUNT', amount_off: 2000, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' },
        { included: [product('mouse')] },
        2,
      ),
    )
    expect(unlimited.order.items[2]?.discount_amount).toBe(6000)
  })

  it('item subtotal variant: $20 per bundle, 2 bundles → $40 per line (one line $40, three lines $120)', () => {
    const step = discount(
      { type: 'AMOUNT', amount_off: 2000, effect: 'APPLY_TO_ITEMS' },
      { included: [product('mouse')] },
      2,
    )
    expect(applyStep(laptopOrder, step).order.items_discount_amount).toBe(4000)
    const threeLines = normalizeOrder({
      items: [1, 2, 3].map(() => ({ product_id: 'mouse', price: 5000, quantity: 1 })),
    })
    const r = applyStep(threeLines, step)
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([4000, 4000, 4000])
    expect(r.order.items_discount_amount).toBe(12000)
  })

  it('split by amount: $10 × 2 = $20 → coffee $30 gets $12, filters $20 get $8', () => {
    const order = normalizeOrder({
      items: [
        { product_id: 'coffee', price: 3000, quantity: 1 },
        { product_id: 'filter', price: 2000, quantity: 1 },
      ],
    })
    const r = applyStep(
      order,
      discount(
        { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' },
        { included: [product('coffee'), product('filter')] },
        2,
      ),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([1200, 800])
  })

  it('split by quantity: $20 → 3 tennis balls get $12, 2 wristbands $8', () => {
    const order = normalizeOrder({
      items: [
        { product_id: 'balls', price: 500, quantity: 3 },
        { product_id: 'bands', price: 900, quantity: 2 },
      ],
    })
    const r = applyStep(
      order,
      discount(
        { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY' },
        { included: [product('balls'), product('bands')] },
        2,
      ),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([1200, 800])
  })

  it('percent per item: 5% per bundle, 2 bundles → 10% off the drinks; unit limits not multiplied', () => {
    const order = normalizeOrder({
      items: [
        { product_id: 'crisps', price: 300, quantity: 4 },
        { product_id: 'drink', price: 500, quantity: 4 },
      ],
    })
    const r = applyStep(
      order,
      discount({ type: 'PERCENT', percent_off: 5, effect: 'APPLY_TO_ITEMS' }, { included: [product('drink')] }, 2),
    )
    expect(r.order.items.map((i) => i.discount_amount)).toEqual([0, 200])
    const limited = applyStep(
      order,
      discount(
        { type: 'PERCENT', percent_off: 5, effect: 'APPLY_TO_ITEMS' },
        { included: [product('drink', { quantity_limit: 1 })] },
        2,
      ),
    )
    // 10% of one drink (500), not of two.
    expect(limited.order.items[1]?.discount_amount).toBe(50)
    expect(limited.order.items[1]?.discount_quantity).toBe(1)
  })

  it('new price per unit: $10 ticket, $2 drinks, 1 ticket and 2 drinks per bundle, 2 bundles', () => {
    const order = normalizeOrder({
      items: [
        { product_id: 'ticket', price: 2500, quantity: 3 },
        { product_id: 'drink', price: 500, quantity: 5 },
      ],
    })
    const r = applyStep(
      order,
      discount(
        { type: 'FIXED', fixed_amount: 0, effect: 'APPLY_TO_ITEMS' },
        {
          included: [
            product('ticket', { price: 1000, aggregated_quantity_limit: 1 }),
            product('drink', { price: 200, aggregated_quantity_limit: 2 }),
          ],
        },
        2,
      ),
    )
    expect(r.order.items.map((i) => [i.discount_quantity, i.discount_amount])).toEqual([
      [2, 3000],
      [4, 1200],
    ])
    expect(r.order.total_amount).toBe(7500 + 2500 - 4200)
  })

  it('free products: ADD_MISSING 1 laptop → 1 bag, 2 laptops → 2 bags; ADD_NEW 3 shoes → 3 socks', () => {
    const prices = { product: { bag: 5000, socks: 700 } }
    const bag = { type: 'UNIT', unit_off: 1, unit_type: 'bag', effect: 'ADD_MISSING_ITEMS' } as const
    const one = applyStep(
      normalizeOrder({ items: [{ product_id: 'laptop', price: 100000, quantity: 1 }] }),
      discount(bag, undefined, 1),
      { prices },
    )
    expect(one.order.items[1]).toMatchObject({
      product_id: 'bag',
      quantity: 1,
      discount_amount: 5000,
      applied_quantity: 1,
    })
    const two = applyStep(
      normalizeOrder({ items: [{ product_id: 'laptop', price: 100000, quantity: 2 }] }),
      discount(bag, undefined, 2),
      { prices },
    )
    expect(two.order.items[1]).toMatchObject({ quantity: 2, discount_amount: 10000, applied_quantity_amount: 10000 })
    expect(two.order.amount).toBe(210000)
    expect(two.order.total_amount).toBe(200000)

    const socks = { type: 'UNIT', unit_off: 1, unit_type: 'socks', effect: 'ADD_NEW_ITEMS' } as const
    const shoes = applyStep(
      normalizeOrder({ items: [{ product_id: 'shoes', price: 9000, quantity: 3 }] }),
      discount(socks, undefined, 3),
      { prices },
    )
    expect(shoes.order.items[1]).toMatchObject({ quantity: 3, amount: 2100, discount_amount: 2100 })
  })

  it('ADD_MANY: 1 pizza + 1 cola → 2 desserts; 2 + 2 → 4 desserts', () => {
    const many = {
      type: 'UNIT',
      effect: 'ADD_MANY_ITEMS',
      units: [
        { unit_off: 1, unit_type: 'tiramisu', effect: 'ADD_NEW_ITEMS' },
        { unit_off: 1, unit_type: 'panna', effect: 'ADD_NEW_ITEMS' },
      ],
    } as const
    const prices = { product: { tiramisu: 600, panna: 500 } }
    const order = normalizeOrder({
      items: [
        { product_id: 'pizza', price: 3000 },
        { product_id: 'cola', price: 400 },
      ],
    })
    const one = applyStep(order, discount({ ...many, units: [...many.units] }, undefined, 1), { prices })
    expect(one.order.items.slice(2).map((i) => i.quantity)).toEqual([1, 1])
    expect(one.order.items_discount_amount).toBe(1100)
    const two = applyStep(order, discount({ ...many, units: [...many.units] }, undefined, 2), { prices })
    expect(two.order.items.slice(2).map((i) => i.quantity)).toEqual([2, 2])
    expect(two.order.items_discount_amount).toBe(2200)
  })
})
