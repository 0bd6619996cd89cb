import { describe, expect, it } from 'vitest'
import { applyStep, calculateSequence, normalizeOrder } from '../../../src/rules/discounts'
import { credit, discount, product } from './helpers'

const order = normalizeOrder({
  items: [
    { product_id: 'a', price: 1000, quantity: 2 },
    { product_id: 'b', price: 500, quantity: 1 },
  ],
})

describe('sequences and credits', () => {
  it('credits are order-level and capped at what is left to pay', () => {
    const r = calculateSequence(order, [
      discount({ type: 'PERCENT', percent_off: 50 }, { included: [product('a')] }),
      credit(1000, 'loyalty_points'),
      credit(1000),
    ])
    expect(r.steps.map((s) => s.applied.discount_amount)).toEqual([0, 1000, 500])
    expect(r.steps[2]?.applied.requested_amount).toBe(1000)
    expect(r.order).toMatchObject({
      amount: 2500,
      discount_amount: 1500,
      items_discount_amount: 1000,
      total_discount_amount: 2500,
      total_amount: 0,
      applied_discount_amount: 1500,
      items_applied_discount_amount: 1000,
      total_applied_discount_amount: 2500,
    })
    expect(calculateSequence(order, [credit(10000), credit(5)]).steps[1]?.effect).toBe('no_effect')
  })

  it('snapshots carry the step amounts; the final order the request totals', () => {
    const targets = { included: [product('a')] }
    const r = calculateSequence(order, [
      discount({ type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS' }, targets),
      discount({ type: 'AMOUNT', amount_off: 50, effect: 'APPLY_TO_ITEMS' }, targets),
    ])
    expect(r.steps.map((s) => [s.order.items[0]?.applied_discount_amount, s.order.items[0]?.discount_amount])).toEqual([
      [100, 100],
      [50, 150],
    ])
    expect(r.steps[1]?.order.items_applied_discount_amount).toBe(50)
    expect(r.order.items[0]).toMatchObject({
      applied_discount_amount: 150,
      discount_amount: 150,
      subtotal_amount: 1850,
    })
    expect(r.order.items_applied_discount_amount).toBe(150)
    // The line b untouched throughout is the very object of the input order.
    expect(r.order.items[1]).toBe(order.items[1])
  })

  it('ONCE: a line discounted by an earlier step is left alone; STACK discounts it again', () => {
    const steps = [
      discount({ type: 'PERCENT', percent_off: 10 }, { included: [product('a')] }),
      discount({ type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS' }, { included_all: true }),
    ]
    const once = calculateSequence(order, steps, { productsApplicationMode: 'ONCE' })
    expect(once.order.items.map((i) => i.discount_amount)).toEqual([200, 100])
    const stack = calculateSequence(order, steps)
    expect(stack.order.items.map((i) => i.discount_amount)).toEqual([300, 100])
  })

  it('does not mutate the order it is given', () => {
    const frozen = structuredClone(order)
    applyStep(order, discount({ type: 'PERCENT', percent_off: 30 }, { included: [product('a')] }))
    calculateSequence(order, [credit(100), discount({ type: 'UNIT', unit_off: 2, unit_type: 'a' })])
    expect(order).toEqual(frozen)
  })
})
