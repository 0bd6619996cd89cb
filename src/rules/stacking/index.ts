/** Stacking: which requested redeemables apply together, in what order, and why the others do not. */

export type { CalculationMode } from './calculation-mode'
export { calculationModeFor } from './calculation-mode'
export {
  bestHierarchy,
  byPrecedence,
  categoryKind,
  DEFAULT_CATEGORY_HIERARCHY,
  kindOf,
  stackingRulesType,
  withStackingRulesType,
} from './category-kinds'
export type { SkipKey } from './messages'
export { SKIP_MESSAGES } from './messages'
export type { NoEffectVerdict } from './no-effect'
export { explainNoEffect, noEffectDecision } from './no-effect'
export type { Placement, ResultStatus } from './placement'
export { appliedResults, placeResults } from './placement'
export { planStack } from './plan-stack'
export { checkRedeemablesCount, resolveStackingRules } from './resolve-rules'
export {
  BEST_STACK_EXACT_CANDIDATES,
  type BestStack,
  type BestStackCandidate,
  type BestStackOptions,
  searchBestStack,
} from './search-best-stack'
export type { SkipDecision, StackDecision } from './select'
export { type SelectRules, selectStack } from './select'
export { type SortRules, sortRedeemables } from './sort'
export type {
  CategoryRef,
  SkipExplanation,
  SortCandidate,
  StackCandidate,
  StackingField,
  StackingKind,
} from './stacking-types'
