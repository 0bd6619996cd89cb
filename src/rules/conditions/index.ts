export {
  type Bundle,
  type BundleIdentifiedItem,
  type BundleMissingItem,
  DEFAULT_BUNDLE_LIMIT,
  evaluateBundle,
} from './bundles'
export { boundOf, type CounterBound, isCounterRule, readsCounters } from './counter-bounds'
export { evaluateRules } from './evaluate-rules'
export type {
  EvalCollection,
  EvalCounters,
  EvalCustomer,
  EvalOrder,
  EvalOrderItem,
  EvalRedemption,
  EvaluationContext,
  PeriodCounts,
} from './evaluation-context'
export { type TargetingOptions, toDiscountTargeting } from './expand-collections'
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
