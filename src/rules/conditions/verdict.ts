/**
 * A validation rule's verdict for one redeemable: the evaluation, and the hosted service's error
 * for a "no" (docs/errors.md#result-keys): `missing_customer` when a deciding rule needs a customer,
 * `customer_rules_violated` for customer rules, `order_rules_violated` for order / item / product /
 * SKU rules, `redemption_rules_violated` for everything else (budgets, redemption, events, logic).
 * Custom messages: the first deciding rule's own `error.message`, else the validation rule's
 * `error.message`, else none.
 */
import type { ValidationRule } from '../../model/validation-rule'
import { evaluateRules } from './evaluate-rules'
import type { EvaluationContext } from './evaluation-context'
import type { RuleFailure } from './failures'

export type RuleCategory = 'customer' | 'order' | 'redemption'

/** Which hosted error family a rule name belongs to. */
export function ruleCategory(name: string): RuleCategory {
  if (name.startsWith('customer.') || name.startsWith('publication.')) return 'customer'
  if (name.startsWith('order.') || name.startsWith('product.') || name.startsWith('sku.')) return 'order'
  return 'redemption'
}

export type RulesErrorKey =
  | 'missing_customer'
  | 'customer_rules_violated'
  | 'order_rules_violated'
  | 'redemption_rules_violated'

/** The `result.error` of an inapplicable redeemable, as the service interface shows it. */
export interface RulesError {
  code: 400
  key: RulesErrorKey
  message: string
  details: string
  /** The legacy validate endpoint's `reason`. */
  reason: string
  /** The custom message, when the validation rule defines one. */
  error?: { message: string }
}

export interface ValidationRuleVerdict {
  passed: boolean
  /** The rules that decided a "no", in rule order; empty when passed. */
  failures: RuleFailure[]
  error?: RulesError
}

export interface VerdictOptions {
  /**
   * How the redeemable is named in `details`: `Discount Coupon`, `Gift Card`, `Promotion Tier`,
   * `Loyalty Card`, `Referral Code` (see `redeemableLabel`).
   */
  subject?: string
}

/** The label the hosted service uses in "<Kind> cannot be redeemed because of violated validation rules". */
export function redeemableLabel(
  kind: 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD' | 'REFERRAL_CODE' | 'PROMOTION_TIER',
): string {
  switch (kind) {
    case 'DISCOUNT_VOUCHER':
      return 'Discount Coupon'
    case 'GIFT_VOUCHER':
      return 'Gift Card'
    case 'LOYALTY_CARD':
      return 'Loyalty Card'
    case 'REFERRAL_CODE':
      return 'Referral Code'
    case 'PROMOTION_TIER':
      return 'Promotion Tier'
    default: {
      const _never: never = kind
      return _never
    }
  }
}

function flatten(failures: readonly RuleFailure[]): RuleFailure[] {
  return failures.flatMap((f) => [f, ...flatten(f.nested ?? [])])
}

/** The hosted error for a set of deciding failures of validation rule `ruleId`. */
export function rulesError(
  failures: readonly RuleFailure[],
  ruleId: string,
  fallbackMessage: string | null | undefined,
  options: VerdictOptions = {},
): RulesError {
  const subject = options.subject ?? 'Redeemable'
  const all = flatten(failures)
  const custom = all.find((f) => f.message !== undefined)?.message ?? fallbackMessage ?? undefined
  const withCustom = (e: Omit<RulesError, 'code' | 'error'>): RulesError => ({
    code: 400,
    ...e,
    ...(custom === undefined || custom === '' ? {} : { error: { message: custom } }),
  })
  const details = `${subject} cannot be redeemed because of violated validation rules: ${ruleId}`
  if (all.some((f) => f.reason === 'missing_customer')) {
    return withCustom({
      key: 'missing_customer',
      message: 'Missing customer',
      details: 'Customer is required to validate rules',
      reason: 'missing customer',
    })
  }
  const first = failures[0]
  const category = first === undefined ? 'redemption' : ruleCategory(first.name)
  switch (category) {
    case 'customer': {
      const reason =
        first?.name === 'customer.segment'
          ? 'customer does not match segment rules'
          : 'customer does not match validation rules'
      return withCustom({ key: 'customer_rules_violated', message: reason, details, reason })
    }
    case 'order': {
      const reason = 'order does not match validation rules'
      return withCustom({ key: 'order_rules_violated', message: reason, details, reason })
    }
    case 'redemption': {
      const reason = 'redemption does not match validation rules'
      return withCustom({ key: 'redemption_rules_violated', message: reason, details, reason })
    }
    default: {
      const _never: never = category
      return _never
    }
  }
}

/** Evaluates a validation rule's `rules` and, on a "no", builds its hosted error. */
export function evaluateValidationRule(
  rule: Pick<ValidationRule, 'id' | 'rules' | 'error'>,
  ctx: EvaluationContext,
  options: VerdictOptions = {},
): ValidationRuleVerdict {
  const outcome = evaluateRules(rule.rules, ctx)
  if (outcome.passed) return { passed: true, failures: [] }
  return {
    passed: false,
    failures: outcome.failures,
    error: rulesError(outcome.failures, rule.id, rule.error?.message, options),
  }
}
