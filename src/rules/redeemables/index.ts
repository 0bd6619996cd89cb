/** The validation of a stackable request as one pure decision, and its wire result. */
export { type CheckFailure, checkRules, checkSubject, rewardPoints } from './check'
export { decideRedeemables } from './decide'
export {
  type ExpandOption,
  type RedeemableResult,
  redeemableResult,
  type ValidationResult,
  validationResult,
} from './result'
export { revertOrder } from './rollback'
export type {
  Explanation,
  PipelineInput,
  PipelineResult,
  RedeemableError,
  RedeemableSubject,
  SubjectOutcome,
} from './types'
