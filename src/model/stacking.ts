import type { DateTime } from './common'

export interface StackingRules {
  id?: string
  redeemables_limit: number
  applicable_redeemables_limit: number
  applicable_redeemables_per_category_limit: number
  /** `{}` when the project sets none. */
  applicable_redeemables_category_limits: Record<string, number>
  applicable_exclusive_redeemables_limit: number
  applicable_exclusive_redeemables_per_category_limit: number
  exclusive_categories: string[]
  joint_categories: string[]
  redeemables_application_mode: 'ALL' | 'PARTIAL'
  redeemables_sorting_rule: 'REQUESTED_ORDER' | 'CATEGORY_HIERARCHY'
  redeemables_products_application_mode: 'STACK' | 'ONCE'
  redeemables_no_effect_rule: 'REDEEM_ANYWAY' | 'SKIP'
  no_effect_skip_categories: string[]
  no_effect_redeem_anyway_categories: string[]
  redeemables_rollback_order_mode: 'WITH_ORDER' | 'WITHOUT_ORDER'
  discount_calculation_mode: 'DISCOUNTED_AMOUNT' | 'INITIAL_AMOUNT'
  initial_amount_mode_categories: string[]
  discounted_amount_mode_categories: string[]
  /** `null` when the project sets none. */
  grouped_redeemables_sorting_rule: 'JOINT_ALWAYS_LAST' | null
  created_at?: DateTime
  updated_at?: DateTime | null
  object?: 'stacking_rules'
}

/** docs/behaviour.md#default-stacking-rules: the rules a project has until it creates its own. */
export const DEFAULT_STACKING_RULES: StackingRules = Object.freeze({
  redeemables_limit: 30,
  applicable_redeemables_limit: 5,
  applicable_redeemables_per_category_limit: 1,
  applicable_exclusive_redeemables_limit: 1,
  applicable_exclusive_redeemables_per_category_limit: 1,
  exclusive_categories: [],
  joint_categories: [],
  redeemables_application_mode: 'ALL',
  redeemables_sorting_rule: 'REQUESTED_ORDER',
  redeemables_products_application_mode: 'STACK',
  redeemables_no_effect_rule: 'REDEEM_ANYWAY',
  no_effect_skip_categories: [],
  no_effect_redeem_anyway_categories: [],
  redeemables_rollback_order_mode: 'WITH_ORDER',
  discount_calculation_mode: 'DISCOUNTED_AMOUNT',
  initial_amount_mode_categories: [],
  discounted_amount_mode_categories: [],
  applicable_redeemables_category_limits: Object.freeze({}),
  grouped_redeemables_sorting_rule: null,
}) as StackingRules
