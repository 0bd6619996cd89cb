import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { allocate } from '../../../src/money'
import { allocateCapped, splitByWeight } from '../../../src/rules/discounts/caps'

describe('splits', () => {
  it('splitByWeight gives exactly the parts of money.allocate (largest remainder, ties to the earlier line)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 53 - 1 }),
        fc.array(fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 2 ** 40 })), { maxLength: 60 }),
        (total, weights) => {
          expect(splitByWeight(total, weights)).toEqual(allocate(total, weights))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('allocateCapped sums to min(total, Σ caps of weighted lines) and respects every cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 12 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 10 ** 6 }), fc.integer({ min: 0, max: 10 ** 9 })), {
          maxLength: 60,
        }),
        (total, lines) => {
          const weights = lines.map(([w]) => w)
          const caps = lines.map(([, c]) => c)
          const parts = allocateCapped(total, weights, caps)
          const room = lines.reduce((s, [w, c]) => s + (w > 0 ? c : 0), 0)
          expect(parts.reduce((s, p) => s + p, 0)).toBe(Math.min(total, room))
          parts.forEach((p, i) => {
            expect(p).toBeGreaterThanOrEqual(0)
            expect(p).toBeLessThanOrEqual(caps[i] as number)
          })
        },
      ),
      { numRuns: 200 },
    )
  })

  it('literal: 100 over 700/3000/333 → 17/75/8; capped 3900 over caps 100/3000/333 → 100/3000/333', () => {
    expect(splitByWeight(100, [700, 3000, 333])).toEqual([17, 75, 8])
    expect(allocateCapped(3900, [700, 3000, 333], [100, 3000, 333])).toEqual([100, 3000, 333])
    expect(allocateCapped(1000, [1, 1, 0], [300, 2000, 5000])).toEqual([300, 700, 0])
  })
})
