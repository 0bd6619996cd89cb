import type { Category } from '../../model/common'
import type { StackingRules } from '../../model/stacking'
import type { CategoryRef, StackingKind } from './stacking-types'

/**
 * The hierarchy of a category created without one, and of a redeemable with no category at all
 * (docs/concepts.md#categories: 1 when unset, at least 0). An uncategorised redeemable thus
 * sorts with default-hierarchy categories, after hierarchy-0 ones: it is neither favoured nor
 * penalised compared with a category nobody configured.
 */
export const DEFAULT_CATEGORY_HIERARCHY = 1

type KindRules = Pick<StackingRules, 'exclusive_categories' | 'joint_categories'>

/**
 * A redeemable's stacking kind from its categories (docs/concepts.md#categories). With several categories,
 * EXCLUSIVE wins over JOINT and JOINT over COMMON: "Never stackable" is a restriction someone set on
 * purpose, and dropping it because the redeemable also sits in another category would let it stack
 * with common ones against that setting.
 */
export function categoryKind(categoryIds: readonly string[], rules: KindRules): StackingKind {
  if (categoryIds.some((id) => rules.exclusive_categories.includes(id))) return 'EXCLUSIVE'
  if (categoryIds.some((id) => rules.joint_categories.includes(id))) return 'JOINT'
  return 'COMMON'
}

/** `categoryKind` over category objects or references. */
export function kindOf(categories: readonly CategoryRef[], rules: KindRules): StackingKind {
  return categoryKind(
    categories.map((c) => c.id),
    rules,
  )
}

/** The `stacking_rules_type` a category carries in validation results; none for a common category. */
export function stackingRulesType(categoryId: string, rules: KindRules): 'EXCLUSIVE' | 'JOINT' | undefined {
  if (rules.exclusive_categories.includes(categoryId)) return 'EXCLUSIVE'
  if (rules.joint_categories.includes(categoryId)) return 'JOINT'
  return undefined
}

/**
 * Categories as a validation result shows them: each with `stacking_rules_type` when the project
 * lists it as exclusive or joint, and without the field otherwise (a stale value is removed).
 */
export function withStackingRulesType(categories: readonly Category[], rules: KindRules): Category[] {
  return categories.map((category) => {
    const { stacking_rules_type: _stale, ...rest } = category
    const type = stackingRulesType(category.id, rules)
    return type === undefined ? rest : { ...rest, stacking_rules_type: type }
  })
}

/** The hierarchy a redeemable sorts by: its best (lowest) category hierarchy. */
export function bestHierarchy(categories: readonly CategoryRef[]): number {
  let best: number | undefined
  for (const category of categories) {
    const h = category.hierarchy ?? DEFAULT_CATEGORY_HIERARCHY
    if (best === undefined || h < best) best = h
  }
  return best ?? DEFAULT_CATEGORY_HIERARCHY
}

/**
 * The categories of one redeemable by precedence: lowest hierarchy first, ties in the order the
 * redeemable lists them. When two of its categories carry contradicting per-category overrides
 * (no-effect, calculation mode), the first one in this order decides: the category that puts the
 * redeemable earliest in CATEGORY_HIERARCHY order is the one that speaks for it.
 */
export function byPrecedence(categories: readonly CategoryRef[]): CategoryRef[] {
  return categories
    .map((category, position) => ({ category, position }))
    .sort(
      (a, b) =>
        (a.category.hierarchy ?? DEFAULT_CATEGORY_HIERARCHY) - (b.category.hierarchy ?? DEFAULT_CATEGORY_HIERARCHY) ||
        a.position - b.position,
    )
    .map((entry) => entry.category)
}
