import { describe, expect, it } from 'vitest'
import type { Category } from '../../../src/model/common'
import { categoryKind, resolveStackingRules, withStackingRulesType } from '../../../src/rules/stacking'

const rules = resolveStackingRules({ exclusive_categories: ['cat_vip'], joint_categories: ['cat_joint'] })

function category(id: string, hierarchy = 1, extra: Partial<Category> = {}): Category {
  return {
    id,
    name: id,
    hierarchy,
    object: 'category',
    created_at: '2024-01-01T00:00:00.000Z',
    updated_at: null,
    ...extra,
  }
}

describe('categoryKind', () => {
  it('classifies by the project lists', () => {
    expect(categoryKind(['cat_vip'], rules)).toBe('EXCLUSIVE')
    expect(categoryKind(['cat_joint'], rules)).toBe('JOINT')
    expect(categoryKind(['cat_other'], rules)).toBe('COMMON')
    expect(categoryKind([], rules)).toBe('COMMON')
  })
  it('exclusive wins over joint, joint over common, for a redeemable in several categories', () => {
    expect(categoryKind(['cat_joint', 'cat_vip'], rules)).toBe('EXCLUSIVE')
    expect(categoryKind(['cat_other', 'cat_joint'], rules)).toBe('JOINT')
  })
})

describe('withStackingRulesType', () => {
  it('adds stacking_rules_type for exclusive and joint categories and removes a stale one', () => {
    const out = withStackingRulesType(
      [category('cat_vip'), category('cat_joint', 2), category('cat_other', 0, { stacking_rules_type: 'JOINT' })],
      rules,
    )
    expect(out.map((c) => [c.id, c.stacking_rules_type])).toEqual([
      ['cat_vip', 'EXCLUSIVE'],
      ['cat_joint', 'JOINT'],
      ['cat_other', undefined],
    ])
    expect('stacking_rules_type' in (out[2] ?? {})).toBe(false)
    expect(out[1]).toEqual({ ...category('cat_joint', 2), stacking_rules_type: 'JOINT' })
  })
})
