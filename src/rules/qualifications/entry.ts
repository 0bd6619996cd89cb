import type { QualificationExpand, QualificationsRedeemable } from '../../model/qualification'
import type { StackingRules } from '../../model/stacking'
import type { ValidationRuleAssignment } from '../../model/validation-rule'
import {
  type ExpandOption,
  type PipelineResult,
  type RedeemableSubject,
  redeemableResult,
  type SubjectOutcome,
} from '../redeemables'

/** Shapes a listed candidate (one redeemable, or a stack and its tiers) as the hosted list entry. */
export function qualificationEntry(args: {
  decision: PipelineResult
  subjects: readonly RedeemableSubject[]
  rules: StackingRules
  expand: ReadonlySet<QualificationExpand>
  /** Set for a promotion stack: the entry is the stack, its tiers are `redeemables`. */
  stack?: { id: string; name: string; created_at: string; categories: QualificationsRedeemable['categories'] }
}): QualificationsRedeemable {
  const expand = new Set<ExpandOption>()
  if (args.expand.has('redeemable')) expand.add('redeemable')
  if (args.expand.has('category')) expand.add('category')
  const bySubject = new Map(args.subjects.map((s) => [s.index, s]))
  const entries = args.decision.outcomes
    .filter((o) => o.status === 'APPLICABLE' && args.decision.redeem.includes(o.index))
    .map((o) => entryOf(o, bySubject.get(o.index) as RedeemableSubject, args.rules, expand, args.expand))
  const stack = args.stack
  if (!stack) return entries[0] as QualificationsRedeemable
  return {
    id: stack.id,
    object: 'promotion_stack',
    created_at: stack.created_at,
    result: {},
    order: args.decision.order,
    categories: stack.categories,
    name: stack.name,
    redeemables: entries,
  }
}

function entryOf(
  outcome: SubjectOutcome,
  subject: RedeemableSubject,
  rules: StackingRules,
  expand: ReadonlySet<ExpandOption>,
  asked: ReadonlySet<QualificationExpand>,
): QualificationsRedeemable {
  const shown = redeemableResult(outcome, subject, rules, expand)
  const entry: QualificationsRedeemable = {
    id: shown.id,
    object: shown.object,
    created_at: subject.voucher?.created_at ?? subject.tier?.created_at ?? '',
    result: shown.result,
    categories: shown.categories,
  }
  if (shown.order) entry.order = shown.order
  if (shown.applicable_to) entry.applicable_to = shown.applicable_to
  if (shown.inapplicable_to) entry.inapplicable_to = shown.inapplicable_to
  if (subject.tier) entry.banner = subject.tier.banner ?? null
  if (shown.metadata !== undefined) entry.metadata = shown.metadata
  if (shown.name !== undefined) entry.name = shown.name
  if (shown.campaign_name !== undefined) entry.campaign_name = shown.campaign_name
  if (shown.campaign_id !== undefined) entry.campaign_id = shown.campaign_id
  if (asked.has('validation_rules')) {
    const data: ValidationRuleAssignment[] =
      subject.tier?.validation_rule_assignments?.data ?? subject.campaign?.validation_rules_assignments?.data ?? []
    entry.validation_rules_assignments = { object: 'list', data_ref: 'data', data, total: data.length }
  }
  return entry
}
