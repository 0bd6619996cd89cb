import { describe, expect, it } from 'vitest'
import {
  applyStep,
  type CreditStep,
  calculateSequence,
  creditTargets,
  matchedItemsAmount,
  normalizeOrder,
} from '../../../src/rules/discounts'
import { discount, product } from './helpers'

const order = normalizeOrder({
  items: [
    { product_id: 'a', price: 1000, quantity: 2 }, // 2000
    { product_id: 'b', price: 500, quantity: 1 }, // 500
    { product_id: 'a', price: 333, quantity: 3 }, // 999
  ],
})

function onItems(amount: number, included?: string[]): CreditStep {
  const step: CreditStep = { kind: 'credit', amount, source: 'gift_card', effect: 'APPLY_TO_ITEMS' }
  if (included) step.applicable_to = { included: included.map((id) => product(id)) }
  return step
}

describe('credits that cover items (gift.effect APPLY_TO_ITEMS)', () => {
  it('spread over the matched lines by what is left on each, largest remainder, ties to the earlier line', () => {
    // Lines a: 2000 and 999 (sum 2999); 1000 credits → 666.88… and 333.11… → 667 and 333.
    const r = applyStep(order, onItems(1000, ['a']))
    expect(r.applied.lines.map((l) => [l.index, l.discount_amount])).toEqual([
      [0, 667],
      [2, 333],
    ])
    expect(r.applied).toMatchObject({
      discount_amount: 0,
      items_discount_amount: 1000,
      total_discount_amount: 1000,
      requested_amount: 1000,
      credited_amount: 1000,
    })
    expect(r.order).toMatchObject({ amount: 3499, items_discount_amount: 1000, total_amount: 2499 })
    expect(r.order.items[1]?.discount_amount).toBe(0)
    expect(r.applicable_to.data).toEqual([
      expect.objectContaining({ object: 'product', id: 'a', order_item_indices: [0, 2] }),
    ])
    expect(r.effect).toBe('applied')
  })

  it('are capped at each matched line’s remaining amount: more credits than the lines hold', () => {
    const r = applyStep(order, onItems(5000, ['a']))
    expect(r.applied.lines.map((l) => l.discount_amount)).toEqual([2000, 999])
    expect(r.applied).toMatchObject({ requested_amount: 5000, credited_amount: 2999 })
    expect(r.order.total_amount).toBe(500)
  })

  it('cover only what earlier discounts left on the lines', () => {
    const r = calculateSequence(order, [
      discount({ type: 'AMOUNT', amount_off: 1500, effect: 'APPLY_TO_ITEMS' }, { included: [product('a')] }),
      onItems(5000, ['a']),
    ])
    // First step: 1500 off each a-line, capped: 1500 and 999. Left: 500 and 0.
    expect(r.steps[1]?.applied.lines.map((l) => [l.index, l.discount_amount])).toEqual([[0, 500]])
    expect(r.steps[1]?.applied.credited_amount).toBe(500)
    expect(r.order.items.map((i) => i.subtotal_amount)).toEqual([0, 500, 0])
  })

  it('without applicable_to cover every line; an order-level discount earlier limits them too', () => {
    const r = calculateSequence(order, [
      discount({ type: 'AMOUNT', amount_off: 3000, effect: 'APPLY_TO_ORDER' }),
      onItems(1000),
    ])
    // 3499 − 3000 = 499 left to pay: the items credit takes no more.
    expect(r.steps[1]?.applied.credited_amount).toBe(499)
    expect(r.order.total_amount).toBe(0)
  })

  it('the matched amount is the matched lines’ amount before discounts', () => {
    expect(matchedItemsAmount(order, creditTargets(order, { included: [product('a')] }, undefined))).toBe(2999)
    expect(matchedItemsAmount(order, creditTargets(order, { included: [product('zzz')] }, undefined))).toBe(0)
    const noItems = normalizeOrder({ amount: 5000 })
    expect(matchedItemsAmount(noItems, creditTargets(noItems, undefined, undefined))).toBe(0)
  })

  it('an order-level credit is unchanged: discount_amount, no lines', () => {
    const r = applyStep(order, { kind: 'credit', amount: 1000 })
    expect(r.applied).toMatchObject({ discount_amount: 1000, items_discount_amount: 0, credited_amount: 1000 })
    expect(r.applied.lines).toEqual([])
  })
})
