import { describe, expect, it } from 'vitest'
import { EngineError } from '../../../src/errors'
import type { StackingRules } from '../../../src/model/stacking'
import { checkRedeemablesCount, resolveStackingRules } from '../../../src/rules/stacking'
import { SECTION_9_2_DEFAULTS } from '../../support/stacking-defaults'

function detailsOf(input: Partial<StackingRules>): string {
  try {
    resolveStackingRules(input)
  } catch (error) {
    if (error instanceof EngineError) return `${error.code} ${error.key} ${error.path}: ${error.details}`
    throw error
  }
  return 'accepted'
}

describe('resolveStackingRules', () => {
  it('gives the default stacking rules (docs/behaviour.md#default-stacking-rules) when the project has none', () => {
    expect(resolveStackingRules()).toEqual({
      ...SECTION_9_2_DEFAULTS,
    })
  })

  it('keeps the project settings, its id and timestamps, and the service interface example project is accepted', () => {
    const rules = resolveStackingRules({
      id: 'str_1',
      created_at: '2024-01-01T00:00:00.000Z',
      redeemables_limit: 30,
      applicable_redeemables_limit: 30,
      applicable_exclusive_redeemables_limit: 5,
      applicable_redeemables_per_category_limit: 30,
      redeemables_application_mode: 'PARTIAL',
      redeemables_no_effect_rule: 'REDEEM_ANYWAY',
      redeemables_rollback_order_mode: 'WITHOUT_ORDER',
      grouped_redeemables_sorting_rule: 'JOINT_ALWAYS_LAST',
      applicable_redeemables_category_limits: { cat_a: 10 },
      exclusive_categories: ['cat_x'],
    })
    expect(rules).toMatchObject({
      id: 'str_1',
      created_at: '2024-01-01T00:00:00.000Z',
      applicable_redeemables_limit: 30,
      applicable_exclusive_redeemables_limit: 5,
      applicable_exclusive_redeemables_per_category_limit: 1,
      redeemables_application_mode: 'PARTIAL',
      redeemables_rollback_order_mode: 'WITHOUT_ORDER',
      grouped_redeemables_sorting_rule: 'JOINT_ALWAYS_LAST',
      applicable_redeemables_category_limits: { cat_a: 10 },
      exclusive_categories: ['cat_x'],
    })
  })

  it('does not share arrays with its input', () => {
    const input = { exclusive_categories: ['cat_x'] }
    const rules = resolveStackingRules(input)
    rules.exclusive_categories.push('cat_y')
    expect(input.exclusive_categories).toEqual(['cat_x'])
  })

  it('rejects out-of-bounds limits naming the field', () => {
    expect(detailsOf({ redeemables_limit: 31 })).toBe(
      '400 invalid_payload redeemables_limit: Property .redeemables_limit must be <= 30',
    )
    expect(detailsOf({ redeemables_limit: 0 })).toBe(
      '400 invalid_payload redeemables_limit: Property .redeemables_limit must be >= 1',
    )
    expect(detailsOf({ applicable_redeemables_limit: 2.5 })).toBe(
      '400 invalid_payload applicable_redeemables_limit: Property .applicable_redeemables_limit must be integer',
    )
    expect(detailsOf({ applicable_exclusive_redeemables_limit: 6 })).toBe(
      '400 invalid_payload applicable_exclusive_redeemables_limit: Property .applicable_exclusive_redeemables_limit must be <= 5',
    )
    expect(detailsOf({ applicable_redeemables_category_limits: { cat_a: 11 } })).toBe(
      '400 invalid_payload applicable_redeemables_category_limits.cat_a: Property .applicable_redeemables_category_limits.cat_a must be <= 10',
    )
    expect(detailsOf({ applicable_redeemables_category_limits: { cat_a: 0 } })).toBe(
      '400 invalid_payload applicable_redeemables_category_limits.cat_a: Property .applicable_redeemables_category_limits.cat_a must be >= 1',
    )
  })

  it('rejects limits above the limit they are part of', () => {
    expect(detailsOf({ redeemables_limit: 4, applicable_redeemables_limit: 5 })).toBe(
      '400 invalid_payload applicable_redeemables_limit: Property .applicable_redeemables_limit must be <= redeemables_limit (4)',
    )
    expect(detailsOf({ applicable_redeemables_per_category_limit: 6 })).toBe(
      '400 invalid_payload applicable_redeemables_per_category_limit: Property .applicable_redeemables_per_category_limit must be <= applicable_redeemables_limit (5)',
    )
    expect(detailsOf({ applicable_exclusive_redeemables_per_category_limit: 2 })).toBe(
      '400 invalid_payload applicable_exclusive_redeemables_per_category_limit: Property .applicable_exclusive_redeemables_per_category_limit must be <= applicable_exclusive_redeemables_limit (1)',
    )
    expect(detailsOf({ applicable_redeemables_category_limits: { cat_a: 6 } })).toBe(
      '400 invalid_payload applicable_redeemables_category_limits.cat_a: Property .applicable_redeemables_category_limits.cat_a must be <= applicable_redeemables_limit (5)',
    )
  })

  it('rejects a category in both no-effect lists, and the other contradictory pairs', () => {
    expect(
      detailsOf({ no_effect_skip_categories: ['cat_a'], no_effect_redeem_anyway_categories: ['cat_b', 'cat_a'] }),
    ).toBe(
      '400 invalid_payload no_effect_redeem_anyway_categories: Property .no_effect_redeem_anyway_categories must not contain cat_a, which is listed in no_effect_skip_categories',
    )
    expect(detailsOf({ exclusive_categories: ['cat_a'], joint_categories: ['cat_a'] })).toBe(
      '400 invalid_payload joint_categories: Property .joint_categories must not contain cat_a, which is listed in exclusive_categories',
    )
    expect(detailsOf({ initial_amount_mode_categories: ['cat_a'], discounted_amount_mode_categories: ['cat_a'] })).toBe(
      '400 invalid_payload discounted_amount_mode_categories: Property .discounted_amount_mode_categories must not contain cat_a, which is listed in initial_amount_mode_categories',
    )
  })

  it('rejects unknown enum values and malformed lists', () => {
    const bogus = { redeemables_application_mode: 'SOME' } as unknown as Partial<StackingRules>
    expect(detailsOf(bogus)).toBe(
      '400 invalid_payload redeemables_application_mode: Property .redeemables_application_mode must be equal to one of the allowed values: ALL, PARTIAL',
    )
    const grouped = { grouped_redeemables_sorting_rule: 'JOINT_FIRST' } as unknown as Partial<StackingRules>
    expect(detailsOf(grouped)).toBe(
      '400 invalid_payload grouped_redeemables_sorting_rule: Property .grouped_redeemables_sorting_rule must be equal to one of the allowed values',
    )
    const notList = { joint_categories: 'cat_a' } as unknown as Partial<StackingRules>
    expect(detailsOf(notList)).toBe('400 invalid_payload joint_categories: Property .joint_categories must be array')
    expect(detailsOf({ exclusive_categories: ['cat_a', ''] })).toBe(
      '400 invalid_payload exclusive_categories[1]: Property .exclusive_categories[1] must be a non-empty string',
    )
  })
})

describe('checkRedeemablesCount', () => {
  it('accepts 1 to redeemables_limit redeemables', () => {
    expect(() => checkRedeemablesCount(1, { redeemables_limit: 3 })).not.toThrow()
    expect(() => checkRedeemablesCount(3, { redeemables_limit: 3 })).not.toThrow()
  })
  it('rejects more than redeemables_limit and none at all as request errors', () => {
    expect(() => checkRedeemablesCount(4, { redeemables_limit: 3 })).toThrow(
      expect.objectContaining({
        code: 400,
        key: 'invalid_payload',
        details: 'Property .redeemables should NOT have more than 3 items',
      }),
    )
    expect(() => checkRedeemablesCount(0, { redeemables_limit: 3 })).toThrow(
      expect.objectContaining({ code: 400, details: 'Property .redeemables should NOT have fewer than 1 items' }),
    )
  })
})

describe('resolveStackingRules: malformed category limits', () => {
  it('rejects a category-limits value that is not an object', () => {
    const input = { applicable_redeemables_category_limits: 'cat_a' } as unknown as Partial<StackingRules>
    expect(detailsOf(input)).toBe(
      '400 invalid_payload applicable_redeemables_category_limits: Property .applicable_redeemables_category_limits must be object',
    )
  })
})
