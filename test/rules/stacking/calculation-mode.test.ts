import { describe, expect, it } from 'vitest'
import { calculationModeFor, resolveStackingRules } from '../../../src/rules/stacking'

describe('calculationModeFor', () => {
  it('uses the project mode without overrides', () => {
    expect(calculationModeFor([{ id: 'cat_a' }], resolveStackingRules())).toBe('DISCOUNTED_AMOUNT')
    expect(calculationModeFor([], resolveStackingRules({ discount_calculation_mode: 'INITIAL_AMOUNT' }))).toBe(
      'INITIAL_AMOUNT',
    )
  })

  it('a category override beats the project mode in both directions', () => {
    const initialByCategory = resolveStackingRules({ initial_amount_mode_categories: ['cat_loyal'] })
    expect(calculationModeFor([{ id: 'cat_loyal' }], initialByCategory)).toBe('INITIAL_AMOUNT')
    expect(calculationModeFor([{ id: 'cat_other' }], initialByCategory)).toBe('DISCOUNTED_AMOUNT')
    const discountedByCategory = resolveStackingRules({
      discount_calculation_mode: 'INITIAL_AMOUNT',
      discounted_amount_mode_categories: ['cat_promo'],
    })
    expect(calculationModeFor([{ id: 'cat_promo' }], discountedByCategory)).toBe('DISCOUNTED_AMOUNT')
  })

  it('between two overriding categories the lower hierarchy decides', () => {
    const rules = resolveStackingRules({
      initial_amount_mode_categories: ['cat_i'],
      discounted_amount_mode_categories: ['cat_d'],
    })
    expect(
      calculationModeFor(
        [
          { id: 'cat_d', hierarchy: 2 },
          { id: 'cat_i', hierarchy: 1 },
        ],
        rules,
      ),
    ).toBe('INITIAL_AMOUNT')
    expect(
      calculationModeFor(
        [
          { id: 'cat_d', hierarchy: 0 },
          { id: 'cat_i', hierarchy: 1 },
        ],
        rules,
      ),
    ).toBe('DISCOUNTED_AMOUNT')
  })
})
