/**
 * The public surface of promo-engine, chosen export by export (docs/design.md#public-surface): the
 * engine and its options, errors, ids, the storage ports and the memory store, the wire types, the
 * money helpers, and the pure rules a host may call on its own data, with their input and output
 * types. `etc/promo-engine.api.md` records it; `npm run api` updates that report after a deliberate
 * change.
 */
export type { CallOptions } from './call-options'
export type { Engine, EngineOptions, EngineSettings } from './engine'
export { createEngine, systemClock } from './engine'
export { EngineError, type EngineErrorInit, type EngineErrorJSON, type ErrorCode, isEngineError } from './errors'
export { createIdGenerator, seededRandom, systemRandom } from './ids'
export {
  createMemoryStore,
  type FaultStep,
  listRows,
  type MemoryStore,
  type MemoryStoreOptions,
  type MemoryStoreStats,
} from './memory'
export type * from './model'
export { DEFAULT_STACKING_RULES, SHIPPING_PRODUCT_ID } from './model'
export {
  allocate,
  allocateByQuantity,
  type Numeric,
  percentOf,
  ROUNDING_MODES,
  type RoundingMode,
  roundToUnit,
} from './money'
export type { RunPendingCallOptions } from './operations/admin/async-actions'
export type { ApplicationCredentials, Headers, OAuthToken, Principal } from './operations/admin/auth'
export type { FileLinkQuery } from './operations/admin/files'
export type { BackfillSummary, PurgeSummary, TrimSummary } from './operations/admin/maintenance'
export type { StoredRules } from './operations/campaigns/effective-stacking-rules'
export type { BestStackResult, QualificationCallOptions } from './operations/checkout/qualifications'
export type { StackedRedemption, StackedRollback } from './operations/checkout/redemptions'
export type { AuthenticationMode } from './operations/kernel/engine-config'
export type { RunSummary } from './operations/kernel/jobs'
export { readChangeFeed } from './operations/kernel/shape-versions'
export type { ListHoldersArgs } from './operations/referrals/referrals'
export type { ActivityItem } from './operations/shop/customers'
export type { CreateEvent, CustomEvent } from './operations/shop/events'
export type { PublicationResult } from './operations/vouchers/publishing'
export type { AsyncActionRef } from './operations/vouchers/vouchers'
export type { Kept, RawArgs, RawOperations, Same } from './raw'
export {
  type Bundle,
  type BundleIdentifiedItem,
  type BundleMissingItem,
  type CounterBound,
  type EvalCollection,
  type EvalCounters,
  type EvalCustomer,
  type EvalOrder,
  type EvalOrderItem,
  type EvalRedemption,
  type EvaluationContext,
  evaluateBundle,
  evaluateValidationRule,
  type FailureReason,
  type PeriodCounts,
  type RuleFailure,
  type RulesError,
  type RulesErrorKey,
  type ValidationRuleVerdict,
  type VerdictOptions,
} from './rules/conditions'
export type { CollectionMembers, Collections as CatalogCollections } from './rules/discounts'
export {
  type AppliedAmounts,
  type AppliedLine,
  applyStep,
  type CalculationMode,
  type CalculationOptions,
  type CatalogPrices,
  type CreditStep,
  calculateSequence,
  type DiscountStep,
  MAX_ORDER_ITEMS,
  type NormalizeOptions,
  normalizeOrder,
  type ProductsApplicationMode,
  type SequenceResult,
  type Step,
  type StepResult,
  type UnitRoom,
} from './rules/discounts'
export {
  checkFormulaSyntax,
  evaluateFormula,
  type FormulaContext,
  type FormulaFailureCode,
  type FormulaFailureReason,
  type FormulaItem,
  type FormulaOutcome,
  type FormulaUse,
  type FormulaValidityDates,
} from './rules/formulas'
export type { JsonDiff } from './rules/json-diff'
export {
  type AutoRedeemRun,
  type CascadeCard,
  type CascadeCustomer,
  type CascadeInput,
  type CascadeProgram,
  type CascadeResult,
  type CascadeStep,
  type CascadeTrigger,
  runCascade,
} from './rules/loyalty-cascade'
export {
  type CoinParameters,
  calculateEarnedPoints,
  type EarningInput,
  type EarningOrderItem,
  type MemberTierStanding,
  type PayWithPoints,
  type PayWithPointsInput,
  payWithPoints,
  pointsExpiryDate,
  qualifyTier,
  type RewardCost,
  rewardCost,
  type TierEvent,
  type TierEventType,
  type TierRange,
  type TierTransition,
  type TierTransitionInput,
  transitionTier,
} from './rules/loyalty-rules'
export { estimatePoints, type PointsEstimateInput } from './rules/points-estimate'
export { type BestStackDecision, chooseBestStack, type LeftOut } from './rules/qualifications'
export {
  type ApplicableResult,
  type AppliedEffect,
  decideRedeemables,
  type Explanation,
  type InapplicableResult,
  type NotApplied,
  type PipelineInput,
  type PipelineResult,
  type RedeemableError,
  type RedeemableResult,
  type RedeemableResultBase,
  type RedeemableSubject,
  type SkippedResult,
  type SubjectOutcome,
  type UnitBudgetsUsed,
  type UnitBudgetUse,
  type UnitLimits,
  type ValidationResult,
} from './rules/redeemables'
export { type Family, SCOPES, type Scope } from './rules/scopes'
export {
  type CategoryRef,
  planStack,
  resolveStackingRules,
  type SelectRules,
  SKIP_MESSAGES,
  type SkipExplanation,
  type SkipKey,
  type SortCandidate,
  type SortRules,
  type StackCandidate,
  type StackDecision,
  type StackingField,
  type StackingKind,
  selectStack,
  sortRedeemables,
} from './rules/stacking'
export {
  checkValidity,
  type ValidityOptions,
  type ValidityReason,
  type ValidityVerdict,
} from './rules/time-validity'
export type { InputLimits } from './schema/input-limits'
export type * from './schema/requests'
export type * from './storage/ports'
export { COLLECTIONS, chooseAlternative, NATURAL_KEYS } from './storage/ports'
