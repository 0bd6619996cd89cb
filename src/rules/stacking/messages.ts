/**
 * The SKIPPED detail keys and their messages, exactly as the service sends them (docs/errors.md#skipped-keys).
 * The table is the single source so a key and its message never drift apart.
 */
export const SKIP_MESSAGES = {
  applicable_redeemables_limit_exceeded: 'Applicable redeemables limit exceeded',
  applicable_redeemables_per_category_limit_exceeded: 'Applicable redeemables limit per category exceeded',
  applicable_exclusive_redeemables_limit_exceeded: 'Applicable exclusive redeemables limit exceeded',
  applicable_exclusive_redeemables_per_category_limit_exceeded:
    'Applicable exclusive redeemables limit per category exceeded',
  exclusion_rules_not_met: 'Redeemable cannot be applied due to exclusion rules',
  preceding_validation_failed: 'Redeemable cannot be applied due to preceding validation failure',
  no_effect: 'Redeemable cannot be applied due to no effect',
} as const

export type SkipKey = keyof typeof SKIP_MESSAGES
