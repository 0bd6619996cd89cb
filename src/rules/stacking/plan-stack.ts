import { type StackDecision, selectStack } from './select'
import { sortRedeemables } from './sort'
import type { StackCandidate } from './stacking-types'

/**
 * Sorting then selection in one call: `candidates` in any order (each names its request `index`),
 * decisions back in application order. The pipeline computes effects in this order.
 */
export function planStack(
  candidates: readonly StackCandidate[],
  rules: Parameters<typeof sortRedeemables>[1] & Parameters<typeof selectStack>[1],
): StackDecision[] {
  const byIndex = new Map(candidates.map((c) => [c.index, c]))
  const ordered = sortRedeemables(candidates, rules).flatMap((index) => {
    const candidate = byIndex.get(index)
    return candidate === undefined ? [] : [candidate]
  })
  return selectStack(ordered, rules)
}
