/**
 * What a rule evaluation reports: the outcome of a rule set and, for every "no", a failure that
 * names the rule, the condition, the expected and the actual value (data, so callers can answer
 * "why did my code not apply").
 */
import type { RuleDefinition } from '../../model/validation-rule'

export type FailureReason =
  /** A condition did not hold. */
  | 'condition_failed'
  /** The rule reads the customer and the request has none. */
  | 'missing_customer'
  /** A metadata rule without `property`. */
  | 'missing_property'
  /** A rule name this engine does not know. */
  | 'unknown_rule'
  /** A rule name of the interface (docs/concepts.md#rule-names) that the evaluation context cannot answer. */
  | 'unsupported_rule'
  | 'unknown_operator'
  /** `logic` does not parse or names a rule that does not exist. */
  | 'invalid_logic'
  /** A numbered entry that is not a rule definition. */
  | 'invalid_rule'

export interface RuleFailure {
  /** The rule's key; nested rules are dotted, e.g. `1.2`. */
  rule: string
  name: string
  property?: string
  operator?: string
  expected?: readonly unknown[]
  actual?: unknown
  reason: FailureReason
  /** The rule's own custom message (`rules.N.error.message`). */
  message?: string
  /** The order line a nested item rule was checking. */
  item_index?: number
  /** A sentence a person can read. */
  detail: string
  /** Why nested item rules failed. */
  nested?: RuleFailure[]
}

export interface RuleSetOutcome {
  passed: boolean
  failures: RuleFailure[]
}

export const PASS: RuleSetOutcome = { passed: true, failures: [] }

export type FailureBase = Pick<RuleFailure, 'rule' | 'name' | 'property' | 'message'>

export function baseFailure(path: string, def: RuleDefinition): FailureBase {
  const base: FailureBase = { rule: path, name: def.name }
  if (def.property != null) base.property = def.property
  if (def.error?.message != null) base.message = def.error.message
  return base
}

export function fail(failure: RuleFailure): RuleSetOutcome {
  return { passed: false, failures: [failure] }
}

export function invalidLogic(path: string, detail: string): RuleFailure {
  return { rule: path, name: 'logic', reason: 'invalid_logic', detail }
}

export function withItemIndex(outcome: RuleSetOutcome, index: number): RuleSetOutcome {
  return { passed: outcome.passed, failures: outcome.failures.map((f) => ({ ...f, item_index: index })) }
}

/** A value as a failure detail shows it. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing'
  return JSON.stringify(value) ?? String(value)
}
