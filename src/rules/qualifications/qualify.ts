import { EngineError } from '../../errors'
import type { QualificationSortingRule } from '../../model/qualification'
import { decideRedeemables, type PipelineInput, type PipelineResult, type RedeemableSubject } from '../redeemables'

/**
 * A qualification decides each candidate with the validation pipeline itself, on the subjects the
 * validation loader read: a candidate is listed exactly when validating it alone applies it.
 */

/** The decision `validateStackable` reaches on these subjects alone (a code, a tier, a stack's tiers). */
export function decideAlone(input: PipelineInput, subjects: readonly RedeemableSubject[]): PipelineResult {
  return decideRedeemables({ ...input, subjects: [...subjects] })
}

/** Validation applies the request: it is valid and something is redeemed. */
export function applies(decision: PipelineResult): boolean {
  return decision.valid && decision.redeem.length > 0
}

/**
 * The discount the applied redeemables give, in minor units: what they take off the order, less
 * gift-card credits and loyalty-point payments (stored value the customer spends, not a discount).
 */
export function discountValue(decision: PipelineResult): number {
  let total = 0
  for (const o of decision.outcomes) {
    if (o.status !== 'APPLICABLE' || !decision.redeem.includes(o.index) || !o.step) continue
    total += o.step.applied.total_discount_amount - (o.step.applied.credited_amount ?? 0)
  }
  return total
}

/** A listed candidate as sorting and paging see it. */
export interface Ranked {
  id: string
  value: number
  created_at: string
}

export interface RankedPage<T> {
  data: T[]
  total: number
  has_more: boolean
  more_starting_after: string | null
}

/** `DEFAULT`: newest first, descending `created_at` (the hosted sorting rule), then by id. */
function byDefault(a: Ranked, b: Ranked): number {
  if (a.created_at !== b.created_at) return a.created_at > b.created_at ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/**
 * Sorts and pages the listed candidates. `DEFAULT`: newest first (then by id); `BEST_DEAL` /
 * `LEAST_DEAL`: by the discount on this cart, largest / smallest first, then as `DEFAULT`. The
 * cursor is the id of the last entry of the previous page (`more_starting_after`); with `DEFAULT`
 * it may also be that entry's `created_at`, as the hosted paging describes: the page then starts at
 * the first entry created before it (docs/qualifications.md#sorting-and-paging).
 */
export function rankAndPage<T extends Ranked>(
  entries: readonly T[],
  rule: QualificationSortingRule,
  limit: number,
  startingAfter: string | undefined,
): RankedPage<T> {
  const sorted = [...entries].sort((a, b) => {
    switch (rule) {
      case 'DEFAULT':
        return byDefault(a, b)
      case 'BEST_DEAL':
        return b.value - a.value || byDefault(a, b)
      case 'LEAST_DEAL':
        return a.value - b.value || byDefault(a, b)
      default: {
        const _never: never = rule
        return _never
      }
    }
  })
  let start = 0
  if (startingAfter !== undefined) {
    const at = sorted.findIndex((e) => e.id === startingAfter)
    const byDate = at < 0 && rule === 'DEFAULT' && !Number.isNaN(Date.parse(startingAfter))
    if (at < 0 && !byDate) {
      throw EngineError.invalid(
        'options.starting_after',
        `names no redeemable this qualification lists (${startingAfter})`,
      )
    }
    if (byDate) {
      const cursor = new Date(startingAfter).toISOString()
      const older = sorted.findIndex((e) => e.created_at < cursor)
      start = older < 0 ? sorted.length : older
    } else start = at + 1
  }
  const data = sorted.slice(start, start + limit)
  const hasMore = start + limit < sorted.length
  return {
    data,
    total: sorted.length,
    has_more: hasMore,
    more_starting_after: hasMore ? ((data.at(-1) as T).id ?? null) : null,
  }
}
