import type { Category, Metadata } from '../../model/common'
import type { Discount } from '../../model/discount'
import type { CalculatedOrder } from '../../model/order'
import type { StackingRules } from '../../model/stacking'
import type { ApplicableToResultList } from '../../model/validation-rule'
import type { Bundle } from '../conditions'
import { resolveEffect } from '../discounts/default-effect'
import type { FormulaUse } from '../formulas'
import { placeResults, withStackingRulesType } from '../stacking'
import { targetingOf } from './decide'
import type { Explanation, PipelineResult, RedeemableError, RedeemableSubject, SubjectOutcome } from './types'

export type ExpandOption = 'order' | 'redeemable' | 'category' | 'redemption'

/** One entry of `redeemables` in a validation result, as the spec shows it. */
export interface RedeemableResult {
  status: 'APPLICABLE' | 'INAPPLICABLE' | 'SKIPPED'
  id: string
  object: 'voucher' | 'promotion_tier'
  order?: CalculatedOrder
  applicable_to?: ApplicableToResultList
  inapplicable_to?: ApplicableToResultList
  result:
    | { discount: Discount; bundle?: Bundle }
    | { gift: { credits: number; balance: number } }
    | { loyalty_card: { points: number } }
    | { error: RedeemableError; details?: { key: string; message: string }; bundle?: Bundle }
    | { details: { key: string; message: string } }
    | Record<string, never>
  categories: Category[]
  metadata?: Metadata
  campaign_name?: string | null
  campaign_id?: string | null
  name?: string | null
  /** Which check decided an INAPPLICABLE or SKIPPED result, with the expected and actual values. */
  explanation?: Explanation
  /** APPLICABLE with formulas: how each formula came out, and where the static value was the fallback. */
  formulas?: FormulaUse[]
}

export interface ValidationResult {
  id: string
  valid: boolean
  redeemables: RedeemableResult[]
  skipped_redeemables: RedeemableResult[]
  inapplicable_redeemables: RedeemableResult[]
  order: CalculatedOrder
  tracking_id: string | null
  session?: { key: string; type: 'LOCK'; ttl: number; ttl_unit: string }
  stacking_rules: StackingRules
}

const EMPTY_LIST: ApplicableToResultList = Object.freeze({
  object: 'list',
  data_ref: 'data',
  data: [],
  total: 0,
}) as ApplicableToResultList

/** Shapes the pipeline's decision into the spec's validation result. */
export function validationResult(args: {
  id: string
  decision: PipelineResult
  subjects: readonly RedeemableSubject[]
  rules: StackingRules
  expand: ReadonlySet<ExpandOption>
  trackingId: string | null
  session?: ValidationResult['session']
}): ValidationResult {
  const bySubject = new Map(args.subjects.map((s) => [s.index, s]))
  const results = args.decision.outcomes.map((o) =>
    redeemableResult(o, bySubject.get(o.index) as RedeemableSubject, args.rules, args.expand),
  )
  const placed = placeResults(results, args.rules)
  const result: ValidationResult = {
    id: args.id,
    valid: placed.valid,
    redeemables: placed.redeemables,
    skipped_redeemables: placed.skipped_redeemables,
    inapplicable_redeemables: placed.inapplicable_redeemables,
    order: withStatus(args.decision.order),
    tracking_id: args.trackingId,
    stacking_rules: args.rules,
  }
  if (args.session) result.session = args.session
  return result
}

/**
 * A validation's orders show a status (the spec: `CREATED` shown): the request's or the stored
 * order's, else `CREATED`, since validating creates nothing. A redemption stores its own (`PAID`).
 */
function withStatus(order: CalculatedOrder): CalculatedOrder {
  return order.status === undefined ? { ...order, status: 'CREATED' } : order
}

export function redeemableResult(
  outcome: SubjectOutcome,
  subject: RedeemableSubject,
  rules: StackingRules,
  expand: ReadonlySet<ExpandOption>,
): RedeemableResult {
  const base: RedeemableResult = {
    status: outcome.status,
    id: subject.voucher?.code ?? subject.tier?.id ?? subject.requested_id,
    object: subject.object,
    result: {},
    categories: expand.has('category') ? withStackingRulesType(subject.categories, rules) : subject.categories,
  }
  if (expand.has('redeemable')) {
    base.metadata = subject.voucher?.metadata ?? subject.tier?.metadata ?? {}
    base.campaign_name = subject.campaign?.name ?? subject.voucher?.campaign ?? null
    base.campaign_id = subject.campaign?.id ?? subject.voucher?.campaign_id ?? subject.tier?.campaign_id ?? null
    // A tier's own name; a voucher has none, so it shows its campaign's (null for a standalone code).
    base.name = subject.tier ? subject.tier.name : (subject.campaign?.name ?? subject.voucher?.campaign ?? null)
  }
  switch (outcome.status) {
    case 'APPLICABLE': {
      base.order = withStatus(outcome.order)
      base.applicable_to = outcome.step?.applicable_to ?? EMPTY_LIST
      base.inapplicable_to = outcome.step?.inapplicable_to ?? EMPTY_LIST
      base.result = applicableResult(outcome, subject)
      if (outcome.formulas) base.formulas = outcome.formulas
      return base
    }
    case 'INAPPLICABLE': {
      const result: RedeemableResult['result'] = { error: outcome.error }
      if (outcome.details) result.details = outcome.details
      if (outcome.bundle) result.bundle = outcome.bundle
      return { ...base, result, explanation: outcome.explanation }
    }
    case 'SKIPPED':
      return { ...base, result: { details: outcome.details }, explanation: outcome.explanation }
    default: {
      const _never: never = outcome
      return _never
    }
  }
}

function applicableResult(
  outcome: Extract<SubjectOutcome, { status: 'APPLICABLE' }>,
  subject: RedeemableSubject,
): RedeemableResult['result'] {
  if (outcome.gift) return { gift: outcome.gift }
  if (outcome.loyalty_card) return { loyalty_card: outcome.loyalty_card }
  const stored = outcome.discount ?? subject.tier?.action.discount ?? subject.voucher?.discount
  if (!stored) return {}
  const discount = shownDiscount(stored, subject)
  return outcome.bundle ? { discount, bundle: outcome.bundle } : { discount }
}

/**
 * The discount as the calculation used it: every stored field, the `effect` it applied (the default of
 * docs/concepts.md#types-and-effects when the stored discount names none) and `is_dynamic` (true only when a
 * formula set a value).
 */
function shownDiscount(discount: Discount, subject: RedeemableSubject): Discount {
  const { effect } = resolveEffect(discount, targetingOf(subject))
  return { ...discount, effect, is_dynamic: discount.is_dynamic ?? false } as Discount
}
