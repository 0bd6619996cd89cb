import { describe, expect, it } from 'vitest'
import { EngineError } from '../src/errors'
import {
  allocate,
  allocateByQuantity,
  assertMoney,
  decimal,
  isMoney,
  mulRatio,
  multiply,
  percentOf,
  ROUNDING_MODES,
  roundToUnit,
  sum,
} from '../src/money'

const MAX = Number.MAX_SAFE_INTEGER

describe('percentOf', () => {
  it('rounds an exact half by each mode', () => {
    // 10% of 125 is 12.5
    expect(percentOf(125, 10)).toBe(13)
    expect(percentOf(125, 10, 'half-up')).toBe(13)
    expect(percentOf(125, 10, 'half-even')).toBe(12)
    expect(percentOf(125, 10, 'down')).toBe(12)
    expect(percentOf(125, 10, 'up')).toBe(13)
    // 10% of 135 is 13.5: half-even goes up to the even neighbour
    expect(percentOf(135, 10, 'half-even')).toBe(14)
    expect(percentOf(135, 10, 'half-up')).toBe(14)
    expect(percentOf(135, 10, 'down')).toBe(13)
  })

  it('rounds values off the half by each mode', () => {
    // 15% of 999 is 149.85
    expect(percentOf(999, 15, 'half-up')).toBe(150)
    expect(percentOf(999, 15, 'half-even')).toBe(150)
    expect(percentOf(999, 15, 'down')).toBe(149)
    expect(percentOf(999, 15, 'up')).toBe(150)
    // 33% of 1001 is 330.33
    expect(percentOf(1001, 33, 'half-up')).toBe(330)
    expect(percentOf(1001, 33, 'up')).toBe(331)
  })

  it('takes fractional percents as strings or numbers without float error', () => {
    // 12.5% of 1000 is 125; 0.1% of 12345 is 12.345
    expect(percentOf(1000, '12.5')).toBe(125)
    expect(percentOf(12345, '0.1')).toBe(12)
    expect(percentOf(12345, 0.1, 'up')).toBe(13)
    // 33.3% of 1500 is 499.5; in floats it is 499.49999999999994, which would round to 499
    expect(percentOf(1500, '33.3')).toBe(500)
    expect(percentOf(1500, 33.3)).toBe(500)
    expect(percentOf(100, 0)).toBe(0)
    expect(percentOf(0, 50)).toBe(0)
    expect(percentOf(2500, 100)).toBe(2500)
  })

  it('rounds negatives symmetrically: half-up and up away from zero, down toward zero', () => {
    // 10% of -125 is -12.5
    expect(percentOf(-125, 10, 'half-up')).toBe(-13)
    expect(percentOf(-125, 10, 'half-even')).toBe(-12)
    expect(percentOf(-125, 10, 'down')).toBe(-12)
    expect(percentOf(-125, 10, 'up')).toBe(-13)
    // -0.4 rounds to a plain 0, not -0
    expect(Object.is(percentOf(-4, 10), 0)).toBe(true)
  })

  it('is exact at the top of the safe range', () => {
    // 50% of 9007199254740991 is 4503599627370495.5
    expect(percentOf(MAX, 50, 'half-up')).toBe(4503599627370496)
    expect(percentOf(MAX, 50, 'down')).toBe(4503599627370495)
    expect(percentOf(MAX, 50, 'half-even')).toBe(4503599627370496)
    expect(percentOf(MAX, 100)).toBe(MAX)
  })

  it('rejects amounts that are not safe integers, and results beyond the safe range', () => {
    expect(() => percentOf(12.5, 10)).toThrow(new RangeError('percentOf: amount must be a safe integer, got 12.5'))
    expect(() => percentOf(MAX + 1, 10)).toThrow(RangeError)
    expect(() => percentOf(Number.NaN, 10)).toThrow(RangeError)
    expect(() => percentOf(MAX, 200)).toThrow(RangeError)
  })
})

describe('mulRatio', () => {
  it('multiplies by a ratio and rounds once', () => {
    // 1000 × 1/3 = 333.33…, 1000 × 2/3 = 666.66…
    expect(mulRatio(1000, 1, 3)).toBe(333)
    expect(mulRatio(1000, 2, 3)).toBe(667)
    expect(mulRatio(1000, 2, 3, 'down')).toBe(666)
    expect(mulRatio(1000, 1, 3, 'up')).toBe(334)
    // 5 × 1/2 = 2.5
    expect(mulRatio(5, 1, 2, 'half-up')).toBe(3)
    expect(mulRatio(5, 1, 2, 'half-even')).toBe(2)
    expect(mulRatio(7, 1, 2, 'half-even')).toBe(4)
    // A ratio of decimals: 2000 × 0.15 / 0.4 = 750
    expect(mulRatio(2000, '0.15', '0.4')).toBe(750)
  })

  it('keeps precision where floats lose it', () => {
    // 9007199254740991 × 3 / 3 in floats is 9007199254740992
    expect(mulRatio(MAX, 3, 3)).toBe(MAX)
    expect(mulRatio(MAX, 1, 2, 'down')).toBe(4503599627370495)
  })

  it('rejects a zero denominator and a non-safe amount', () => {
    expect(() => mulRatio(100, 1, 0)).toThrow(new RangeError('mulRatio: denominator is zero'))
    expect(() => mulRatio(100, 1, '0.000')).toThrow(RangeError)
    expect(() => mulRatio(0.5, 1, 2)).toThrow(new RangeError('mulRatio: amount must be a safe integer, got 0.5'))
  })
})

describe('multiply and roundToUnit', () => {
  it('multiplies by a fractional factor and rounds once', () => {
    expect(multiply(1000, '0.015')).toBe(15)
    // 333 × 0.5 = 166.5
    expect(multiply(333, '0.5', 'half-up')).toBe(167)
    expect(multiply(333, '0.5', 'half-even')).toBe(166)
    expect(multiply('10.5', 3, 'down')).toBe(31)
  })

  it('rounds decimal strings by each mode', () => {
    expect(ROUNDING_MODES.map((m) => roundToUnit('2.5', m))).toEqual([3, 2, 2, 3])
    expect(ROUNDING_MODES.map((m) => roundToUnit('3.5', m))).toEqual([4, 4, 3, 4])
    expect(ROUNDING_MODES.map((m) => roundToUnit('-2.5', m))).toEqual([-3, -2, -2, -3])
    expect(ROUNDING_MODES.map((m) => roundToUnit('2.0001', m))).toEqual([2, 2, 2, 3])
    expect(ROUNDING_MODES.map((m) => roundToUnit('2.4999', m))).toEqual([2, 2, 2, 3])
    expect(roundToUnit(decimal('0.1').plus('0.2').times(10))).toBe(3)
  })

  it('rejects results that are not safe integers', () => {
    expect(() => roundToUnit('9007199254740992')).toThrow(RangeError)
    expect(() => roundToUnit(Number.POSITIVE_INFINITY)).toThrow(RangeError)
    expect(() => roundToUnit(Number.NaN)).toThrow(RangeError)
    expect(roundToUnit('9007199254740991.4')).toBe(MAX)
  })
})

describe('allocate', () => {
  it('splits in proportion to the weights', () => {
    expect(allocate(1000, [2000, 8000])).toEqual([200, 800])
    expect(allocate(10, [3, 3, 4])).toEqual([3, 3, 4])
    expect(allocate(1, [1])).toEqual([1])
  })

  it('gives left-over units to the largest remainders', () => {
    // exact shares 16.67, 33.33, 50
    expect(allocate(100, [1, 2, 3])).toEqual([17, 33, 50])
    // exact shares 333.33, 666.67
    expect(allocate(1000, [1, 2])).toEqual([333, 667])
    // exact shares 1.4, 2.8, 5.8: the two units left go to the two .8 remainders
    expect(allocate(10, [7, 14, 29])).toEqual([1, 3, 6])
    // exact shares 1.6, 1.3, 2.1: one unit left, to the .6
    expect(allocate(5, [16, 13, 21])).toEqual([2, 1, 2])
  })

  it('breaks ties in favour of the earlier line', () => {
    expect(allocate(10, [1, 1, 1])).toEqual([4, 3, 3])
    expect(allocate(5, [1, 1, 1, 1, 1, 1, 1])).toEqual([1, 1, 1, 1, 1, 0, 0])
    expect(allocate(2, [5, 5, 5])).toEqual([1, 1, 0])
  })

  it('gives zero weights zero, even when units are left over', () => {
    expect(allocate(100, [0, 1, 0, 1])).toEqual([0, 50, 0, 50])
    expect(allocate(7, [0, 1, 0, 1, 0])).toEqual([0, 4, 0, 3, 0])
    expect(allocate(1, [0, 0, 1])).toEqual([0, 0, 1])
  })

  it('gives zeros when nothing can be shared', () => {
    expect(allocate(100, [0, 0])).toEqual([0, 0])
    expect(allocate(100, [])).toEqual([])
    expect(allocate(0, [1, 2])).toEqual([0, 0])
  })

  it('splits a negative total with the same shares, negated', () => {
    expect(allocate(-10, [1, 1, 1])).toEqual([-4, -3, -3])
    expect(allocate(-1000, [2000, 8000])).toEqual([-200, -800])
  })

  it('is exact at the top of the safe range', () => {
    expect(allocate(MAX, [1, 1])).toEqual([4503599627370496, 4503599627370495])
    expect(allocate(MAX, [MAX, 1])).toEqual([MAX - 1, 1])
    expect(allocate(MAX, [1e12, 1e12, 1])).toEqual([4503599627368244, 4503599627368244, 4503])
  })

  it('rejects a total or weight that is not a safe integer, and negative weights', () => {
    expect(() => allocate(MAX + 1, [1])).toThrow(
      new RangeError('allocate: total must be a safe integer, got 9007199254740992'),
    )
    expect(() => allocate(1.5, [1])).toThrow(new RangeError('allocate: total must be a safe integer, got 1.5'))
    expect(() => allocate(Number.NaN, [1])).toThrow(RangeError)
    expect(() => allocate(10, [1, 0.5])).toThrow(new RangeError('allocate: weights[1] must be a safe integer, got 0.5'))
    expect(() => allocate(10, [Number.POSITIVE_INFINITY])).toThrow(RangeError)
    expect(() => allocate(10, [2, -1])).toThrow(new RangeError('allocate: weights[1] is negative'))
  })

  it('splits over quantities the same way', () => {
    expect(allocateByQuantity(1000, [1, 2])).toEqual([333, 667])
    expect(allocateByQuantity(10, [1, 1, 1])).toEqual([4, 3, 3])
    expect(allocateByQuantity(500, [0, 3])).toEqual([0, 500])
  })
})

describe('assertMoney and isMoney', () => {
  it('accepts non-negative safe integers', () => {
    expect(assertMoney(0)).toBe(0)
    expect(assertMoney(12345)).toBe(12345)
    expect(assertMoney(MAX)).toBe(MAX)
    expect(isMoney(0)).toBe(true)
    expect(isMoney(MAX)).toBe(true)
  })

  it('rejects anything else with a 400 naming the field', () => {
    let error: unknown
    try {
      assertMoney(-1, 'order.amount')
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(EngineError)
    expect((error as EngineError).toJSON()).toEqual({
      code: 400,
      key: 'invalid_payload',
      message: 'Invalid payload',
      details: 'Property .order.amount must be a non-negative safe integer amount in minor units, got -1',
      request_id: null,
    })
    expect((error as EngineError).path).toBe('order.amount')
  })

  it('names `amount` by default and shows the bad value', () => {
    expect(() => assertMoney(12.5)).toThrow(
      'Invalid payload', // the message; the details carry the field
    )
    const error = (() => {
      try {
        assertMoney('100')
      } catch (e) {
        return e as EngineError
      }
      return undefined
    })()
    expect(error?.path).toBe('amount')
    expect(error?.details).toBe('Property .amount must be a non-negative safe integer amount in minor units, got 100')
  })

  it('says no to floats, strings, NaN, infinities, unsafe integers and nullish', () => {
    for (const bad of [-1, 0.5, '100', Number.NaN, Number.POSITIVE_INFINITY, MAX + 1, null, undefined, 10n]) {
      expect(isMoney(bad)).toBe(false)
      expect(() => assertMoney(bad)).toThrow(EngineError)
    }
  })
})

describe('sum', () => {
  it('adds integers and refuses to leave the safe range', () => {
    expect(sum([1, 2, 3])).toBe(6)
    expect(sum([])).toBe(0)
    expect(sum(new Set([10, 20]))).toBe(30)
    expect(() => sum([MAX, 1])).toThrow(new RangeError('sum: result is not a safe integer'))
  })
})
