import * as v from 'valibot'
import { EngineError } from '../errors'
import type { RuleSet } from '../model/validation-rule'
import { metadata, money, nonEmptyString, nonNegativeInt, opt, positiveInt } from './common'
import { parse } from './parse'

/*
 * Request schema of validation rules (reference §6.1). The numbered rule sets are checked by hand
 * (`checkRuleSet`) because their keys mix `logic` with rule numbers, which no object schema expresses;
 * the entries themselves go through valibot so paths and messages stay uniform.
 */

/** Reference §6.3: the condition operators, including the filter operators seen in examples. */
export const CONDITION_OPERATORS = [
  '$is',
  '$is_not',
  '$in',
  '$not_in',
  '$less_than',
  '$less_than_or_equal',
  '$more_than',
  '$more_than_or_equal',
  '$starts_with',
  '$ends_with',
  '$contains',
  '$timeframe',
  '$timeframe_absolute',
  '$timeframe_daily_hours',
  '$dow',
  '$count',
  '$count_more',
  '$count_less',
  '$not_differ',
  '$not_intersect',
  '$from',
  '$after',
  '$before',
  '$more_than_ago',
  '$less_than_ago',
  '$is_days_ago',
  '$more_than_future',
  '$less_than_future',
  '$is_days_in_future',
  '$greater_than_or_equal',
  '$not_contain',
  '$has_value',
  '$is_unknown',
  '$more_than_equal',
  '$less_than_equal',
] as const

/** Reference §6.2: rules that read a metadata key, named by `property`. */
const RULES_NEEDING_PROPERTY = new Set([
  'customer.metadata',
  'order.metadata',
  'product.metadata',
  'redemption.metadata',
  'custom_event.metadata',
])

const conditions = v.pipe(
  v.record(v.picklist(CONDITION_OPERATORS), v.array(v.unknown())),
  v.check((c) => Object.keys(c).length > 0, 'must hold at least one operator such as $is'),
)

const ruleDefinition = v.object({
  name: nonEmptyString,
  property: opt(v.nullable(v.string())),
  conditions,
  rules: opt(v.record(v.string(), v.unknown())),
  error: opt(v.object({ message: v.string() })),
})

const RULE_NUMBER = /^[1-9]\d*$/

/**
 * Checks a numbered rule set in place (keys "1", "2", … and an optional `logic`), recursing into
 * nested `rules`; throws a 400 naming the first bad path. Returns the set typed.
 */
export function checkRuleSet(value: Record<string, unknown>, root: string): RuleSet {
  const numbers = new Set<string>()
  for (const [key, entry] of Object.entries(value)) {
    const path = `${root}.${key}`
    if (key === 'logic') {
      if (typeof entry !== 'string') throw EngineError.invalid(path, 'must be a string such as "(1 and 2) or 3"')
      continue
    }
    if (!RULE_NUMBER.test(key)) throw EngineError.invalid(path, 'is not a rule number (keys are "1", "2", … and logic)')
    const rule = parse(ruleDefinition, entry, path)
    if (RULES_NEEDING_PROPERTY.has(rule.name) && !rule.property) {
      throw EngineError.invalid(`${path}.property`, `is required for the rule ${rule.name}`)
    }
    if (rule.rules) checkRuleSet(rule.rules, `${path}.rules`)
    numbers.add(key)
  }
  const logic = value.logic
  if (typeof logic === 'string') {
    const problem = logicProblem(logic, numbers)
    if (problem) throw EngineError.invalid(`${root}.logic`, problem)
  }
  return value as RuleSet
}

/**
 * Why a `logic` expression is malformed, or undefined when it is fine: rule numbers joined by
 * `and` / `or` (any case) with balanced parentheses, naming only rules that exist.
 */
export function logicProblem(logic: string, numbers: ReadonlySet<string>): string | undefined {
  const tokens = logic.match(/\d+|[A-Za-z]+|\(|\)|\S/g) ?? []
  if (tokens.length === 0) return 'must not be empty'
  let i = 0
  // expr := term (op term)* ; term := number | "(" expr ")"
  const term = (): string | undefined => {
    const t = tokens[i]
    if (t === undefined) return 'ends where a rule number or "(" was expected'
    i++
    if (t === '(') {
      const inner = expr()
      if (inner) return inner
      if (tokens[i] !== ')') return 'has an unclosed "("'
      i++
      return undefined
    }
    if (/^\d+$/.test(t)) return numbers.has(t) ? undefined : `names rule ${t}, which is not defined`
    return `has "${t}" where a rule number or "(" was expected`
  }
  const expr = (): string | undefined => {
    const first = term()
    if (first) return first
    while (i < tokens.length && /^(and|or)$/i.test(tokens[i] ?? '')) {
      i++
      const next = term()
      if (next) return next
    }
    return undefined
  }
  const problem = expr()
  if (problem) return problem
  if (i < tokens.length) return `has "${tokens[i]}" where "and", "or" or the end was expected`
  return undefined
}

const applicableToEntry = v.object({
  object: v.picklist(['product', 'sku', 'products_collection']),
  id: nonEmptyString,
  source_id: opt(v.nullable(v.string())),
  product_id: opt(v.nullable(v.string())),
  product_source_id: opt(v.nullable(v.string())),
  strict: opt(v.boolean()),
  price: opt(v.nullable(money)),
  price_formula: opt(v.nullable(v.string())),
  effect: opt(
    v.picklist([
      'APPLY_TO_EVERY',
      'APPLY_TO_CHEAPEST',
      'APPLY_FROM_CHEAPEST',
      'APPLY_TO_MOST_EXPENSIVE',
      'APPLY_FROM_MOST_EXPENSIVE',
    ]),
  ),
  quantity_limit: opt(v.nullable(nonNegativeInt)),
  aggregated_quantity_limit: opt(v.nullable(nonNegativeInt)),
  amount_limit: opt(v.nullable(money)),
  aggregated_amount_limit: opt(v.nullable(money)),
  repeat: opt(v.nullable(positiveInt)),
  skip_initially: opt(v.nullable(nonNegativeInt)),
  target: opt(v.picklist(['ITEM', 'UNIT'])),
})

export const applicableTo = v.object({
  included: opt(v.array(applicableToEntry)),
  excluded: opt(v.array(applicableToEntry)),
  included_all: opt(v.boolean()),
})

export const validationRuleInput = v.object({
  name: nonEmptyString,
  type: opt(v.picklist(['expression', 'basic', 'advanced', 'complex'])),
  context_type: opt(nonEmptyString),
  rules: v.record(v.string(), v.unknown()),
  error: opt(v.nullable(v.object({ message: v.string() }))),
  bundle_rules: opt(v.nullable(v.record(v.string(), v.unknown()))),
  applicable_to: opt(applicableTo),
  metadata: opt(metadata),
})

/** `bundle_rules`: an optional `limit` and numbered rules like `rules` (no `logic`: every bundle rule must hold). */
export function checkBundleRules(value: Record<string, unknown>, root: string): void {
  const { limit, ...numbered } = value
  if (limit !== undefined) parse(positiveInt, limit, `${root}.limit`)
  if ('logic' in numbered) throw EngineError.invalid(`${root}.logic`, 'is not accepted in bundle_rules')
  checkRuleSet(numbered, root)
}

export const ASSIGNABLE_OBJECTS = [
  'campaign',
  'voucher',
  'promotion_tier',
  'earning_rule',
  'reward_assignment',
] as const

export const assignmentInput = v.object({
  related_object_type: v.picklist(ASSIGNABLE_OBJECTS),
  related_object_id: nonEmptyString,
})
