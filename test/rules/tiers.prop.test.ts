import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { qualifyTier } from '../../src/rules/tiers'

/** Contiguous inclusive ranges from a start and a list of widths; the top one may be open. */
const contiguousTiers = fc
  .record({
    start: fc.integer({ min: 0, max: 1000 }),
    widths: fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 8 }),
    openTop: fc.boolean(),
  })
  .map(({ start, widths, openTop }) => {
    let from = start
    const tiers = widths.map((w, i) => {
      const tier = { id: `t${i}`, points: { from, to: (from + w - 1) as number | null } }
      from += w
      return tier
    })
    const last = tiers[tiers.length - 1]
    if (openTop && last !== undefined) last.points.to = null
    return { tiers, min: start, max: openTop ? Number.POSITIVE_INFINITY : from - 1 }
  })

describe('qualifyTier properties', () => {
  it('exactly one tier holds any point count inside the configured ranges, none outside', () => {
    fc.assert(
      fc.property(contiguousTiers, fc.integer({ min: -10, max: 6000 }), ({ tiers, min, max }, points) => {
        const holding = tiers.filter((t) => points >= t.points.from && (t.points.to === null || points <= t.points.to))
        const q = qualifyTier(tiers, points)
        if (points >= min && points <= max) {
          expect(holding).toHaveLength(1)
          expect(q?.id).toBe(holding[0]?.id)
        } else {
          expect(holding).toHaveLength(0)
          expect(q).toBeNull()
        }
      }),
      { numRuns: 300 },
    )
  })

  it('qualification is monotone: more points never give a lower tier', () => {
    fc.assert(
      fc.property(contiguousTiers, fc.nat(6000), fc.nat(6000), ({ tiers }, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        const qLo = qualifyTier(tiers, lo)
        const qHi = qualifyTier(tiers, hi)
        if (qLo !== null && qHi !== null) expect(qHi.points.from).toBeGreaterThanOrEqual(qLo.points.from)
      }),
      { numRuns: 200 },
    )
  })
})
