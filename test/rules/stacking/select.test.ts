import { describe, expect, it } from 'vitest'
import { planStack, resolveStackingRules, selectStack } from '../../../src/rules/stacking'
import { bad, noEffect, ok } from './helpers'

/** Project rules generous enough that only the limit under test bites. */
const roomy = {
  applicable_redeemables_limit: 30,
  applicable_redeemables_per_category_limit: 30,
  applicable_exclusive_redeemables_limit: 5,
  applicable_exclusive_redeemables_per_category_limit: 5,
  exclusive_categories: ['cat_vip', 'cat_excl2'],
  joint_categories: ['cat_joint', 'cat_joint2'],
} as const

function rules(overrides: Parameters<typeof resolveStackingRules>[0] = {}) {
  return resolveStackingRules({
    ...roomy,
    exclusive_categories: [...roomy.exclusive_categories],
    joint_categories: [...roomy.joint_categories],
    ...overrides,
  })
}

const summary = (decisions: ReturnType<typeof selectStack>) =>
  decisions.map((d) => (d.decision === 'SKIP' ? `${d.index}:${d.key}` : `${d.index}:${d.decision}`))

describe('selectStack: limits', () => {
  it('applicable_redeemables_limit 2 skips the third applicable one and names the two that count', () => {
    const decisions = selectStack(
      [ok(0), ok(1), bad(2), ok(3)],
      rules({
        applicable_redeemables_limit: 2,
        applicable_redeemables_per_category_limit: 2,
        redeemables_application_mode: 'PARTIAL',
      }),
    )
    expect(summary(decisions)).toEqual([
      '0:APPLY',
      '1:APPLY',
      '2:INAPPLICABLE',
      '3:applicable_redeemables_limit_exceeded',
    ])
    expect(decisions[3]).toEqual({
      index: 3,
      kind: 'COMMON',
      decision: 'SKIP',
      key: 'applicable_redeemables_limit_exceeded',
      message: 'Applicable redeemables limit exceeded',
      explanation: { limit: 'applicable_redeemables_limit', value: 2, counted: [0, 1] },
    })
  })

  it('defaults: the 6th applicable redeemable exceeds the limit of 5', () => {
    const decisions = selectStack(
      [0, 1, 2, 3, 4, 5].map((i) => ok(i, `cat_${i}`)),
      resolveStackingRules(),
    )
    expect(summary(decisions)).toEqual([
      '0:APPLY',
      '1:APPLY',
      '2:APPLY',
      '3:APPLY',
      '4:APPLY',
      '5:applicable_redeemables_limit_exceeded',
    ])
  })

  it('per-category limit 2 with 3 valid in one category: the third is skipped (flash sale)', () => {
    const decisions = selectStack(
      [ok(0, 'cat_flash'), ok(1, 'cat_flash'), ok(2, 'cat_flash')],
      rules({ applicable_redeemables_per_category_limit: 2 }),
    )
    expect(summary(decisions)).toEqual(['0:APPLY', '1:APPLY', '2:applicable_redeemables_per_category_limit_exceeded'])
    expect(decisions[2]).toMatchObject({
      message: 'Applicable redeemables limit per category exceeded',
      explanation: {
        limit: 'applicable_redeemables_per_category_limit',
        value: 2,
        category_id: 'cat_flash',
        counted: [0, 1],
      },
    })
  })

  it('the default per-category limit 1 skips the second one of a category but not an uncategorised one', () => {
    const decisions = selectStack([ok(0, 'cat_a'), ok(1, 'cat_a'), ok(2), ok(3)], resolveStackingRules())
    expect(summary(decisions)).toEqual([
      '0:APPLY',
      '1:applicable_redeemables_per_category_limit_exceeded',
      '2:APPLY',
      '3:APPLY',
    ])
  })

  it('applicable_redeemables_category_limits overrides the per-category limit for that category only', () => {
    const r = rules({
      applicable_redeemables_per_category_limit: 3,
      applicable_redeemables_category_limits: { cat_flash: 1 },
    })
    const decisions = selectStack(
      [ok(0, 'cat_flash'), ok(1, 'cat_flash'), ok(2, 'cat_x'), ok(3, 'cat_x'), ok(4, 'cat_x'), ok(5, 'cat_x')],
      r,
    )
    expect(summary(decisions)).toEqual([
      '0:APPLY',
      '1:applicable_redeemables_per_category_limit_exceeded',
      '2:APPLY',
      '3:APPLY',
      '4:APPLY',
      '5:applicable_redeemables_per_category_limit_exceeded',
    ])
    expect(decisions[1]).toMatchObject({
      explanation: {
        limit: 'applicable_redeemables_category_limits',
        value: 1,
        category_id: 'cat_flash',
        counted: [0],
      },
    })
    expect(decisions[5]).toMatchObject({
      explanation: {
        limit: 'applicable_redeemables_per_category_limit',
        value: 3,
        category_id: 'cat_x',
        counted: [2, 3, 4],
      },
    })
  })

  it('a redeemable in two categories is skipped when either is full', () => {
    const decisions = selectStack(
      [ok(0, 'cat_b'), ok(1, 'cat_a', 'cat_b')],
      rules({ applicable_redeemables_per_category_limit: 1 }),
    )
    expect(decisions[1]).toMatchObject({
      key: 'applicable_redeemables_per_category_limit_exceeded',
      explanation: { category_id: 'cat_b' },
    })
  })

  it('applicable_exclusive_redeemables_limit 1: the second exclusive one is skipped (default)', () => {
    const decisions = selectStack(
      [ok(0, 'cat_vip'), ok(1, 'cat_excl2')],
      rules({ applicable_exclusive_redeemables_limit: 1, applicable_exclusive_redeemables_per_category_limit: 1 }),
    )
    expect(summary(decisions)).toEqual(['0:APPLY', '1:applicable_exclusive_redeemables_limit_exceeded'])
    expect(decisions[1]).toMatchObject({
      message: 'Applicable exclusive redeemables limit exceeded',
      explanation: { limit: 'applicable_exclusive_redeemables_limit', value: 1, counted: [0] },
    })
  })

  it('applicable_exclusive_redeemables_per_category_limit 1: a second exclusive one of the same category is skipped', () => {
    const decisions = selectStack(
      [ok(0, 'cat_vip', 'cat_a'), ok(1, 'cat_vip', 'cat_b'), ok(2, 'cat_excl2')],
      rules({ applicable_exclusive_redeemables_per_category_limit: 1 }),
    )
    expect(summary(decisions)).toEqual([
      '0:APPLY',
      '1:applicable_exclusive_redeemables_per_category_limit_exceeded',
      '2:APPLY',
    ])
    expect(decisions[1]).toMatchObject({
      message: 'Applicable exclusive redeemables limit per category exceeded',
      explanation: {
        limit: 'applicable_exclusive_redeemables_per_category_limit',
        value: 1,
        category_id: 'cat_vip',
        counted: [0],
      },
    })
  })

  it('an inapplicable redeemable counts toward no limit (PARTIAL)', () => {
    const decisions = selectStack(
      [bad(0, 'cat_a'), ok(1, 'cat_a')],
      rules({ applicable_redeemables_per_category_limit: 1, redeemables_application_mode: 'PARTIAL' }),
    )
    expect(summary(decisions)).toEqual(['0:INAPPLICABLE', '1:APPLY'])
  })
})

describe('selectStack: compatibility matrix (docs/concepts.md#categories)', () => {
  const r = rules()
  it('common + common stack', () => {
    expect(summary(selectStack([ok(0, 'cat_a'), ok(1, 'cat_b')], r))).toEqual(['0:APPLY', '1:APPLY'])
  })
  it('common + exclusive: the exclusive one wins, the common one is excluded', () => {
    const decisions = selectStack([ok(0, 'cat_news'), ok(1, 'cat_vip')], r)
    expect(summary(decisions)).toEqual(['0:exclusion_rules_not_met', '1:APPLY'])
    expect(decisions[0]).toEqual({
      index: 0,
      kind: 'COMMON',
      decision: 'SKIP',
      key: 'exclusion_rules_not_met',
      message: 'Redeemable cannot be applied due to exclusion rules',
      explanation: { limit: 'exclusive_categories', value: 'EXCLUSIVE', category_id: 'cat_vip', blocked_by: 1 },
    })
  })
  it('common + joint stack', () => {
    expect(summary(selectStack([ok(0, 'cat_a'), ok(1, 'cat_joint')], r))).toEqual(['0:APPLY', '1:APPLY'])
  })
  it('exclusive + exclusive stack within the exclusive limits', () => {
    expect(summary(selectStack([ok(0, 'cat_vip'), ok(1, 'cat_excl2')], r))).toEqual(['0:APPLY', '1:APPLY'])
  })
  it('exclusive + joint stack', () => {
    expect(summary(selectStack([ok(0, 'cat_joint'), ok(1, 'cat_vip')], r))).toEqual(['0:APPLY', '1:APPLY'])
  })
  it('joint + joint stack', () => {
    expect(summary(selectStack([ok(0, 'cat_joint'), ok(1, 'cat_joint2')], r))).toEqual(['0:APPLY', '1:APPLY'])
  })
  it('an uncategorised redeemable is common and is excluded by an exclusive one', () => {
    expect(summary(selectStack([ok(0), ok(1, 'cat_vip')], r))).toEqual(['0:exclusion_rules_not_met', '1:APPLY'])
  })
  it('an exclusive one sent later with a worse hierarchy still blocks the common ones', () => {
    const candidates = [
      { index: 0, status: 'APPLICABLE' as const, categories: [{ id: 'cat_news', hierarchy: 0 }] },
      { index: 1, status: 'APPLICABLE' as const, categories: [{ id: 'cat_joint', hierarchy: 0 }] },
      { index: 2, status: 'APPLICABLE' as const, categories: [{ id: 'cat_vip', hierarchy: 9 }] },
    ]
    const decisions = planStack(candidates, rules({ redeemables_sorting_rule: 'CATEGORY_HIERARCHY' }))
    expect(summary(decisions)).toEqual(['0:exclusion_rules_not_met', '1:APPLY', '2:APPLY'])
  })
  it('an inapplicable exclusive one blocks nothing (PARTIAL)', () => {
    const decisions = selectStack(
      [ok(0, 'cat_news'), bad(1, 'cat_vip')],
      rules({ redeemables_application_mode: 'PARTIAL' }),
    )
    expect(summary(decisions)).toEqual(['0:APPLY', '1:INAPPLICABLE'])
  })
  it('an exclusive one skipped by a limit blocks nothing', () => {
    const decisions = selectStack(
      [ok(0, 'cat_news'), ok(1, 'cat_joint'), ok(2, 'cat_vip', 'cat_joint')],
      rules({ applicable_redeemables_per_category_limit: 1 }),
    )
    expect(summary(decisions)).toEqual(['0:APPLY', '1:APPLY', '2:applicable_redeemables_per_category_limit_exceeded'])
  })
  it('an exclusive one that applies frees the slots the common ones would have used', () => {
    const decisions = selectStack(
      [ok(0, 'cat_a'), ok(1, 'cat_b'), ok(2, 'cat_vip')],
      rules({ applicable_redeemables_limit: 1, applicable_redeemables_per_category_limit: 1 }),
    )
    expect(summary(decisions)).toEqual(['0:exclusion_rules_not_met', '1:exclusion_rules_not_met', '2:APPLY'])
  })
})

describe('selectStack: application modes', () => {
  it('ALL: after the first inapplicable one every later one is skipped, earlier ones keep APPLY', () => {
    const decisions = selectStack(
      [ok(0, 'cat_a'), bad(1, 'cat_b'), ok(2, 'cat_c'), bad(3, 'cat_d')],
      rules({ redeemables_application_mode: 'ALL' }),
    )
    expect(summary(decisions)).toEqual([
      '0:APPLY',
      '1:INAPPLICABLE',
      '2:preceding_validation_failed',
      '3:preceding_validation_failed',
    ])
    expect(decisions[2]).toEqual({
      index: 2,
      kind: 'COMMON',
      decision: 'SKIP',
      key: 'preceding_validation_failed',
      message: 'Redeemable cannot be applied due to preceding validation failure',
      explanation: { limit: 'redeemables_application_mode', value: 'ALL', blocked_by: 1 },
    })
  })
  it('PARTIAL: an inapplicable one is left out and the rest apply', () => {
    const decisions = selectStack(
      [ok(0, 'cat_a'), bad(1, 'cat_b'), ok(2, 'cat_c')],
      rules({ redeemables_application_mode: 'PARTIAL' }),
    )
    expect(summary(decisions)).toEqual(['0:APPLY', '1:INAPPLICABLE', '2:APPLY'])
  })
  it('welcome valid, seasonal expired; ALL fails the rest, PARTIAL applies the welcome one', () => {
    const all = selectStack(
      [bad(0, 'cat_seasonal'), ok(1, 'cat_welcome')],
      rules({ redeemables_application_mode: 'ALL' }),
    )
    expect(summary(all)).toEqual(['0:INAPPLICABLE', '1:preceding_validation_failed'])
    const partial = selectStack(
      [bad(0, 'cat_seasonal'), ok(1, 'cat_welcome')],
      rules({ redeemables_application_mode: 'PARTIAL' }),
    )
    expect(summary(partial)).toEqual(['0:INAPPLICABLE', '1:APPLY'])
  })
  it('ALL: an exclusive one after the failure is skipped and therefore blocks no common one before it', () => {
    const decisions = selectStack(
      [ok(0, 'cat_news'), bad(1, 'cat_b'), ok(2, 'cat_vip')],
      rules({ redeemables_application_mode: 'ALL' }),
    )
    expect(summary(decisions)).toEqual(['0:APPLY', '1:INAPPLICABLE', '2:preceding_validation_failed'])
  })
})

describe('selectStack: no effect', () => {
  it('REDEEM_ANYWAY applies a no-effect redeemable (Force)', () => {
    expect(
      summary(selectStack([noEffect(0, 'cat_a')], rules({ redeemables_no_effect_rule: 'REDEEM_ANYWAY' }))),
    ).toEqual(['0:APPLY'])
  })
  it('SKIP skips it with no_effect, and it takes no slot (Prevent)', () => {
    const decisions = selectStack(
      [noEffect(0, 'cat_a'), ok(1, 'cat_a')],
      rules({ redeemables_no_effect_rule: 'SKIP', applicable_redeemables_per_category_limit: 1 }),
    )
    expect(summary(decisions)).toEqual(['0:no_effect', '1:APPLY'])
    expect(decisions[0]).toMatchObject({
      message: 'Redeemable cannot be applied due to no effect',
      explanation: { limit: 'redeemables_no_effect_rule', value: 'SKIP' },
    })
  })
  it('a no_effect_skip_categories override names its category', () => {
    const decisions = selectStack([noEffect(0, 'cat_coupon')], rules({ no_effect_skip_categories: ['cat_coupon'] }))
    expect(decisions[0]).toMatchObject({
      key: 'no_effect',
      explanation: { limit: 'no_effect_skip_categories', value: 'SKIP', category_id: 'cat_coupon' },
    })
  })
  it('a no-effect skip under ALL is not a failure', () => {
    const decisions = selectStack([noEffect(0, 'cat_a'), ok(1, 'cat_b')], rules({ redeemables_no_effect_rule: 'SKIP' }))
    expect(summary(decisions)).toEqual(['0:no_effect', '1:APPLY'])
  })
  it('re-running after a candidate turned inapplicable lets a skipped one take the freed slot', () => {
    const r = rules({
      applicable_redeemables_limit: 1,
      applicable_redeemables_per_category_limit: 1,
      redeemables_application_mode: 'PARTIAL',
    })
    expect(summary(selectStack([ok(0, 'cat_a'), ok(1, 'cat_b')], r))).toEqual([
      '0:APPLY',
      '1:applicable_redeemables_limit_exceeded',
    ])
    expect(summary(selectStack([bad(0, 'cat_a'), ok(1, 'cat_b')], r))).toEqual(['0:INAPPLICABLE', '1:APPLY'])
  })
})

describe('planStack: the worked stacking example and application order', () => {
  it('VIP 50% (exclusive) with newsletter 10% (common): only VIP applies, in either request order', () => {
    const r = rules()
    expect(summary(planStack([ok(0, 'cat_vip'), ok(1, 'cat_news')], r))).toEqual([
      '0:APPLY',
      '1:exclusion_rules_not_met',
    ])
    expect(summary(planStack([ok(0, 'cat_news'), ok(1, 'cat_vip')], r))).toEqual([
      '0:exclusion_rules_not_met',
      '1:APPLY',
    ])
  })

  it('never stackable plus always stackable: both apply', () => {
    expect(summary(planStack([ok(0, 'cat_vip'), ok(1, 'cat_joint')], rules()))).toEqual(['0:APPLY', '1:APPLY'])
  })

  it('under CATEGORY_HIERARCHY the better hierarchy takes the shared slot, whatever the request order', () => {
    const candidates = [
      {
        index: 0,
        status: 'APPLICABLE' as const,
        categories: [
          { id: 'cat_flash', hierarchy: 5 },
          { id: 'cat_x', hierarchy: 5 },
        ],
      },
      { index: 1, status: 'APPLICABLE' as const, categories: [{ id: 'cat_flash', hierarchy: 2 }] },
    ]
    const r = rules({ redeemables_sorting_rule: 'CATEGORY_HIERARCHY', applicable_redeemables_per_category_limit: 1 })
    expect(summary(planStack(candidates, r))).toEqual([
      '1:APPLY',
      '0:applicable_redeemables_per_category_limit_exceeded',
    ])
    const requested = rules({ applicable_redeemables_per_category_limit: 1 })
    expect(summary(planStack(candidates, requested))).toEqual([
      '0:APPLY',
      '1:applicable_redeemables_per_category_limit_exceeded',
    ])
  })
})
