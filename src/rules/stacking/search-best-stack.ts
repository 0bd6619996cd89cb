/**
 * The best stack: of candidates that each give a discount alone, the subset with the largest total
 * discount that the stacking rules and every candidate's conditions accept together. Pure search; the
 * caller evaluates a subset (the validation pipeline) and this module decides which subsets to try.
 *
 * Exact by branch and bound up to `BEST_STACK_EXACT_CANDIDATES` candidates. The bound rests on two
 * facts of the pipeline that hold for the discounts and conditions the engine has, save conditions
 * that only pass on a smaller order (an `order.amount` maximum): a redeemable never discounts more
 * in a stack than alone (the order it applies to only shrinks), and a subset that fails (a limit
 * skips one of its members, a rule turns one down) fails with anything added. Above that count the
 * search runs over the candidates with the largest discounts alone, and says it did (`exact: false`).
 */

/** Candidates searched exactly; above, the best ones alone are kept (documented approximation). */
export const BEST_STACK_EXACT_CANDIDATES = 16

export interface BestStackCandidate {
  /** The candidate's identity (a code or tier id): ties go to the smaller sorted list of keys. */
  key: string
  /** Its discount alone, in minor units; > 0. */
  solo: number
}

export interface BestStackOptions {
  /** How many redeemables may apply together (`applicable_redeemables_limit`). */
  slots: number
  /**
   * The total discount of the candidates at these positions applied together (positions ascending:
   * the canonical application order), or null when any of them would not apply.
   */
  evaluate(positions: readonly number[]): number | null
}

export interface BestStack {
  /** Positions into the candidate list, ascending. */
  chosen: number[]
  value: number
  /** False when candidates beyond the exact limit were left out unsearched. */
  exact: boolean
  /** Positions never searched (beyond the exact limit). */
  unsearched: number[]
  /** Subsets evaluated (for benchmarks and tests). */
  evaluated: number
}

export function searchBestStack(candidates: readonly BestStackCandidate[], options: BestStackOptions): BestStack {
  const byValue = candidates
    .map((c, position) => ({ ...c, position }))
    .sort((a, b) => b.solo - a.solo || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  const searched = byValue.slice(0, BEST_STACK_EXACT_CANDIDATES)
  const unsearched = byValue
    .slice(BEST_STACK_EXACT_CANDIDATES)
    .map((c) => c.position)
    .sort((a, b) => a - b)
  const n = searched.length
  // prefix[i] = sum of the i largest solo values from position i on is read as prefix[i + k] - prefix[i].
  const prefix = [0]
  for (const c of searched) prefix.push((prefix.at(-1) as number) + c.solo)
  const slots = Math.max(0, options.slots)

  let best: { members: number[]; value: number; keys: string } = { members: [], value: 0, keys: '' }
  let evaluated = 0

  const better = (value: number, members: readonly number[], keys: string) =>
    value > best.value ||
    (value === best.value &&
      value > 0 &&
      (members.length < best.members.length || (members.length === best.members.length && keys < best.keys)))

  // members: indexes into `searched`, ascending; soloSum: their solo values.
  const visit = (members: number[], soloSum: number, from: number) => {
    const room = slots - members.length
    if (room <= 0) return
    for (let j = from; j < n; j++) {
      const take = Math.min(room - 1, n - j - 1)
      const bound = soloSum + (prefix[j + 1 + take] as number) - (prefix[j] as number)
      // Solo values descend with j, so no later j can do better either.
      if (bound < best.value) return
      const next = [...members, j]
      const positions = next.map((m) => (searched[m] as BestStackCandidate & { position: number }).position)
      positions.sort((a, b) => a - b)
      evaluated++
      const value = options.evaluate(positions)
      if (value === null) continue
      const keys = next
        .map((m) => (searched[m] as BestStackCandidate).key)
        .sort()
        .join('\u0000')
      if (better(value, next, keys)) best = { members: next, value, keys }
      visit(next, soloSum + (searched[j] as BestStackCandidate).solo, j + 1)
    }
  }
  visit([], 0, 0)

  return {
    chosen: best.members
      .map((m) => (searched[m] as BestStackCandidate & { position: number }).position)
      .sort((a, b) => a - b),
    value: best.value,
    exact: unsearched.length === 0,
    unsearched,
    evaluated,
  }
}
