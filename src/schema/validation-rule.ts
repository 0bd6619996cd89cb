import { EngineError } from '../errors'
import type { RuleSet } from '../model/validation-rule'
import { type LogicNode, LogicSyntaxError, logicKeys, parseLogic } from '../rules/conditions/logic'
import { canonicalOperator, OPERATOR_NAMES } from '../rules/conditions/operators'
import { SUPPORTED_RULE_NAMES, UNSUPPORTED } from '../rules/conditions/rule-names'
import { formula, metadata, money, nonEmptyString, nonNegativeInt, opt, positiveInt } from './common'
import { parse } from './parse'
import * as v from './valibot'

/*
 * Request schema of validation rules (docs/concepts.md#validation-rules). The numbered rule sets are checked by hand
 * (`checkRuleSet`) because their keys mix `logic` with rule numbers, which no object schema expresses;
 * the entries themselves go through valibot so paths and messages stay uniform.
 */

/** docs/concepts.md#rule-names: rules that read a metadata key, named by `property`. */
const RULES_NEEDING_PROPERTY = new Set([
  'customer.metadata',
  'order.metadata',
  'product.metadata',
  'redemption.metadata',
  'custom_event.metadata',
])

// Operator names are checked by `checkRuleSet`, which names the one that is wrong and the nearest known one.
const conditions = v.pipe(
  v.record(v.string(), v.array(v.unknown())),
  v.check((c) => Object.keys(c).length > 0, 'must hold at least one operator such as $is'),
)

// Strict: a misspelt key (`condition`, `propery`) is refused rather than dropped.
const ruleDefinition = v.strictObject({
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
    checkRuleName(rule.name, `${path}.name`)
    for (const op of Object.keys(rule.conditions)) {
      if (canonicalOperator(op) === null) {
        throw EngineError.invalid(`${path}.conditions.${op}`, `is not an operator${didYouMean(op, OPERATOR_NAMES)}`)
      }
    }
    if (RULES_NEEDING_PROPERTY.has(rule.name) && !rule.property) {
      // The hosted key and wording (docs/behaviour.md#documented-error-keys).
      throw new EngineError({
        code: 400,
        key: 'invalid_validation_rules',
        message: 'Invalid Validation Rule Definition',
        details: `Rule '${rule.name}' must have a 'property'`,
        path: `${path}.property`,
      })
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
 * A rule name the evaluator cannot answer is refused when the rule is written: it would never match.
 * The names come from the evaluator's own table (`SUPPORTED_RULE_NAMES`).
 */
function checkRuleName(name: string, path: string): void {
  if (SUPPORTED_RULE_NAMES.includes(name)) return
  if (UNSUPPORTED.has(name)) {
    throw EngineError.invalid(
      path,
      `names the rule ${name}, which this engine does not support (it has no API keys or users)`,
    )
  }
  throw EngineError.invalid(path, `is not a rule name this engine knows${didYouMean(name, SUPPORTED_RULE_NAMES)}`)
}

/** `; did you mean X?` for the known name nearest a misspelt one (at most two edits away), else nothing. */
function didYouMean(name: string, known: readonly string[]): string {
  let best: string | undefined
  let bestDistance = 3
  for (const candidate of known) {
    const d = editDistance(name, candidate)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best === undefined ? '' : `; did you mean ${best}?`
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const replace = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current[j] = Math.min(replace, (previous[j] as number) + 1, (current[j - 1] as number) + 1)
    }
    previous = current
  }
  return previous[b.length] as number
}

/**
 * Why a `logic` expression is malformed, or undefined when it is fine: the evaluator's own parser
 * decides the syntax, so a rule set accepted here is one the engine can evaluate.
 */
export function logicProblem(logic: string, numbers: ReadonlySet<string>): string | undefined {
  let node: LogicNode
  try {
    node = parseLogic(logic)
  } catch (e) {
    if (e instanceof LogicSyntaxError) return e.message
    throw e
  }
  const missing = logicKeys(node).find((key) => !numbers.has(key))
  return missing === undefined ? undefined : `names rule ${missing}, which is not defined`
}

const applicableToEntry = v.object({
  object: v.picklist(['product', 'sku', 'products_collection']),
  id: nonEmptyString,
  source_id: opt(v.nullable(v.string())),
  product_id: opt(v.nullable(v.string())),
  product_source_id: opt(v.nullable(v.string())),
  strict: opt(v.boolean()),
  price: opt(v.nullable(money)),
  price_formula: opt(v.nullable(formula)),
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
  // Unit budgets (docs/concepts.md#targeting), each with its formula variant.
  ...unitBudgetFields(),
})

function unitBudgetFields() {
  const limit = opt(v.nullable(nonNegativeInt))
  const limitFormula = opt(v.nullable(formula))
  return {
    product_campaign_quantity_limit: limit,
    product_campaign_quantity_limit_formula: limitFormula,
    product_customer_campaign_quantity_limit: limit,
    product_customer_campaign_quantity_limit_formula: limitFormula,
    product_in_collection_campaign_quantity_limit: limit,
    product_in_collection_campaign_quantity_limit_formula: limitFormula,
    product_in_collection_customer_campaign_quantity_limit: limit,
    product_in_collection_customer_campaign_quantity_limit_formula: limitFormula,
    product_promotion_tier_quantity_limit: limit,
    product_promotion_tier_quantity_limit_formula: limitFormula,
    product_customer_promotion_tier_quantity_limit: limit,
    product_customer_promotion_tier_quantity_limit_formula: limitFormula,
  }
}

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

export const relatedAssignment = v.object({
  related_object_type: v.picklist(ASSIGNABLE_OBJECTS),
  related_object_id: nonEmptyString,
})

/** The SDK's form: exactly one of `{voucher: id}`, `{campaign: id}`, `{promotion_tier: id}`, …. */
export const namedAssignment = v.pipe(
  v.strictObject(Object.fromEntries(ASSIGNABLE_OBJECTS.map((o) => [o, v.exactOptional(nonEmptyString)]))),
  v.check((a) => Object.keys(a).length === 1, `must name one of ${ASSIGNABLE_OBJECTS.join(', ')}`),
  v.transform((a) => {
    const [[type, id]] = Object.entries(a) as [[(typeof ASSIGNABLE_OBJECTS)[number], string]]
    return { related_object_type: type, related_object_id: id }
  }),
)

/** The schema of the form a body uses: `related_object_type` + `related_object_id`, or the SDK's `{voucher: id}`. */
export function assignmentInput(body: unknown) {
  return body !== null && typeof body === 'object' && ('related_object_type' in body || 'related_object_id' in body)
    ? relatedAssignment
    : namedAssignment
}
