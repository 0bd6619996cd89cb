import type { ValidationRule } from '../../model/validation-rule'
import type { Operator } from './operators'

/*
 * Budget bounds (docs/storage.md#counters). A budget rule compares a stored counter plus this
 * redemption (`actual`) with a threshold. The decision holds as long as each such comparison keeps
 * its truth value, which is an interval of `actual`; the redemption's commit guards its counter
 * increments with those intervals, so concurrent redemptions can never together pass a budget.
 */

/** The values of `actual` (the counter after this redemption) for which a budget rule's condition keeps its outcome. */
export interface CounterBound {
  /** The rule name (`campaign.redemptions.count.daily`, `redemption.count.per_customer`, …). */
  rule: string
  lo: number
  hi: number
}

const COUNTER_RULE = /^(campaign\.redemptions\.|campaign\.orders\.amount|redemption\.count\.)/

/** Whether a rule name reads a stored counter. */
export function isCounterRule(name: string): boolean {
  return COUNTER_RULE.test(name)
}

/** Whether any condition of a validation rule (nested ones and bundle rules included) reads a stored counter. */
export function readsCounters(rule: Pick<ValidationRule, 'rules' | 'bundle_rules'>): boolean {
  const stack: unknown[] = [rule.rules, rule.bundle_rules]
  while (stack.length > 0) {
    const set = stack.pop()
    if (set === null || typeof set !== 'object') continue
    for (const definition of Object.values(set)) {
      if (definition === null || typeof definition !== 'object') continue
      const { name, rules } = definition as { name?: unknown; rules?: unknown }
      if (typeof name === 'string' && isCounterRule(name)) return true
      stack.push(rules)
    }
  }
  return false
}

/**
 * The interval of `actual` over which `operator` with `expected` gives the same answer it gave for
 * `actual` (counters are integers). Operators that are not a one-sided comparison keep their answer
 * only for this very value.
 */
export function boundOf(
  operator: Operator,
  actual: number,
  expected: readonly unknown[],
  passed: boolean,
): { lo: number; hi: number } {
  const exact = { lo: actual, hi: actual }
  if (expected.length !== 1) return exact
  const e = Number(expected[0])
  if (!Number.isFinite(e)) return exact
  const below = (hi: number) => ({ lo: Number.NEGATIVE_INFINITY, hi })
  const above = (lo: number) => ({ lo, hi: Number.POSITIVE_INFINITY })
  switch (operator) {
    case '$less_than':
      return passed ? below(Math.ceil(e) - 1) : above(Math.ceil(e))
    case '$less_than_or_equal':
      return passed ? below(Math.floor(e)) : above(Math.floor(e) + 1)
    case '$more_than':
      return passed ? above(Math.floor(e) + 1) : below(Math.floor(e))
    case '$more_than_or_equal':
      return passed ? above(Math.ceil(e)) : below(Math.ceil(e) - 1)
    default:
      return exact
  }
}
