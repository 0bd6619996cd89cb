export type { CallOptions } from './call-options'
export type { Engine, EngineOptions } from './engine'
export { createEngine, systemClock } from './engine'
export * from './errors'
export { createIdGenerator, ID_PREFIX, seededRandom, systemRandom } from './ids'
export { createMemoryStore, listRows } from './memory'
export * from './model'
export * from './money'
export type { RunSummary } from './operations/async-actions'
export type { ApplicationCredentials, Headers, OAuthToken, Principal } from './operations/auth'
export type { ActivityItem } from './operations/customers'
export type { CreateEvent, CustomEvent } from './operations/events'
export type { PublicationResult } from './operations/publications'
export type { StackedRedemption, StackedRollback } from './operations/redemptions'
export type { ListHoldersArgs } from './operations/referrals'
export type { StoredRules } from './operations/stacking-rules'
export type { AsyncActionRef } from './operations/vouchers'
export type * from './ports'
// Names two modules share, resolved explicitly.
export type { Collections } from './ports'
export { NATURAL_KEYS } from './ports'
export type { RawOperations } from './raw'
export {
  CODE_ATTEMPTS_PER_CODE,
  codeSpace,
  DEFAULT_CHARSET,
  DEFAULT_CODE_LENGTH,
  generateCode,
  generateUniqueCodes,
  type ResolvedCodeConfig,
  resolveCodeConfig,
} from './rules/codes'
// The pure rules, for hosts that hold their own data and for property tests.
export * from './rules/conditions'
export type { CalculationMode } from './rules/discounts'
export * from './rules/discounts'
export { addDuration, type Duration, parseDuration } from './rules/duration'
export * from './rules/formulas'
export * from './rules/loyalty'
export { availablePoints } from './rules/loyalty'
export * from './rules/redeemables'
export * from './rules/stacking'
export {
  campaignValidityError,
  checkValidity,
  promotionTierValidityError,
  type ValidityReason,
  type ValidityVerdict,
  voucherValidityError,
} from './rules/validity'
export type * from './schema/requests'
