import type { CheckFailure, Explanation, PipelineInput, PipelineResult, RedeemableSubject } from '../redeemables'
import { searchBestStack } from '../stacking/search-best-stack'
import { applies, decideAlone, discountValue } from './qualify'

/** Why a candidate is not in the best stack: a key, a message, and the check that decided it. */
export interface LeftOut {
  subject: RedeemableSubject
  reason: { key: string; message: string; explanation?: Explanation }
}

export interface BestStackDecision {
  /** The chosen subjects, re-indexed 0… in application-request order: a ready `validateStackable` request. */
  chosen: RedeemableSubject[]
  /** The pipeline's decision on `chosen` alone, as `validateStackable` reaches it. */
  decision: PipelineResult
  /** Its total discount (gift credits and point payments excluded), minor units. */
  total_discount: number
  /** False when there were more candidates than the exact search takes. */
  exact: boolean
  left_out: LeftOut[]
  /** Subsets the search evaluated. */
  evaluated: number
}

const STORED_VALUE = {
  key: 'stored_value',
  message: 'gift cards and loyalty points are the customer’s money: the optimiser never spends them',
}
const NO_DISCOUNT = { key: 'no_discount', message: 'gives no discount on this cart' }
const NOT_SEARCHED = {
  key: 'not_searched',
  message: 'more candidates than the exact search takes: only those with the largest discounts alone were combined',
}
const BETTER = { key: 'better_combination', message: 'a better combination uses this slot' }

/**
 * The subset of `input.subjects` with the largest total discount under the stacking rules and each
 * candidate's conditions; ties go to fewer redeemables, then to the smaller ids. The application
 * order is the stacking rules' sort of the subjects as given (under `REQUESTED_ORDER`: their order in
 * `input.subjects`), so the search is over subsets. Every subset is judged by the validation pipeline.
 */
export function chooseBestStack(input: PipelineInput): BestStackDecision {
  const leftOut: LeftOut[] = []
  const candidates: { subject: RedeemableSubject; solo: number }[] = []
  for (const subject of input.subjects) {
    const type = subject.voucher?.type
    if (type === 'GIFT_VOUCHER' || type === 'LOYALTY_CARD') {
      leftOut.push({ subject, reason: STORED_VALUE })
      continue
    }
    const alone = decideAlone(input, [subject])
    if (!applies(alone)) {
      leftOut.push({ subject, reason: reasonIn(alone, subject.index) ?? NO_DISCOUNT })
      continue
    }
    const solo = discountValue(alone)
    if (solo <= 0) leftOut.push({ subject, reason: NO_DISCOUNT })
    else candidates.push({ subject, solo })
  }

  const subjectsAt = (positions: readonly number[]) =>
    positions.map((p) => (candidates[p] as { subject: RedeemableSubject }).subject)
  const search = searchBestStack(
    candidates.map((c) => ({ key: keyOf(c.subject), solo: c.solo })),
    {
      slots: Math.min(input.rules.applicable_redeemables_limit, input.rules.redeemables_limit),
      evaluate(positions) {
        const decision = decideAlone(input, subjectsAt(positions))
        const all =
          decision.valid &&
          decision.redeem.length === positions.length &&
          decision.outcomes.every((o) => o.status === 'APPLICABLE')
        return all ? discountValue(decision) : null
      },
    },
  )

  const chosenSet = new Set(search.chosen)
  const unsearched = new Set(search.unsearched)
  for (const [position, c] of candidates.entries()) {
    if (chosenSet.has(position)) continue
    if (unsearched.has(position)) {
      leftOut.push({ subject: c.subject, reason: NOT_SEARCHED })
      continue
    }
    const withIt = [...search.chosen, position].sort((a, b) => a - b)
    const decision = decideAlone(input, subjectsAt(withIt))
    leftOut.push({ subject: c.subject, reason: reasonIn(decision, c.subject.index) ?? BETTER })
  }

  const chosen = subjectsAt(search.chosen).map((s, index) => ({ ...s, index }))
  const decision = decideAlone(input, chosen)
  const order = new Map(input.subjects.map((s, i) => [s.index, i]))
  leftOut.sort((a, b) => (order.get(a.subject.index) ?? 0) - (order.get(b.subject.index) ?? 0))
  return {
    chosen,
    decision,
    total_discount: search.value,
    exact: search.exact,
    left_out: leftOut,
    evaluated: search.evaluated,
  }
}

/** A code, else the tier id, else what the request named. */
function keyOf(subject: RedeemableSubject): string {
  return subject.voucher?.code ?? subject.tier?.id ?? subject.requested_id
}

/** The skip or refusal the decision gives this subject, if any. */
function reasonIn(decision: PipelineResult, index: number): LeftOut['reason'] | undefined {
  const outcome = decision.outcomes.find((o) => o.index === index)
  if (!outcome || outcome.status === 'APPLICABLE') return undefined
  if (outcome.status === 'SKIPPED') {
    return { key: outcome.details.key, message: outcome.details.message, explanation: outcome.explanation }
  }
  const failure: CheckFailure = { error: outcome.error, explanation: outcome.explanation }
  return { key: failure.error.key, message: failure.error.message, explanation: failure.explanation }
}
