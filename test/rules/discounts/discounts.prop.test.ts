import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CalculatedOrder } from '../../../src/model/order'
import { applyStep, calculateSequence, type Step } from '../../../src/rules/discounts'
import { applicableToArb, checkOrder, deepFreeze, discountArb, orderArb, percentArb, stepArb } from './arbitraries'

const RUNS = { numRuns: 100 }

function shuffled<T>(items: readonly T[], keys: readonly number[]): { items: T[]; perm: number[] } {
  const perm = items
    .map((_, i) => i)
    .sort((a, b) => (keys[a % keys.length] ?? 0) - (keys[b % keys.length] ?? 0) || a - b)
  return { items: perm.map((i) => items[i] as T), perm }
}

// 2.3 s on a 2-core machine at load 18: a safety limit, no timing is asserted.
describe('discount calculation properties', { timeout: 30_000 }, () => {
  it('every snapshot and the final order keep the invariants; inputs are not mutated', () => {
    fc.assert(
      fc.property(orderArb(), fc.array(stepArb, { minLength: 1, maxLength: 6 }), fc.boolean(), (order, steps, once) => {
        const before = structuredClone({ order, steps })
        deepFreeze(order)
        deepFreeze(steps)
        const r = calculateSequence(order, steps, { productsApplicationMode: once ? 'ONCE' : 'STACK' })
        for (const s of r.steps) {
          checkOrder(s.order)
          expect(s.applied.total_discount_amount).toBe(s.order.total_applied_discount_amount)
          let lines = 0
          for (const line of s.applied.lines) lines += line.discount_amount
          expect(lines).toBe(s.applied.items_discount_amount)
        }
        checkOrder(r.order)
        expect(r.order.total_applied_discount_amount).toBe(r.order.total_discount_amount)
        expect({ order, steps }).toEqual(before)
      }),
      RUNS,
    )
  })

  it('a proportional split sums exactly to the amount off when the lines can take it', () => {
    fc.assert(
      fc.property(
        orderArb(),
        fc.integer({ min: 0, max: 100_000_000_000 }),
        fc.boolean(),
        (order, amountOff, byQuantity) => {
          const room = order.items.reduce((s, i) => s + i.amount, 0)
          const r = applyStep(order, {
            kind: 'discount',
            discount: {
              type: 'AMOUNT',
              amount_off: amountOff,
              effect: byQuantity ? 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY' : 'APPLY_TO_ITEMS_PROPORTIONALLY',
            },
          })
          const lines = r.order.items.reduce((s, i) => s + i.discount_amount, 0)
          // A line full before its share is passes the rest on, so only the lines' room limits the sum.
          expect(lines).toBe(Math.min(amountOff, room))
        },
      ),
      RUNS,
    )
  })

  it('shuffling lines keeps order-level results and the multiset of APPLY_TO_EVERY line discounts', () => {
    const everyDiscount = discountArb.filter(
      (d) =>
        d.type !== 'UNIT' &&
        d.effect !== 'APPLY_TO_ITEMS_PROPORTIONALLY' &&
        d.effect !== 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY',
    )
    fc.assert(
      fc.property(
        orderArb(),
        everyDiscount,
        applicableToArb({ limits: false, every: true }),
        fc.array(fc.integer(), { minLength: 1, maxLength: 50 }),
        (order, d, applicableTo, keys) => {
          const step: Step =
            applicableTo === undefined
              ? { kind: 'discount', discount: d }
              : { kind: 'discount', discount: d, applicable_to: applicableTo }
          const { items } = shuffled(order.items, keys)
          const other: CalculatedOrder = { ...order, items }
          const a = applyStep(order, step).order
          const b = applyStep(other, step).order
          expect(b.discount_amount).toBe(a.discount_amount)
          expect(b.total_discount_amount).toBe(a.total_discount_amount)
          expect(b.total_amount).toBe(a.total_amount)
          const sorted = (o: CalculatedOrder) => o.items.map((i) => i.discount_amount).sort((x, y) => x - y)
          expect(sorted(b)).toEqual(sorted(a))
        },
      ),
      RUNS,
    )
  })

  it('percentages on the discounted amount never discount more than on the initial amount', () => {
    const percentStep = fc
      .record({
        percent_off: percentArb,
        items: fc.boolean(),
        applicable_to: applicableToArb({ limits: false, every: true }),
      })
      .map(({ percent_off, items, applicable_to }): Step => {
        const step: Step = {
          kind: 'discount',
          discount: { type: 'PERCENT', percent_off, effect: items ? 'APPLY_TO_ITEMS' : 'APPLY_TO_ORDER' },
        }
        if (applicable_to !== undefined) step.applicable_to = applicable_to
        return step
      })
    fc.assert(
      fc.property(
        orderArb(50),
        fc.integer({ min: 0, max: 1_000_000_000_000 }),
        fc.array(percentStep, { minLength: 1, maxLength: 5 }),
        (order, first, steps) => {
          const all: Step[] = [
            { kind: 'discount', discount: { type: 'AMOUNT', amount_off: first, effect: 'APPLY_TO_ORDER' } },
            ...steps,
          ]
          const discounted = calculateSequence(order, all, { calculationMode: 'DISCOUNTED_AMOUNT' }).order
          const initial = calculateSequence(order, all, { calculationMode: 'INITIAL_AMOUNT' }).order
          expect(discounted.total_discount_amount).toBeLessThanOrEqual(initial.total_discount_amount)
        },
      ),
      RUNS,
    )
  })
})
