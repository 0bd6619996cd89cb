import type { Category, Metadata } from '../../model/common'
import type { Discount } from '../../model/discount'
import type { CalculatedOrder } from '../../model/order'
import type { ValidationSession } from '../../model/redemption'
import type { StackingRules } from '../../model/stacking'
import type { ApplicableToResultList } from '../../model/validation-rule'
import type { Bundle } from '../conditions'
import { resolveEffect } from '../discounts/default-effect'
import type { FormulaUse } from '../formulas'
import { placeResults, withStackingRulesType } from '../stacking'
import { targetingOf } from './decide'
import type { Explanation, PipelineResult, RedeemableError, RedeemableSubject, SubjectOutcome } from './pipeline-types'

export type ExpandOption = 'order' | 'redeemable' | 'category' | 'redemption'

/**
 * One entry of `redeemables` in a validation result, as the service interface shows it: what it carries depends
 * on its `status` (switch on it and the fields of that case are typed).
 */
export type RedeemableResult = ApplicableResult | InapplicableResult | SkippedResult

/** The fields every redeemable result has, whatever its status. */
export interface RedeemableResultBase {
  id: string
  object: 'voucher' | 'promotion_tier'
  categories: Category[]
  metadata?: Metadata
  campaign_name?: string | null
  campaign_id?: string | null
  name?: string | null
}

export interface ApplicableResult extends RedeemableResultBase {
  status: 'APPLICABLE'
  order: CalculatedOrder
  applicable_to: ApplicableToResultList
  inapplicable_to: ApplicableToResultList
  result:
    | { discount: Discount; bundle?: Bundle }
    | { gift: { credits: number; balance: number } }
    | { loyalty_card: { points: number } }
    | Record<string, never>
  /** How each formula came out, and where the static value was the fallback. */
  formulas?: FormulaUse[]
  explanation?: never
}

/** What only an applicable result carries is absent from the others (so reading it needs no narrowing). */
export interface NotApplied {
  order?: never
  applicable_to?: never
  inapplicable_to?: never
  formulas?: never
}

export interface InapplicableResult extends RedeemableResultBase, NotApplied {
  status: 'INAPPLICABLE'
  result: { error: RedeemableError; details?: { key: string; message: string }; bundle?: Bundle }
  /** Which check decided it, with the expected and actual values. */
  explanation?: Explanation
}

export interface SkippedResult extends RedeemableResultBase, NotApplied {
  status: 'SKIPPED'
  result: { details: { key: string; message: string } }
  /** Which stacking limit or category excluded it. */
  explanation?: Explanation
}

export interface ValidationResult {
  id: string
  valid: boolean
  redeemables: RedeemableResult[]
  skipped_redeemables: RedeemableResult[]
  inapplicable_redeemables: RedeemableResult[]
  order: CalculatedOrder
  tracking_id: string | null
  session?: { key: string; type: 'LOCK'; ttl: number; ttl_unit: ValidationSession['ttl_unit'] }
  stacking_rules: StackingRules
}

const EMPTY_LIST: ApplicableToResultList = Object.freeze({
  object: 'list',
  data_ref: 'data',
  data: [],
  total: 0,
}) as ApplicableToResultList

/** Shapes the pipeline's decision into the service interface's validation result. */
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
 * A validation's orders show a status (the service interface: `CREATED` shown): the request's or the stored
 * order's, else `CREATED`, since validating creates nothing. A redemption stores its own (`PAID`).
 */
function withStatus(order: CalculatedOrder): CalculatedOrder {
  if (order.status !== undefined) return order
  // A plain copy, then the assignment (V8 takes a slow path for a spread with additions).
  const out = { ...order }
  out.status = 'CREATED'
  return out
}

export function redeemableResult(
  outcome: SubjectOutcome,
  subject: RedeemableSubject,
  rules: StackingRules,
  expand: ReadonlySet<ExpandOption>,
): RedeemableResult {
  const base: RedeemableResultBase = {
    id: subject.voucher?.code ?? subject.tier?.id ?? subject.requested_id,
    object: subject.object,
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
      const applicable: ApplicableResult = {
        status: 'APPLICABLE',
        ...base,
        order: withStatus(outcome.order),
        applicable_to: outcome.step?.applicable_to ?? EMPTY_LIST,
        inapplicable_to: outcome.step?.inapplicable_to ?? EMPTY_LIST,
        result: applicableResult(outcome, subject),
      }
      if (outcome.formulas) applicable.formulas = outcome.formulas
      return applicable
    }
    case 'INAPPLICABLE': {
      const result: InapplicableResult['result'] = { error: outcome.error }
      if (outcome.details) result.details = outcome.details
      if (outcome.bundle) result.bundle = outcome.bundle
      return { status: 'INAPPLICABLE', ...base, result, explanation: outcome.explanation }
    }
    case 'SKIPPED':
      return { status: 'SKIPPED', ...base, result: { details: outcome.details }, explanation: outcome.explanation }
    default: {
      const _never: never = outcome
      return _never
    }
  }
}

function applicableResult(
  outcome: Extract<SubjectOutcome, { status: 'APPLICABLE' }>,
  subject: RedeemableSubject,
): ApplicableResult['result'] {
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
