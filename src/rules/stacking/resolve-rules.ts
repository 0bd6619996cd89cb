import { EngineError } from '../../errors'
import { DEFAULT_STACKING_RULES, type StackingRules } from '../../model/stacking'

/**
 * The effective stacking rules of a project: its own settings over the
 * docs/behaviour.md#default-stacking-rules defaults, checked against the bounds of
 * docs/concepts.md#stacking-rules. Bad settings throw `EngineError.invalid` naming the field, so the same
 * function guards `stackingRules.create` and every validation.
 *
 * Bounds where the sources disagree (documented choices):
 * - `applicable_exclusive_redeemables_limit`: 1–5. The OAS `StackingRules` schema and the dashboard
 *   both say 5; only one error example says "<= 30".
 * - `applicable_exclusive_redeemables_per_category_limit`: 1–5 and ≤ the exclusive limit (the
 *   management schema's relation, with the `StackingRules` upper bound).
 * - `applicable_redeemables_category_limits` values: 1–10 and ≤ `applicable_redeemables_limit`
 *   (the dashboard: a category's limit cannot exceed the global one).
 * - Besides the documented skip/redeem-anyway overlap, the other contradictory pairs
 *   (exclusive/joint, initial/discounted amount) are rejected too: a category cannot be both.
 */
export function resolveStackingRules(projectRules?: Partial<StackingRules> | null): StackingRules {
  const given = projectRules ?? {}
  const rules: StackingRules = {
    ...pickDefined(given, ['id', 'created_at', 'updated_at', 'object']),
    redeemables_limit: given.redeemables_limit ?? DEFAULT_STACKING_RULES.redeemables_limit,
    applicable_redeemables_limit:
      given.applicable_redeemables_limit ?? DEFAULT_STACKING_RULES.applicable_redeemables_limit,
    applicable_redeemables_per_category_limit:
      given.applicable_redeemables_per_category_limit ??
      DEFAULT_STACKING_RULES.applicable_redeemables_per_category_limit,
    applicable_exclusive_redeemables_limit:
      given.applicable_exclusive_redeemables_limit ?? DEFAULT_STACKING_RULES.applicable_exclusive_redeemables_limit,
    applicable_exclusive_redeemables_per_category_limit:
      given.applicable_exclusive_redeemables_per_category_limit ??
      DEFAULT_STACKING_RULES.applicable_exclusive_redeemables_per_category_limit,
    exclusive_categories: listOf(given, 'exclusive_categories'),
    joint_categories: listOf(given, 'joint_categories'),
    redeemables_application_mode:
      given.redeemables_application_mode ?? DEFAULT_STACKING_RULES.redeemables_application_mode,
    redeemables_sorting_rule: given.redeemables_sorting_rule ?? DEFAULT_STACKING_RULES.redeemables_sorting_rule,
    redeemables_products_application_mode:
      given.redeemables_products_application_mode ?? DEFAULT_STACKING_RULES.redeemables_products_application_mode,
    redeemables_no_effect_rule: given.redeemables_no_effect_rule ?? DEFAULT_STACKING_RULES.redeemables_no_effect_rule,
    no_effect_skip_categories: listOf(given, 'no_effect_skip_categories'),
    no_effect_redeem_anyway_categories: listOf(given, 'no_effect_redeem_anyway_categories'),
    redeemables_rollback_order_mode:
      given.redeemables_rollback_order_mode ?? DEFAULT_STACKING_RULES.redeemables_rollback_order_mode,
    discount_calculation_mode: given.discount_calculation_mode ?? DEFAULT_STACKING_RULES.discount_calculation_mode,
    initial_amount_mode_categories: listOf(given, 'initial_amount_mode_categories'),
    discounted_amount_mode_categories: listOf(given, 'discounted_amount_mode_categories'),
    // Always present, as the service interface lists them: no per-category limits, no grouping rule.
    applicable_redeemables_category_limits: {},
    grouped_redeemables_sorting_rule: given.grouped_redeemables_sorting_rule ?? null,
  }
  const categoryLimits: unknown = given.applicable_redeemables_category_limits
  if (categoryLimits != null) {
    if (typeof categoryLimits !== 'object' || Array.isArray(categoryLimits)) {
      throw EngineError.invalid('applicable_redeemables_category_limits', 'must be object')
    }
    rules.applicable_redeemables_category_limits = { ...(categoryLimits as Record<string, number>) }
  }
  checkStackingRules(rules)
  return rules
}

/**
 * A request must name between 1 and `redeemables_limit` redeemables. Exceeding it is a request error
 * (400), not a SKIPPED result: nothing is validated. The wording follows the service's "Property
 * .redeemables[1] should have required property 'id'" style.
 */
export function checkRedeemablesCount(count: number, rules: Pick<StackingRules, 'redeemables_limit'>): void {
  if (count < 1) throw EngineError.invalid('redeemables', 'should NOT have fewer than 1 items')
  if (count > rules.redeemables_limit) {
    throw EngineError.invalid('redeemables', `should NOT have more than ${rules.redeemables_limit} items`)
  }
}

function checkStackingRules(rules: StackingRules): void {
  intIn(rules, 'redeemables_limit', 1, 30)
  intIn(rules, 'applicable_redeemables_limit', 1, 30)
  notAbove(rules, 'applicable_redeemables_limit', 'redeemables_limit')
  intIn(rules, 'applicable_redeemables_per_category_limit', 1, 30)
  notAbove(rules, 'applicable_redeemables_per_category_limit', 'applicable_redeemables_limit')
  intIn(rules, 'applicable_exclusive_redeemables_limit', 1, 5)
  intIn(rules, 'applicable_exclusive_redeemables_per_category_limit', 1, 5)
  notAbove(rules, 'applicable_exclusive_redeemables_per_category_limit', 'applicable_exclusive_redeemables_limit')

  const categoryLimits = rules.applicable_redeemables_category_limits
  if (categoryLimits !== undefined) {
    for (const [categoryId, limit] of Object.entries(categoryLimits)) {
      const path = `applicable_redeemables_category_limits.${categoryId}`
      checkInt(path, limit, 1, 10)
      if (limit > rules.applicable_redeemables_limit) {
        throw EngineError.invalid(
          path,
          `must be <= applicable_redeemables_limit (${rules.applicable_redeemables_limit})`,
        )
      }
    }
  }

  oneOf(rules, 'redeemables_application_mode', ['ALL', 'PARTIAL'])
  oneOf(rules, 'redeemables_sorting_rule', ['REQUESTED_ORDER', 'CATEGORY_HIERARCHY'])
  oneOf(rules, 'redeemables_products_application_mode', ['STACK', 'ONCE'])
  oneOf(rules, 'redeemables_no_effect_rule', ['REDEEM_ANYWAY', 'SKIP'])
  oneOf(rules, 'redeemables_rollback_order_mode', ['WITH_ORDER', 'WITHOUT_ORDER'])
  oneOf(rules, 'discount_calculation_mode', ['DISCOUNTED_AMOUNT', 'INITIAL_AMOUNT'])
  const grouped = rules.grouped_redeemables_sorting_rule
  if (grouped !== undefined && grouped !== null && grouped !== 'JOINT_ALWAYS_LAST') {
    throw EngineError.invalid('grouped_redeemables_sorting_rule', 'must be equal to one of the allowed values')
  }

  disjoint(rules, 'no_effect_skip_categories', 'no_effect_redeem_anyway_categories')
  disjoint(rules, 'exclusive_categories', 'joint_categories')
  disjoint(rules, 'initial_amount_mode_categories', 'discounted_amount_mode_categories')
}

type NumberField = {
  [K in keyof StackingRules]-?: StackingRules[K] extends number ? K : never
}[keyof StackingRules]

type ListField = {
  [K in keyof StackingRules]-?: StackingRules[K] extends string[] ? K : never
}[keyof StackingRules]

function intIn(rules: StackingRules, field: NumberField, min: number, max: number): void {
  checkInt(field, rules[field], min, max)
}

function checkInt(path: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw EngineError.invalid(path, 'must be integer')
  if (value < min) throw EngineError.invalid(path, `must be >= ${min}`)
  if (value > max) throw EngineError.invalid(path, `must be <= ${max}`)
}

function notAbove(rules: StackingRules, field: NumberField, bound: NumberField): void {
  if (rules[field] > rules[bound]) throw EngineError.invalid(field, `must be <= ${bound} (${rules[bound]})`)
}

function oneOf<K extends keyof StackingRules>(rules: StackingRules, field: K, allowed: readonly StackingRules[K][]) {
  if (!allowed.includes(rules[field])) {
    throw EngineError.invalid(field, `must be equal to one of the allowed values: ${allowed.join(', ')}`)
  }
}

/** A copy of a category list, checked before copying (spreading a string would split it). */
function listOf(given: Partial<StackingRules>, field: ListField): string[] {
  const list: unknown = given[field] ?? DEFAULT_STACKING_RULES[field]
  if (!Array.isArray(list)) throw EngineError.invalid(field, 'must be array')
  list.forEach((item: unknown, i) => {
    if (typeof item !== 'string' || item === '')
      throw EngineError.invalid(`${field}[${i}]`, 'must be a non-empty string')
  })
  return [...list]
}

function disjoint(rules: StackingRules, a: ListField, b: ListField): void {
  const inA = new Set(rules[a])
  const both = rules[b].find((id) => inA.has(id))
  if (both !== undefined) throw EngineError.invalid(b, `must not contain ${both}, which is listed in ${a}`)
}

function pickDefined<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {}
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key]
  return out
}
