import type { StackingRules } from '../../model/stacking'
import { bestHierarchy, kindOf } from './category-kinds'
import type { SortCandidate, StackingKind } from './stacking-types'

/** The project's stacking settings `sortRedeemables` orders by. */
export type SortRules = Pick<
  StackingRules,
  'redeemables_sorting_rule' | 'grouped_redeemables_sorting_rule' | 'exclusive_categories' | 'joint_categories'
>

/**
 * With `grouped_redeemables_sorting_rule: JOINT_ALWAYS_LAST` (docs/concepts.md#what-each-setting-does): Never-stackable
 * (exclusive) redeemables first, Always-stackable (joint) ones last, whatever their hierarchies. The
 * interface does not place common redeemables; they go between the two groups, so "joint last"
 * holds literally and exclusive ones, which decide whether common ones apply at all, come first.
 */
const GROUP_RANK: Record<StackingKind, number> = { EXCLUSIVE: 0, COMMON: 1, JOINT: 2 }

/**
 * The application order: the request indices of `candidates`, first applied first.
 *
 * - REQUESTED_ORDER: request order.
 * - CATEGORY_HIERARCHY: lower hierarchy first; a redeemable with several categories sorts by its
 *   best (lowest) one, one without categories by `DEFAULT_CATEGORY_HIERARCHY`; ties keep request order.
 * - JOINT_ALWAYS_LAST groups first (exclusive, common, joint) and sorts inside each group by the main
 *   rule above. Without it (null or absent: the "combined" option) the main rule alone decides.
 */
export function sortRedeemables(candidates: readonly SortCandidate[], rules: SortRules): number[] {
  const grouped = rules.grouped_redeemables_sorting_rule === 'JOINT_ALWAYS_LAST'
  const keyed = candidates.map((candidate) => ({
    index: candidate.index,
    group: grouped ? GROUP_RANK[kindOf(candidate.categories, rules)] : 0,
    hierarchy: sortHierarchy(candidate, rules.redeemables_sorting_rule),
  }))
  keyed.sort((a, b) => a.group - b.group || a.hierarchy - b.hierarchy || a.index - b.index)
  return keyed.map((k) => k.index)
}

function sortHierarchy(candidate: SortCandidate, rule: StackingRules['redeemables_sorting_rule']): number {
  switch (rule) {
    case 'REQUESTED_ORDER':
      return 0
    case 'CATEGORY_HIERARCHY':
      return bestHierarchy(candidate.categories)
    default: {
      const _never: never = rule
      return _never
    }
  }
}
