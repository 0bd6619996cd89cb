/** The validation of a stackable request as one pure decision, and its wire result. */
export {
  hasUnitBudget,
  type UnitScope,
  unitCounterIds,
  unitCounterWrites,
  unitLimitsOf,
  unitRoomOf,
  unitScopeOf,
  unitsTaken,
  unitUseFromRows,
  withUnits,
} from './budgets'
export { type CheckFailure, checkRules, checkSubject, rewardPoints } from './check-subject'
export { decideRedeemables, targetingOf } from './decide'
export type {
  AppliedEffect,
  Explanation,
  PipelineInput,
  PipelineResult,
  RedeemableError,
  RedeemableSubject,
  SubjectOutcome,
  UnitBudgetsUsed,
  UnitBudgetUse,
  UnitLimits,
} from './pipeline-types'
export {
  type ApplicableResult,
  type ExpandOption,
  type InapplicableResult,
  type NotApplied,
  type RedeemableResult,
  type RedeemableResultBase,
  redeemableResult,
  type SkippedResult,
  type ValidationResult,
  validationResult,
} from './result'
export { revertOrder } from './rollback'
