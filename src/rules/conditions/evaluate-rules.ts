/**
 * Evaluates a validation rule's numbered rules and their `logic` against an evaluation context,
 * and explains every "no": which rule, which condition, the expected and the actual value.
 *
 * Every rule is evaluated (no short-circuit) so the explanation is complete and the result does not
 * depend on operand order; `logic` then decides, and only the rules that make the expression fail
 * are reported (a failed alternative of a passing `or` is not a reason).
 */
import type { RuleDefinition, RuleSet } from '../../model/validation-rule'
import { boundOf, isCounterRule } from './counter-bounds'
import type { EvaluationContext } from './evaluation-context'
import {
  baseFailure,
  type FailureBase,
  fail,
  invalidLogic,
  PASS,
  type RuleFailure,
  type RuleSetOutcome,
  show,
  withItemIndex,
} from './failures'
import {
  describeItem,
  extremeItem,
  type IndexedItem,
  type ItemRef,
  itemMatchesRef,
  itemMetadata,
  productIdsIn,
  skuIdsIn,
  toItemRef,
  unitPriceOf,
} from './items'
import { defaultLogic, evaluateLogic, type LogicNode, LogicSyntaxError, parseLogic } from './logic'
import { applyOperator, canonicalOperator, type OperatorEnv } from './operators'
import {
  ITEM_QUANTIFIERS,
  ITEM_RULES,
  type ItemQuantifier,
  type ItemScope,
  NEEDS_PROPERTY,
  UNSUPPORTED,
  VALUE_RULES,
} from './rule-names'

function isRuleDefinition(value: unknown): value is RuleDefinition {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const v = value as Record<string, unknown>
  return typeof v.name === 'string'
}

/** A rule about the cart (the order, its lines and their products). */
function isCartRule(name: string): boolean {
  return name.startsWith('order.') || name.startsWith('product.') || name.startsWith('sku.')
}

class Evaluator {
  readonly env: OperatorEnv
  constructor(readonly ctx: EvaluationContext) {
    this.env = { now: ctx.now, timeZone: ctx.timeZone }
  }

  lines(): IndexedItem[] {
    return (this.ctx.order.items ?? []).map((item, index) => ({ item, index }))
  }

  ruleSet(ruleSet: RuleSet | null | undefined, prefix: string, scope: ItemScope | null): RuleSetOutcome {
    if (ruleSet == null) return PASS
    const keys = Object.keys(ruleSet)
      .filter((k) => k !== 'logic' && ruleSet[k] !== undefined)
      .sort((a, b) => Number(a) - Number(b) || (a < b ? -1 : 1))
    const path = (key: string): string => (prefix === '' ? key : `${prefix}.${key}`)
    let logic: LogicNode | null
    try {
      const text = typeof ruleSet.logic === 'string' && ruleSet.logic.trim() !== '' ? ruleSet.logic : null
      logic = text === null ? defaultLogic(keys) : parseLogic(text)
    } catch (e) {
      const detail = e instanceof LogicSyntaxError ? e.message : String(e)
      return { passed: false, failures: [invalidLogic(path('logic'), `logic "${ruleSet.logic}": ${detail}`)] }
    }
    if (logic === null) return PASS
    const outcomes = new Map<string, RuleSetOutcome>()
    for (const key of keys) outcomes.set(key, this.rule(path(key), ruleSet[key], scope))
    const unknown: string[] = []
    const verdict = evaluateLogic(logic, (key) => {
      const outcome = outcomes.get(key)
      if (outcome === undefined) {
        unknown.push(key)
        return false
      }
      return outcome.passed
    })
    if (unknown.length > 0) {
      return {
        passed: false,
        failures: [
          invalidLogic(path('logic'), `logic "${ruleSet.logic}" names rule ${unknown.join(', ')}, not defined`),
        ],
      }
    }
    if (verdict.passed) return PASS
    return { passed: false, failures: verdict.blame.flatMap((key) => outcomes.get(key)?.failures ?? []) }
  }

  rule(path: string, raw: unknown, scope: ItemScope | null): RuleSetOutcome {
    if (!isRuleDefinition(raw)) {
      return fail({ rule: path, name: '', reason: 'invalid_rule', detail: `rule ${path} is not a rule definition` })
    }
    const def = raw
    const name = def.name
    // Not evaluated: the rule holds for the logic and names no failure.
    if (this.ctx.audienceOnly && isCartRule(name)) return PASS
    const base = baseFailure(path, def)

    const value = VALUE_RULES[name]
    if (value !== undefined) {
      const resolved = value(this.ctx, def)
      if ('missing' in resolved) {
        return resolved.missing === 'customer'
          ? fail({ ...base, reason: 'missing_customer', detail: `${name} needs a customer and the request has none` })
          : fail({ ...base, reason: 'missing_property', detail: `${name} needs a property` })
      }
      return this.conditions(base, def, resolved.actual)
    }

    const itemValue = ITEM_RULES[name]
    if (itemValue !== undefined) {
      const property = def.property ?? null
      if (NEEDS_PROPERTY.has(name) && property === null) {
        return fail({ ...base, reason: 'missing_property', detail: `${name} needs a property` })
      }
      if (scope !== null) {
        const outcome = this.conditions(base, def, itemValue(scope, property))
        return outcome.passed ? outcome : withItemIndex(outcome, scope.line.index)
      }
      // At the top level a line rule holds when some line satisfies it.
      const all = this.lines()
      return this.lineWise(base, def, all, 'any', (line) => itemValue({ line, group: all }, property))
    }

    switch (name) {
      case 'order.items.price_any':
      case 'order.items.price_each':
        return this.lineWise(base, def, this.lines(), name.endsWith('any') ? 'any' : 'each', (l) => unitPriceOf(l.item))
      case 'order.items.metadata_any':
      case 'order.items.metadata_each': {
        const property = def.property
        if (property == null || property === '') {
          return fail({ ...base, reason: 'missing_property', detail: `${name} needs a property` })
        }
        const mode = name.endsWith('any') ? 'any' : 'each'
        return this.lineWise(base, def, this.lines(), mode, (l) => itemMetadata(l.item, property))
      }
      case 'product.id':
      case 'sku.id':
        return this.presence(base, def, path, name === 'product.id' ? 'product' : 'sku')
      default:
        break
    }

    const quantifier = ITEM_QUANTIFIERS.find((q) => name === `order.items.${q}`)
    if (quantifier !== undefined) return this.itemQuantifier(base, def, path, quantifier)
    if (UNSUPPORTED.has(name)) {
      return fail({ ...base, reason: 'unsupported_rule', detail: `rule name ${name} is not supported by this engine` })
    }
    return fail({ ...base, reason: 'unknown_rule', detail: `unknown rule name ${name}` })
  }

  /** All conditions of one rule must hold (AND), checked in their written order. */
  conditions(base: FailureBase, def: RuleDefinition, actual: unknown): RuleSetOutcome {
    for (const [name, raw] of Object.entries(def.conditions ?? {})) {
      const expected: readonly unknown[] = Array.isArray(raw) ? raw : [raw]
      const op = canonicalOperator(name)
      if (op === null) {
        return fail({
          ...base,
          operator: name,
          expected,
          actual,
          reason: 'unknown_operator',
          detail: `unknown operator ${name}`,
        })
      }
      const passed = applyOperator(op, actual, expected, this.env)
      if (this.ctx.bounds && typeof actual === 'number' && isCounterRule(base.name)) {
        this.ctx.bounds.push({ rule: base.name, ...boundOf(op, actual, expected, passed) })
      }
      if (!passed) {
        return fail({
          ...base,
          operator: name,
          expected,
          actual,
          reason: 'condition_failed',
          detail: `${base.name}${base.property === undefined ? '' : ` (${base.property})`} ${name} ${show(expected)}: actual ${show(actual)}`,
        })
      }
    }
    return PASS
  }

  /** A rule over each line's value: `any` line must satisfy it, or `each` line (and at least one). */
  lineWise(
    base: FailureBase,
    def: RuleDefinition,
    lines: readonly IndexedItem[],
    mode: 'any' | 'each',
    read: (line: IndexedItem) => unknown,
  ): RuleSetOutcome {
    const results = lines.map((l) => ({ l, value: read(l), ok: this.conditions(base, def, read(l)).passed }))
    const passed = mode === 'any' ? results.some((r) => r.ok) : results.length > 0 && results.every((r) => r.ok)
    if (passed) return PASS
    const first = Object.entries(def.conditions ?? {})[0]
    const expected: readonly unknown[] = first === undefined ? [] : Array.isArray(first[1]) ? first[1] : [first[1]]
    const opName = first?.[0]
    if (opName !== undefined && canonicalOperator(opName) === null) {
      return fail({
        ...base,
        operator: opName,
        expected,
        reason: 'unknown_operator',
        detail: `unknown operator ${opName}`,
      })
    }
    const actual = results.map((r) => r.value)
    return fail({
      ...base,
      ...(opName === undefined ? {} : { operator: opName }),
      expected,
      actual,
      reason: 'condition_failed',
      detail:
        lines.length === 0
          ? `${base.name}: the order has no items`
          : `${base.name}: ${mode === 'any' ? 'no' : 'not every'} item satisfies ${opName ?? ''} ${show(expected)}; item values ${show(actual)}`,
    })
  }

  /** Item references a nested item rule names: included by `$is`/`$in`, excluded by `$is_not`/`$not_in`. */
  refs(def: RuleDefinition): { include: ItemRef[]; exclude: ItemRef[]; bad: string | null } {
    const include: ItemRef[] = []
    const exclude: ItemRef[] = []
    for (const [op, raw] of Object.entries(def.conditions ?? {})) {
      const values: readonly unknown[] = Array.isArray(raw) ? raw : [raw]
      const canon = canonicalOperator(op)
      const target =
        canon === '$is' || canon === '$in' ? include : canon === '$is_not' || canon === '$not_in' ? exclude : null
      if (target === null) return { include, exclude, bad: op }
      for (const v of values) {
        const ref = toItemRef(v)
        if (ref !== null) target.push(ref)
      }
    }
    return { include, exclude, bad: null }
  }

  /** Lines per included reference (or one group of all lines), minus the excluded ones. */
  groups(include: readonly ItemRef[], exclude: readonly ItemRef[]): IndexedItem[][] {
    const collections = this.ctx.collections
    const kept = this.lines().filter((l) => !exclude.some((r) => itemMatchesRef(l.item, r, collections)))
    if (include.length === 0) return [kept]
    return include.map((ref) => kept.filter((l) => itemMatchesRef(l.item, ref, collections)))
  }

  linePasses(def: RuleDefinition, path: string, line: IndexedItem, group: readonly IndexedItem[]): RuleSetOutcome {
    return this.ruleSet(def.rules, path, { line, group })
  }

  itemQuantifier(base: FailureBase, def: RuleDefinition, path: string, q: ItemQuantifier): RuleSetOutcome {
    const { include, exclude, bad } = this.refs(def)
    if (bad !== null) {
      return fail({ ...base, operator: bad, reason: 'unknown_operator', detail: `${def.name} does not take ${bad}` })
    }
    const groups = this.groups(include, exclude)
    const opName = Object.keys(def.conditions ?? {})[0]
    const expected = include.length > 0 ? include : exclude
    const nested: RuleFailure[] = []
    const check = (line: IndexedItem, group: readonly IndexedItem[]): boolean => {
      const outcome = this.linePasses(def, path, line, group)
      if (!outcome.passed) nested.push(...outcome.failures)
      return outcome.passed
    }
    let passed: boolean
    let why: string
    switch (q) {
      case 'any':
        passed = groups.some((g) => g.some((l) => check(l, g)))
        why = 'no matching item satisfies the item rules'
        break
      case 'every': {
        const missing = groups.findIndex((g) => g.length === 0)
        passed = missing === -1 && groups.every((g) => g.every((l) => check(l, g)))
        why = missing === -1 ? 'not every matching item satisfies the item rules' : 'a listed item is not in the order'
        break
      }
      case 'none':
        passed = !groups.some((g) => g.some((l) => check(l, g)))
        why = 'an item that should not be in the order satisfies the item rules'
        break
      case 'cheapest':
      case 'most_expensive': {
        const extreme = extremeItem(this.lines(), q)
        const group = extreme === null ? undefined : groups.find((g) => g.some((l) => l.index === extreme.index))
        passed = extreme !== null && group !== undefined && check(extreme, group)
        why =
          extreme === null
            ? 'the order has no items'
            : group === undefined
              ? `the ${q === 'cheapest' ? 'cheapest' : 'most expensive'} item (${describeItem(extreme.item)}) is not a listed item`
              : `the ${q === 'cheapest' ? 'cheapest' : 'most expensive'} item does not satisfy the item rules`
        break
      }
      default: {
        const _never: never = q
        return _never
      }
    }
    if (passed) return PASS
    const matched = groups.flat().map((l) => l.index)
    return fail({
      ...base,
      ...(opName === undefined ? {} : { operator: opName }),
      expected,
      actual: { matched_item_indices: [...new Set(matched)] },
      reason: 'condition_failed',
      detail: `${def.name}: ${why}`,
      ...(nested.length > 0 ? { nested } : {}),
    })
  }

  /**
   * Legacy `product.id` / `sku.id`: `$is` needs every listed product in the order, `$in` one of
   * them, `$is_not`/`$not_in` none; a listed product counts as present when one of its lines passes
   * the nested rules (e.g. `product.quantity`).
   */
  presence(base: FailureBase, def: RuleDefinition, path: string, kind: 'product' | 'sku'): RuleSetOutcome {
    const items = this.ctx.order.items ?? []
    const actual = kind === 'product' ? productIdsIn(items) : skuIdsIn(items)
    const nested: RuleFailure[] = []
    const present = (ref: ItemRef): boolean => {
      const typed: ItemRef = ref.object == null ? { ...ref, object: kind } : ref
      const group = this.lines().filter((l) => itemMatchesRef(l.item, typed, this.ctx.collections))
      return group.some((l) => {
        const outcome = this.linePasses(def, path, l, group)
        if (!outcome.passed) nested.push(...outcome.failures)
        return outcome.passed
      })
    }
    for (const [op, raw] of Object.entries(def.conditions ?? {})) {
      const expected: readonly unknown[] = Array.isArray(raw) ? raw : [raw]
      const refs = expected.map(toItemRef).filter((r): r is ItemRef => r !== null)
      const canon = canonicalOperator(op)
      let ok: boolean
      if (canon === '$is' || canon === '$contains') ok = refs.length > 0 && refs.every(present)
      else if (canon === '$in') ok = refs.some(present)
      else if (canon === '$is_not' || canon === '$not_in' || canon === '$not_contain') ok = !refs.some(present)
      else {
        return fail({
          ...base,
          operator: op,
          expected,
          actual,
          reason: 'unknown_operator',
          detail: `${def.name} does not take ${op}`,
        })
      }
      if (!ok) {
        return fail({
          ...base,
          operator: op,
          expected,
          actual,
          reason: 'condition_failed',
          detail: `${def.name} ${op} ${show(refs.map((r) => r.id ?? r.source_id))}: the order has ${show(actual)}`,
          ...(nested.length > 0 ? { nested } : {}),
        })
      }
    }
    return PASS
  }
}

/** Evaluates a rule set (`{"1": {...}, "2": {...}, "logic": "1 and 2"}`) against a context. */
export function evaluateRules(rules: RuleSet | null | undefined, ctx: EvaluationContext): RuleSetOutcome {
  return new Evaluator(ctx).ruleSet(rules, '', null)
}
