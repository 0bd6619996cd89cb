import { describe, expect, it } from 'vitest'
import { applyStep, calculateSequence, normalizeOrder } from '../../../src/rules/discounts'
import { discount, product } from './helpers'

const order = normalizeOrder({
  items: [
    { product_id: 'a', price: 1005, quantity: 1 },
    { product_id: 'b', price: 333, quantity: 3 },
  ],
})

describe('PERCENT', () => {
  it('APPLY_TO_ORDER rounds once, by the engine mode', () => {
    // 12.5% of 2004 = 250.5
    const step = discount({ type: 'PERCENT', percent_off: 12.5, effect: 'APPLY_TO_ORDER' })
    expect(applyStep(order, step).order.discount_amount).toBe(251)
    expect(applyStep(order, step, { rounding: 'half-even' }).order.discount_amount).toBe(250)
    expect(applyStep(order, step, { rounding: 'down' }).order.discount_amount).toBe(250)
    expect(applyStep(order, step, { rounding: 'up' }).order.discount_amount).toBe(251)
  })

  it('APPLY_TO_ITEMS rounds each line once: with up, 12.5% of 12, 20 and 4 is 2 + 3 + 1 = 6, not ⌈4.5⌉', () => {
    const lines = normalizeOrder({
      items: [
        { product_id: 'a', price: 12, quantity: 1 },
        { product_id: 'b', price: 20, quantity: 1 },
        { product_id: 'c', price: 4, quantity: 1 },
      ],
    })
    const targets = { included: [product('a'), product('b'), product('c')] }
    const step = discount({ type: 'PERCENT', percent_off: 12.5, effect: 'APPLY_TO_ITEMS' }, targets)
    const up = applyStep(lines, step, { rounding: 'up' }).order
    expect(up.items.map((i) => i.discount_amount)).toEqual([2, 3, 1])
    expect(up.total_discount_amount).toBe(6)
    const whole = applyStep(lines, discount({ type: 'PERCENT', percent_off: 12.5, effect: 'APPLY_TO_ORDER' }), {
      rounding: 'up',
    }).order
    expect(whole.total_discount_amount).toBe(5)
  })

  it('APPLY_TO_ORDER amount_limit caps the order discount', () => {
    const r = applyStep(
      order,
      discount({ type: 'PERCENT', percent_off: 50, amount_limit: 300, effect: 'APPLY_TO_ORDER' }),
    )
    expect(r.order.discount_amount).toBe(300)
  })

  it('APPLY_TO_ITEMS: per line; amount_limit per line; aggregated_amount_limit across lines', () => {
    const targets = { included: [product('a'), product('b')] }
    const plain = applyStep(order, discount({ type: 'PERCENT', percent_off: 10 }, targets))
    // 100.5 → 101, 99.9 → 100
    expect(plain.order.items.map((i) => i.discount_amount)).toEqual([101, 100])
    const perLine = applyStep(order, discount({ type: 'PERCENT', percent_off: 10, amount_limit: 100 }, targets))
    expect(perLine.order.items.map((i) => i.discount_amount)).toEqual([100, 100])
    const agg = applyStep(order, discount({ type: 'PERCENT', percent_off: 10, aggregated_amount_limit: 150 }, targets))
    expect(agg.order.items.map((i) => i.discount_amount)).toEqual([101, 49])
  })

  it('target UNIT: percent of the chosen units only (most expensive unit of b at 50%)', () => {
    const r = applyStep(
      order,
      discount(
        { type: 'PERCENT', percent_off: 50 },
        {
          included: [product('b', { effect: 'APPLY_TO_MOST_EXPENSIVE', target: 'UNIT' })],
        },
      ),
    )
    // 999 × 1/3 × 50% = 166.5 → 167
    expect(r.order.items[1]).toMatchObject({ discount_amount: 167, discount_quantity: 1, applied_discount_quantity: 1 })
  })

  it('DISCOUNTED_AMOUNT vs INITIAL_AMOUNT', () => {
    const steps = [
      discount({ type: 'AMOUNT', amount_off: 1004, effect: 'APPLY_TO_ORDER' }),
      discount({ type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' }),
    ]
    expect(calculateSequence(order, steps).order.discount_amount).toBe(1104)
    expect(calculateSequence(order, steps, { calculationMode: 'INITIAL_AMOUNT' }).order.discount_amount).toBe(1204)
    const perStep = [steps[0], { ...steps[1], calculationMode: 'INITIAL_AMOUNT' }] as typeof steps
    expect(calculateSequence(order, perStep).order.discount_amount).toBe(1204)
  })

  it('INITIAL_AMOUNT item percentages still never exceed what is left of a line', () => {
    const targets = { included: [product('a')] }
    const r = calculateSequence(
      order,
      [
        discount({ type: 'PERCENT', percent_off: 80 }, targets),
        discount({ type: 'PERCENT', percent_off: 80 }, targets),
      ],
      { calculationMode: 'INITIAL_AMOUNT' },
    )
    expect(r.steps.map((s) => s.order.items[0]?.applied_discount_amount)).toEqual([804, 201])
    expect(r.order.items[0]).toMatchObject({ discount_amount: 1005, subtotal_amount: 0, applied_discount_amount: 1005 })
  })
})
