import { describe, expect, it } from 'vitest'
import { resolveStackingRules, type SortCandidate, sortRedeemables } from '../../../src/rules/stacking'

function at(index: number, ...categories: [string, number][]): SortCandidate {
  return { index, categories: categories.map(([id, hierarchy]) => ({ id, hierarchy })) }
}

const exclusive_categories = ['cat_vip']
const joint_categories = ['cat_joint']

describe('sortRedeemables', () => {
  const candidates = [at(0, ['cat_b', 3]), at(1, ['cat_a', 0]), at(2), at(3, ['cat_c', 1]), at(4, ['cat_d', 3])]

  it('REQUESTED_ORDER keeps the request order', () => {
    expect(sortRedeemables(candidates, resolveStackingRules())).toEqual([0, 1, 2, 3, 4])
  })

  it('CATEGORY_HIERARCHY puts lower hierarchies first; ties and the uncategorised (hierarchy 1) keep request order', () => {
    const rules = resolveStackingRules({ redeemables_sorting_rule: 'CATEGORY_HIERARCHY' })
    expect(sortRedeemables(candidates, rules)).toEqual([1, 2, 3, 0, 4])
  })

  it('CATEGORY_HIERARCHY sorts a redeemable with several categories by its best one', () => {
    const rules = resolveStackingRules({ redeemables_sorting_rule: 'CATEGORY_HIERARCHY' })
    expect(sortRedeemables([at(0, ['cat_a', 2]), at(1, ['cat_b', 5], ['cat_c', 1])], rules)).toEqual([1, 0])
  })

  it('a category without a hierarchy counts as the default 1', () => {
    const rules = resolveStackingRules({ redeemables_sorting_rule: 'CATEGORY_HIERARCHY' })
    const noHierarchy: SortCandidate = { index: 0, categories: [{ id: 'cat_x' }] }
    expect(sortRedeemables([noHierarchy, at(1, ['cat_a', 0]), at(2, ['cat_b', 1])], rules)).toEqual([1, 0, 2])
  })

  it('JOINT_ALWAYS_LAST: exclusive first, common next, joint last, ignoring hierarchies', () => {
    const rules = resolveStackingRules({
      redeemables_sorting_rule: 'CATEGORY_HIERARCHY',
      grouped_redeemables_sorting_rule: 'JOINT_ALWAYS_LAST',
      exclusive_categories,
      joint_categories,
    })
    const mixed = [
      at(0, ['cat_joint', 0]),
      at(1, ['cat_a', 2]),
      at(2, ['cat_vip', 9]),
      at(3, ['cat_b', 1]),
      at(4, ['cat_joint', 0]),
    ]
    expect(sortRedeemables(mixed, rules)).toEqual([2, 3, 1, 0, 4])
  })

  it('JOINT_ALWAYS_LAST with REQUESTED_ORDER keeps request order inside each group', () => {
    const rules = resolveStackingRules({
      grouped_redeemables_sorting_rule: 'JOINT_ALWAYS_LAST',
      exclusive_categories,
      joint_categories,
    })
    const mixed = [at(0, ['cat_joint', 0]), at(1, ['cat_a', 2]), at(2, ['cat_vip', 9]), at(3), at(4, ['cat_vip', 0])]
    expect(sortRedeemables(mixed, rules)).toEqual([2, 4, 1, 3, 0])
  })

  it('without the grouping (combined) the main rule alone orders joint and exclusive ones', () => {
    const rules = resolveStackingRules({
      redeemables_sorting_rule: 'CATEGORY_HIERARCHY',
      exclusive_categories,
      joint_categories,
    })
    expect(sortRedeemables([at(0, ['cat_vip', 4]), at(1, ['cat_joint', 0])], rules)).toEqual([1, 0])
  })
})
