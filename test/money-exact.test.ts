import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { divRound, mulDivRound, mulRatio, ROUNDING_MODES, toFraction } from '../src/money'

describe('exact integer ratios', () => {
  it('rounds halves by mode', () => {
    expect([5, 15, 25].map((n) => divRound(n, 10, 'half-up'))).toEqual([1, 2, 3])
    expect([5, 15, 25].map((n) => divRound(n, 10, 'half-even'))).toEqual([0, 2, 2])
    expect([11, 19].map((n) => divRound(n, 10, 'down'))).toEqual([1, 1])
    expect([11, 20].map((n) => divRound(n, 10, 'up'))).toEqual([2, 2])
  })

  it('toFraction reads the decimal a number prints as', () => {
    expect(toFraction(12.5, 'p')).toEqual({ num: 125, den: 10 })
    expect(toFraction(20, 'p')).toEqual({ num: 20, den: 1 })
    expect(toFraction(0.07, 'p')).toEqual({ num: 7, den: 100 })
    expect(toFraction(1e-7, 'p')).toEqual({ num: 1, den: 10000000 })
    expect(toFraction(33.333, 'p')).toEqual({ num: 33333, den: 1000 })
    expect(() => toFraction(-1, 'discount.percent_off')).toThrow(
      expect.objectContaining({ path: 'discount.percent_off' }),
    )
  })

  it('agrees with money.mulRatio (decimal.js) for every mode, small and huge operands', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: 10 ** 6 }), fc.integer({ min: 0, max: 10 ** 15 })),
        fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 10 ** 9 })),
        fc.integer({ min: 1, max: 10 ** 9 }),
        fc.constantFrom(...ROUNDING_MODES),
        (a, b, c, mode) => {
          // Beyond a safe integer result mulRatio refuses to answer; the exact path is compared where both may.
          fc.pre(Number.isSafeInteger(Math.ceil((a * b) / c) + 1))
          expect(mulDivRound(a, b, c, mode)).toBe(mulRatio(a, b, c, mode))
        },
      ),
      { numRuns: 300 },
    )
  })
})
