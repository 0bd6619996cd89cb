import * as v from 'valibot'
import { EngineError } from '../errors'
import type { StackingRules } from '../model/stacking'
import { nonEmptyString, opt } from './common'

/*
 * Stacking rules: field bounds of reference §2.1 (the hosted messages read "must be <= 30"), then the
 * cross-field bounds, checked on the merged object so a partial body is judged with what it leaves in force.
 */

const bounded = (min: number, max: number) =>
  v.pipe(
    v.number(),
    v.integer('must be an integer'),
    v.minValue(min, `must be >= ${min}`),
    v.maxValue(max, `must be <= ${max}`),
  )

const categoryIds = v.array(nonEmptyString)

export const stackingRulesInput = v.object({
  redeemables_limit: opt(bounded(1, 30)),
  applicable_redeemables_limit: opt(bounded(1, 30)),
  applicable_redeemables_per_category_limit: opt(bounded(1, 30)),
  applicable_redeemables_category_limits: opt(v.record(nonEmptyString, bounded(1, 10))),
  applicable_exclusive_redeemables_limit: opt(bounded(1, 5)),
  applicable_exclusive_redeemables_per_category_limit: opt(bounded(1, 30)),
  exclusive_categories: opt(categoryIds),
  joint_categories: opt(categoryIds),
  redeemables_application_mode: opt(v.picklist(['ALL', 'PARTIAL'])),
  redeemables_sorting_rule: opt(v.picklist(['REQUESTED_ORDER', 'CATEGORY_HIERARCHY'])),
  redeemables_products_application_mode: opt(v.picklist(['STACK', 'ONCE'])),
  redeemables_no_effect_rule: opt(v.picklist(['REDEEM_ANYWAY', 'SKIP'])),
  no_effect_skip_categories: opt(categoryIds),
  no_effect_redeem_anyway_categories: opt(categoryIds),
  redeemables_rollback_order_mode: opt(v.picklist(['WITH_ORDER', 'WITHOUT_ORDER'])),
  discount_calculation_mode: opt(v.picklist(['DISCOUNTED_AMOUNT', 'INITIAL_AMOUNT'])),
  initial_amount_mode_categories: opt(categoryIds),
  discounted_amount_mode_categories: opt(categoryIds),
  grouped_redeemables_sorting_rule: opt(v.nullable(v.picklist(['JOINT_ALWAYS_LAST']))),
})
export type StackingRulesInput = v.InferOutput<typeof stackingRulesInput>

/** Pairs of category lists that would give one category two contradictory settings. */
const DISJOINT_LISTS = [
  ['exclusive_categories', 'joint_categories'],
  ['no_effect_skip_categories', 'no_effect_redeem_anyway_categories'],
  ['initial_amount_mode_categories', 'discounted_amount_mode_categories'],
] as const

/** Throws a 400 naming the field when the merged rules break a bound between fields. */
export function checkStackingBounds(rules: StackingRules, root = ''): void {
  const at = (field: string) => (root === '' ? field : `${root}.${field}`)
  const atMost = (field: keyof StackingRules, value: number, bound: keyof StackingRules, max: number) => {
    if (value > max) throw EngineError.invalid(at(field), `must be <= ${bound} (${max})`)
  }
  atMost(
    'applicable_redeemables_limit',
    rules.applicable_redeemables_limit,
    'redeemables_limit',
    rules.redeemables_limit,
  )
  atMost(
    'applicable_redeemables_per_category_limit',
    rules.applicable_redeemables_per_category_limit,
    'applicable_redeemables_limit',
    rules.applicable_redeemables_limit,
  )
  atMost(
    'applicable_exclusive_redeemables_per_category_limit',
    rules.applicable_exclusive_redeemables_per_category_limit,
    'applicable_exclusive_redeemables_limit',
    rules.applicable_exclusive_redeemables_limit,
  )
  // A category's own limit cannot exceed the global applicable limit (dashboard rule, reference §2.1).
  for (const [category, limit] of Object.entries(rules.applicable_redeemables_category_limits ?? {})) {
    if (limit > rules.applicable_redeemables_limit) {
      throw EngineError.invalid(
        at(`applicable_redeemables_category_limits.${category}`),
        `must be <= applicable_redeemables_limit (${rules.applicable_redeemables_limit})`,
      )
    }
  }
  for (const [a, b] of DISJOINT_LISTS) {
    const first = new Set(rules[a])
    const shared = rules[b].find((id) => first.has(id))
    if (shared !== undefined) throw EngineError.invalid(at(b), `must not share category ${shared} with ${a}`)
  }
}
