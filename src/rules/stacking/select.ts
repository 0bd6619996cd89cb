import type { StackingRules } from '../../model/stacking'
import { kindOf } from './category-kinds'
import { SKIP_MESSAGES, type SkipKey } from './messages'
import { explainNoEffect } from './no-effect'
import type { SkipExplanation, StackCandidate, StackingKind } from './stacking-types'

/** The project's stacking settings `selectStack` applies. */
export type SelectRules = Pick<
  StackingRules,
  | 'applicable_redeemables_limit'
  | 'applicable_redeemables_per_category_limit'
  | 'applicable_redeemables_category_limits'
  | 'applicable_exclusive_redeemables_limit'
  | 'applicable_exclusive_redeemables_per_category_limit'
  | 'exclusive_categories'
  | 'joint_categories'
  | 'redeemables_application_mode'
  | 'redeemables_no_effect_rule'
  | 'no_effect_skip_categories'
  | 'no_effect_redeem_anyway_categories'
>

/** What stacking decided for one candidate; `index` is its request index. */
export type StackDecision =
  | { index: number; kind: StackingKind; decision: 'APPLY' }
  /** Its own checks failed: it stays INAPPLICABLE with the error the pipeline found. */
  | { index: number; kind: StackingKind; decision: 'INAPPLICABLE' }
  | {
      index: number
      kind: StackingKind
      decision: 'SKIP'
      key: SkipKey
      message: string
      explanation: SkipExplanation
    }

export type SkipDecision = Extract<StackDecision, { decision: 'SKIP' }>

/**
 * Which candidates apply, and why each other one does not (step 2 of
 * docs/concepts.md#validation-and-redemption; docs/concepts.md#categories, docs/errors.md#skipped-keys).
 * `candidates` come in application order (see `sortRedeemables`); decisions come back in that order.
 *
 * Per candidate, in this order:
 * 1. ALL mode, after the first INAPPLICABLE one (in application order): SKIPPED
 *    `preceding_validation_failed`, whatever its own status. The candidates before it keep their
 *    decisions (APPLICABLE ones are still shown APPLICABLE with what they would give), but under ALL
 *    the request as a whole fails: `valid` is false and nothing is redeemed (see `appliedResults`).
 * 2. INAPPLICABLE stays INAPPLICABLE; it counts toward no limit.
 * 3. COMMON while an EXCLUSIVE one applies anywhere in the request, earlier or later:
 *    `exclusion_rules_not_met`. JOINT ones are never excluded; EXCLUSIVE ones stack with each other
 *    within the exclusive limits.
 * 4. The limits, counting only the redeemables applied so far in application order (joint ones
 *    included): `applicable_redeemables_limit`; per category (`applicable_redeemables_category_limits`
 *    for a category it lists, else `applicable_redeemables_per_category_limit`); for exclusive ones
 *    `applicable_exclusive_redeemables_limit`, then per exclusive category
 *    `applicable_exclusive_redeemables_per_category_limit`.
 * 5. `no_effect` set and the no-effect rule resolves to SKIP: SKIPPED `no_effect`, counting toward
 *    no limit (it is not redeemed), and not a failure under ALL.
 * 6. Otherwise APPLY.
 *
 * "Whatever the order" for exclusivity needs one look-ahead: select once with common ones excluded;
 * if an exclusive one applies that is the answer, else select again with common ones allowed. The
 * second pass cannot apply an exclusive one the first could not (it only has more redeemables
 * counted), so the two passes agree.
 *
 * Re-checks during effect calculation: the decisions are a pure function of the candidates'
 * statuses. When computing effects turns an applied candidate INAPPLICABLE (a running-amount rule)
 * or finds it has no effect, the pipeline marks it (`status: 'INAPPLICABLE'` / `no_effect: true`),
 * calls `selectStack` again and recomputes the effects: a freed slot may let a later candidate apply,
 * a vanished exclusive one may let common ones apply. Marks are only ever added, so this settles in
 * at most as many rounds as there are candidates.
 */
export function selectStack(candidates: readonly StackCandidate[], rules: SelectRules): StackDecision[] {
  const exclusiveFirst = fold(candidates, rules, true)
  const winner = exclusiveFirst.find((d) => d.decision === 'APPLY' && d.kind === 'EXCLUSIVE')
  if (winner === undefined) return fold(candidates, rules, false)
  const winnerCandidate = candidates.find((c) => c.index === winner.index)
  const winnerCategory = winnerCandidate?.categories.find((c) => rules.exclusive_categories.includes(c.id))?.id
  return exclusiveFirst.map((d) =>
    d.decision === 'SKIP' && d.key === 'exclusion_rules_not_met'
      ? {
          ...d,
          explanation: {
            ...d.explanation,
            ...(winnerCategory === undefined ? {} : { category_id: winnerCategory }),
            blocked_by: winner.index,
          },
        }
      : d,
  )
}

function fold(candidates: readonly StackCandidate[], rules: SelectRules, excludeCommon: boolean): StackDecision[] {
  const applied: number[] = []
  const appliedByCategory = new Map<string, number[]>()
  const exclusiveApplied: number[] = []
  const exclusiveByCategory = new Map<string, number[]>()
  let failedAt: number | undefined

  return candidates.map((candidate): StackDecision => {
    const { index } = candidate
    const kind = kindOf(candidate.categories, rules)
    const skip = (key: SkipKey, explanation: SkipExplanation): StackDecision => ({
      index,
      kind,
      decision: 'SKIP',
      key,
      message: SKIP_MESSAGES[key],
      explanation,
    })

    if (failedAt !== undefined) {
      return skip('preceding_validation_failed', {
        limit: 'redeemables_application_mode',
        value: 'ALL',
        blocked_by: failedAt,
      })
    }
    if (candidate.status === 'INAPPLICABLE') {
      if (rules.redeemables_application_mode === 'ALL') failedAt = index
      return { index, kind, decision: 'INAPPLICABLE' }
    }
    if (excludeCommon && kind === 'COMMON') {
      // blocked_by and the category are filled in by selectStack once the winner is known.
      return skip('exclusion_rules_not_met', { limit: 'exclusive_categories', value: 'EXCLUSIVE' })
    }

    if (applied.length >= rules.applicable_redeemables_limit) {
      return skip('applicable_redeemables_limit_exceeded', {
        limit: 'applicable_redeemables_limit',
        value: rules.applicable_redeemables_limit,
        counted: [...applied],
      })
    }
    const categoryIds = [...new Set(candidate.categories.map((c) => c.id))]
    for (const categoryId of categoryIds) {
      const own = rules.applicable_redeemables_category_limits?.[categoryId]
      const limit = own ?? rules.applicable_redeemables_per_category_limit
      const counted = appliedByCategory.get(categoryId) ?? []
      if (counted.length >= limit) {
        return skip('applicable_redeemables_per_category_limit_exceeded', {
          limit:
            own === undefined ? 'applicable_redeemables_per_category_limit' : 'applicable_redeemables_category_limits',
          value: limit,
          category_id: categoryId,
          counted: [...counted],
        })
      }
    }
    const exclusiveIds = categoryIds.filter((id) => rules.exclusive_categories.includes(id))
    if (kind === 'EXCLUSIVE') {
      if (exclusiveApplied.length >= rules.applicable_exclusive_redeemables_limit) {
        return skip('applicable_exclusive_redeemables_limit_exceeded', {
          limit: 'applicable_exclusive_redeemables_limit',
          value: rules.applicable_exclusive_redeemables_limit,
          counted: [...exclusiveApplied],
        })
      }
      for (const categoryId of exclusiveIds) {
        const counted = exclusiveByCategory.get(categoryId) ?? []
        if (counted.length >= rules.applicable_exclusive_redeemables_per_category_limit) {
          return skip('applicable_exclusive_redeemables_per_category_limit_exceeded', {
            limit: 'applicable_exclusive_redeemables_per_category_limit',
            value: rules.applicable_exclusive_redeemables_per_category_limit,
            category_id: categoryId,
            counted: [...counted],
          })
        }
      }
    }
    if (candidate.no_effect === true) {
      const verdict = explainNoEffect(candidate.categories, rules)
      if (verdict.decision === 'SKIP') {
        return skip('no_effect', {
          limit:
            verdict.decided_by === 'no_effect_skip_categories'
              ? 'no_effect_skip_categories'
              : 'redeemables_no_effect_rule',
          value: 'SKIP',
          ...(verdict.category_id === undefined ? {} : { category_id: verdict.category_id }),
        })
      }
    }

    applied.push(index)
    for (const categoryId of categoryIds) push(appliedByCategory, categoryId, index)
    if (kind === 'EXCLUSIVE') {
      exclusiveApplied.push(index)
      for (const categoryId of exclusiveIds) push(exclusiveByCategory, categoryId, index)
    }
    return { index, kind, decision: 'APPLY' }
  })
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key)
  if (list === undefined) map.set(key, [value])
  else list.push(value)
}
