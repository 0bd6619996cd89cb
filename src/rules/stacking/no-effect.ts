import type { StackingRules } from '../../model/stacking'
import { byPrecedence } from './category-kinds'
import type { CategoryRef } from './stacking-types'

type NoEffectRules = Pick<
  StackingRules,
  'redeemables_no_effect_rule' | 'no_effect_skip_categories' | 'no_effect_redeem_anyway_categories'
>

export interface NoEffectVerdict {
  decision: 'SKIP' | 'REDEEM_ANYWAY'
  /** The setting that decided: the global rule, or a per-category override. */
  decided_by: 'redeemables_no_effect_rule' | 'no_effect_skip_categories' | 'no_effect_redeem_anyway_categories'
  category_id?: string
}

/**
 * What to do with a redeemable whose effect came out as nothing (docs/concepts.md#what-each-setting-does: "No effect"):
 * SKIP leaves it unredeemed (SKIPPED `no_effect`, the code stays available), REDEEM_ANYWAY redeems it.
 * A category listed in `no_effect_skip_categories` / `no_effect_redeem_anyway_categories` overrides
 * the global `redeemables_no_effect_rule`; among several categories the first by precedence with an
 * override decides (see `byPrecedence`).
 */
export function explainNoEffect(categories: readonly CategoryRef[], rules: NoEffectRules): NoEffectVerdict {
  for (const category of byPrecedence(categories)) {
    if (rules.no_effect_skip_categories.includes(category.id)) {
      return { decision: 'SKIP', decided_by: 'no_effect_skip_categories', category_id: category.id }
    }
    if (rules.no_effect_redeem_anyway_categories.includes(category.id)) {
      return { decision: 'REDEEM_ANYWAY', decided_by: 'no_effect_redeem_anyway_categories', category_id: category.id }
    }
  }
  return { decision: rules.redeemables_no_effect_rule, decided_by: 'redeemables_no_effect_rule' }
}

export function noEffectDecision(categories: readonly CategoryRef[], rules: NoEffectRules): 'SKIP' | 'REDEEM_ANYWAY' {
  return explainNoEffect(categories, rules).decision
}
