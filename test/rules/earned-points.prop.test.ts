import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { EarningLoyalty } from '../../src/model/loyalty'
import { calculateEarnedPoints } from '../../src/rules/earned-points'

const order = (amount: number) => ({ order: { amount, items: [] } })

describe('calculateEarnedPoints: properties', () => {
  const spec = fc.record({ every: fc.integer({ min: 1, max: 100_000 }), points: fc.integer({ min: 1, max: 1000 }) })
  it('is monotone in the base amount and zero below every', () => {
    fc.assert(
      fc.property(spec, fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 10_000_000 }), (s, a, b) => {
        const rule: EarningLoyalty = { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: s } }
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        const pLo = calculateEarnedPoints(rule, order(lo))
        const pHi = calculateEarnedPoints(rule, order(hi))
        expect(pLo).toBeLessThanOrEqual(pHi)
        if (lo < s.every) expect(pLo).toBe(0)
        expect(pHi).toBe(Math.floor(hi / s.every) * s.points)
      }),
      { numRuns: 200 },
    )
  })
})
