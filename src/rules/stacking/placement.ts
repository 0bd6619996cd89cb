import type { StackingRules } from '../../model/stacking'

export type ResultStatus = 'APPLICABLE' | 'INAPPLICABLE' | 'SKIPPED'

/**
 * The list fields of a validation result (docs/concepts.md#results-and-their-keys,
 * docs/behaviour.md#partial-placement).
 */
export interface Placement<T> {
  valid: boolean
  redeemables: T[]
  inapplicable_redeemables: T[]
  skipped_redeemables: T[]
}

type PlacementRules = Pick<StackingRules, 'redeemables_application_mode'>

/**
 * Where each redeemable result goes (docs/behaviour.md#partial-placement). `results` should come in application order:
 * each APPLICABLE result carries the order after it, so the running totals then read top-down
 * (under REQUESTED_ORDER this is request order). Every list keeps that order.
 *
 * - PARTIAL: `redeemables` holds only the APPLICABLE results (the service interface's wording; its example contradicts it,
 *   docs/concepts.md#results-and-their-keys); INAPPLICABLE and SKIPPED ones appear only in their side lists.
 * - ALL: `redeemables` holds every result; the side lists hold the INAPPLICABLE / SKIPPED ones too.
 * - `valid` is false exactly when at least one result is INAPPLICABLE, in either mode. A request
 *   whose redeemables are all SKIPPED (say, `no_effect`) and none INAPPLICABLE is therefore valid:
 *   docs/behaviour.md#partial-placement ties `valid` to inapplicability only.
 */
export function placeResults<T extends { status: ResultStatus }>(
  results: readonly T[],
  rules: PlacementRules,
): Placement<T> {
  const inapplicable = results.filter((r) => r.status === 'INAPPLICABLE')
  const skipped = results.filter((r) => r.status === 'SKIPPED')
  return {
    valid: inapplicable.length === 0,
    redeemables: redeemablesList(results, rules.redeemables_application_mode),
    inapplicable_redeemables: inapplicable,
    skipped_redeemables: skipped,
  }
}

function redeemablesList<T extends { status: ResultStatus }>(
  results: readonly T[],
  mode: StackingRules['redeemables_application_mode'],
): T[] {
  switch (mode) {
    case 'PARTIAL':
      return results.filter((r) => r.status === 'APPLICABLE')
    case 'ALL':
      return [...results]
    default: {
      const _never: never = mode
      return _never
    }
  }
}

/**
 * The results a redemption redeems. Under ALL a single INAPPLICABLE result fails the whole request and
 * nothing is redeemed ("the whole request fails and nothing applies",
 * docs/concepts.md#what-each-setting-does); under PARTIAL the APPLICABLE ones are redeemed and the rest left
 * out.
 */
export function appliedResults<T extends { status: ResultStatus }>(results: readonly T[], rules: PlacementRules): T[] {
  const applicable = results.filter((r) => r.status === 'APPLICABLE')
  switch (rules.redeemables_application_mode) {
    case 'PARTIAL':
      return applicable
    case 'ALL':
      return results.some((r) => r.status === 'INAPPLICABLE') ? [] : applicable
    default: {
      const _never: never = rules.redeemables_application_mode
      return _never
    }
  }
}
