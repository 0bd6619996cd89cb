import type { Category } from '../../model/common'
import type { StackingRules } from '../../model/stacking'

/**
 * What stacking needs to know about a category. A full `Category` fits; `hierarchy` may be missing
 * (a category reference without its object), in which case the default hierarchy applies.
 */
export type CategoryRef = Pick<Category, 'id'> & Partial<Pick<Category, 'hierarchy'>>

/** A category's stacking eligibility (docs/concepts.md#categories): Never stackable, Always stackable, or neither. */
export type StackingKind = 'EXCLUSIVE' | 'JOINT' | 'COMMON'

/** A requested redeemable as sorting sees it. `index` is its position in the request. */
export interface SortCandidate {
  index: number
  categories: readonly CategoryRef[]
}

/**
 * A requested redeemable as selection sees it, after its own checks (existence, dates, balances,
 * rules). `no_effect` is set by the pipeline when a previous round computed no effect for it.
 */
export interface StackCandidate extends SortCandidate {
  status: 'APPLICABLE' | 'INAPPLICABLE'
  no_effect?: boolean
}

/** The stacking-rules field that decided a SKIPPED result, i.e. which "no" it was. */
export type StackingField = Extract<
  keyof StackingRules,
  | 'applicable_redeemables_limit'
  | 'applicable_redeemables_per_category_limit'
  | 'applicable_redeemables_category_limits'
  | 'applicable_exclusive_redeemables_limit'
  | 'applicable_exclusive_redeemables_per_category_limit'
  | 'exclusive_categories'
  | 'redeemables_application_mode'
  | 'redeemables_no_effect_rule'
  | 'no_effect_skip_categories'
>

/**
 * Why a redeemable was skipped, beyond the service's key and message (DESIGN.md "Explain every no").
 * - `limit`/`value`: the setting and its effective value (a number for limits; `'EXCLUSIVE'`, `'ALL'`
 *   or `'SKIP'` for the exclusivity, application-mode and no-effect rules).
 * - `category_id`: the category whose limit or setting decided it.
 * - `counted`: request indices of the applied redeemables that already filled the limit.
 * - `blocked_by`: request index of the redeemable that caused it (the exclusive one that wins, or the
 *   first inapplicable one under ALL).
 */
export interface SkipExplanation {
  limit: StackingField
  value: number | string
  category_id?: string
  counted?: readonly number[]
  blocked_by?: number
}
