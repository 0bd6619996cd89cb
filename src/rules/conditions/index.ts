export { boundOf, type CounterBound, isCounterRule, readsCounters } from './bounds'
export {
  type Bundle,
  type BundleIdentifiedItem,
  type BundleMissingItem,
  DEFAULT_BUNDLE_LIMIT,
  evaluateBundle,
} from './bundles'
export type {
  EvalCollection,
  EvalCounters,
  EvalCustomer,
  EvalOrder,
  EvalOrderItem,
  EvalRedemption,
  EvaluationContext,
  PeriodCounts,
} from './context'
export { evaluateRules } from './evaluate'
export type { FailureReason, RuleFailure, RuleSetOutcome } from './failures'
export { type ItemRef, itemMatchesRef } from './items'
export { defaultLogic, evaluateLogic, type LogicNode, LogicSyntaxError, logicKeys, parseLogic } from './logic'
export {
  applyOperator,
  canonicalOperator,
  OPERATOR_NAMES,
  OPERATORS,
  type Operator,
  type OperatorAlias,
  type OperatorEnv,
  valuesEqual,
} from './operators'
export { SUPPORTED_RULE_NAMES } from './rule-names'
export { type TargetingOptions, toDiscountTargeting } from './targeting'
export {
  evaluateValidationRule,
  type RuleCategory,
  type RulesError,
  type RulesErrorKey,
  redeemableLabel,
  ruleCategory,
  rulesError,
  type ValidationRuleVerdict,
  type VerdictOptions,
} from './verdict'
