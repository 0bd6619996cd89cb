import { describe, expect, it } from 'vitest'
import { explainNoEffect, noEffectDecision, resolveStackingRules } from '../../../src/rules/stacking'

describe('noEffectDecision', () => {
  it('follows the global rule without overrides', () => {
    expect(noEffectDecision([{ id: 'cat_a' }], resolveStackingRules())).toBe('REDEEM_ANYWAY')
    expect(noEffectDecision([], resolveStackingRules({ redeemables_no_effect_rule: 'SKIP' }))).toBe('SKIP')
  })

  it('a category override beats the global rule in both directions', () => {
    const skipByCategory = resolveStackingRules({ no_effect_skip_categories: ['cat_coupon'] })
    expect(noEffectDecision([{ id: 'cat_coupon' }], skipByCategory)).toBe('SKIP')
    expect(noEffectDecision([{ id: 'cat_other' }], skipByCategory)).toBe('REDEEM_ANYWAY')
    const forceByCategory = resolveStackingRules({
      redeemables_no_effect_rule: 'SKIP',
      no_effect_redeem_anyway_categories: ['cat_points'],
    })
    expect(explainNoEffect([{ id: 'cat_points' }], forceByCategory)).toEqual({
      decision: 'REDEEM_ANYWAY',
      decided_by: 'no_effect_redeem_anyway_categories',
      category_id: 'cat_points',
    })
  })

  it('between two overriding categories the lower hierarchy decides, then the listed order', () => {
    const rules = resolveStackingRules({
      no_effect_skip_categories: ['cat_skip'],
      no_effect_redeem_anyway_categories: ['cat_force'],
    })
    expect(
      noEffectDecision(
        [
          { id: 'cat_skip', hierarchy: 3 },
          { id: 'cat_force', hierarchy: 0 },
        ],
        rules,
      ),
    ).toBe('REDEEM_ANYWAY')
    expect(
      noEffectDecision(
        [
          { id: 'cat_skip', hierarchy: 1 },
          { id: 'cat_force', hierarchy: 1 },
        ],
        rules,
      ),
    ).toBe('SKIP')
  })
})
