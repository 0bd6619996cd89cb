/**
 * The stacking rules a project has before it creates its own (docs/behaviour.md#default-stacking-rules), written out by hand:
 * tests compare the engine's defaults with this literal, not with the engine's own constant.
 */
export const SECTION_9_2_DEFAULTS = {
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
  applicable_redeemables_category_limits: {},
  grouped_redeemables_sorting_rule: null,
} as const
