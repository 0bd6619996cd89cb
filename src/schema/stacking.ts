import { nonEmptyString, opt } from './common'
import * as v from './valibot'

/*
 * Stacking rules: the shape and the field bounds of docs/concepts.md#stacking-rules (the hosted messages read
 * "must be <= 30"). The bounds between fields are checked on the merged object by `resolveStackingRules`
 * (src/rules/stacking), so a partial body is judged with what it leaves in force.
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
  applicable_exclusive_redeemables_per_category_limit: opt(bounded(1, 5)),
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
