import { describe, expect, it } from 'vitest'
import type { EarningLoyalty } from '../../src/model/loyalty'
import { calculateEarnedPoints, type EarningInput } from '../../src/rules/earned-points'

const order = (amount: number, metadata: Record<string, unknown> = {}): EarningInput => ({
  order: {
    amount,
    total_amount: amount,
    metadata,
    items: [{ product_id: 'p', quantity: 2, amount, price: amount / 2 }],
  },
  customer: { metadata: { customer_life_time_value: 75.55 } },
})

describe('points_formula (docs/behaviour.md#formulas, docs/behaviour.md#rounding)', () => {
  it('FIXED: the formula gives the points, rounding as it says', () => {
    const loyalty: EarningLoyalty = { type: 'FIXED', points: 1, points_formula: 'ROUND(ORDER_AMOUNT ÷ 10; 0)' }
    // 123.45 ÷ 10 = 12.345 → 12
    expect(calculateEarnedPoints(loyalty, order(12345))).toBe(12)
    // 125.00 ÷ 10 = 12.5 → 13 (half-up)
    expect(calculateEarnedPoints(loyalty, order(12500))).toBe(13)
  })

  it('a fractional result is floored to whole points; a negative one gives 0', () => {
    const fractional: EarningLoyalty = { type: 'FIXED', points: 1, points_formula: 'ORDER_AMOUNT ÷ 10' }
    expect(calculateEarnedPoints(fractional, order(12999))).toBe(12)
    const negative: EarningLoyalty = { type: 'FIXED', points: 1, points_formula: 'ORDER_AMOUNT - 1000' }
    expect(calculateEarnedPoints(negative, order(12999))).toBe(0)
  })

  it('PROPORTIONAL: the formula on the calculation type replaces floor(base ÷ every) × points', () => {
    const loyalty: EarningLoyalty = {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_AMOUNT',
      order: {
        amount: {
          every: 100,
          points: 1,
          points_formula: 'FLOOR(ORDER_AMOUNT x IF(ORDER_METADATA("double") = "yes"; 2; 1); 0)',
        },
      },
    }
    expect(calculateEarnedPoints(loyalty, order(4599, { double: 'yes' }))).toBe(91)
    // Missing metadata: the static calculation is the fallback (4599 ÷ 100 → 45 × 1).
    expect(calculateEarnedPoints(loyalty, order(4599))).toBe(45)
  })

  it('customer metadata and FLOOR with negative places; the tier mapping still applies after', () => {
    const loyalty: EarningLoyalty = {
      type: 'FIXED',
      points: 5,
      points_formula: 'FLOOR(CUSTOMER_METADATA("customer_life_time_value"); -1)',
    }
    expect(calculateEarnedPoints(loyalty, order(100))).toBe(70)
    expect(calculateEarnedPoints(loyalty, order(100), { type: 'MULTIPLY', multiplier: 1.5 })).toBe(105)
  })

  it('a syntax error falls back to the static points', () => {
    expect(calculateEarnedPoints({ type: 'FIXED', points: 5, points_formula: 'ORDER_AMOUNT x' }, order(100))).toBe(5)
  })
})
