import { Decimal } from 'decimal.js'
import type { Metadata } from '../../model/common'
import { decimal } from '../../money'
import {
  calendarDate,
  compareFormulaDates,
  dateFromParts,
  daysBetween,
  type FormulaDate,
  type FormulaValue,
  instant,
  isFormulaDate,
  monthsBetween,
  parseDateText,
  toInstant,
  toLocalDate,
} from './dates'
import { FormulaFailure, type FormulaFailureReason } from './failure'
import type { FormulaContext } from './formula-context'
import { needItem, operand, today, zoneOf } from './operands'
import { type Node, parse } from './parse-formula'

export type FormulaOutcome = { ok: true; value: Decimal } | { ok: false; reason: FormulaFailureReason }

/**
 * Evaluates a formula to a number. Never throws: a formula that does not parse, names something
 * unknown, reads metadata the context lacks, or divides by zero gives `{ ok: false, reason }`, and the
 * caller falls back to the static value (docs/behaviour.md#formulas).
 */
export function evaluateFormula(source: string, context: FormulaContext): FormulaOutcome {
  try {
    const value = evaluateNode(parseCached(source), context)
    if (!isNumber(value)) {
      return {
        ok: false,
        reason: { code: 'not_a_number', message: `the formula gives ${kindOf(value)}, not a number`, position: 0 },
      }
    }
    return { ok: true, value }
  } catch (e) {
    if (e instanceof FormulaFailure) return { ok: false, reason: e.toReason() }
    throw e
  }
}

/** Parses only: the syntax error with its position, or null when the text is a formula. */
export function checkFormulaSyntax(source: string): FormulaFailureReason | null {
  try {
    parseCached(source)
    return null
  } catch (e) {
    if (e instanceof FormulaFailure) return e.toReason()
    throw e
  }
}

/** True when the formula reads the current line (`ORDER_ITEM_*`): it is evaluated once per matched line. */
export function readsOrderItem(source: string): boolean {
  let node: Node
  try {
    node = parseCached(source)
  } catch {
    return false
  }
  return mentionsItem(node)
}

// A handful of formulas per project, evaluated on every validation: keep their trees.
const parsed = new Map<string, Node | FormulaFailure>()

function parseCached(source: string): Node {
  let entry = parsed.get(source)
  if (entry === undefined) {
    try {
      entry = parse(source)
    } catch (e) {
      if (!(e instanceof FormulaFailure)) throw e
      entry = e
    }
    if (parsed.size >= 500) parsed.clear()
    parsed.set(source, entry)
  }
  if (entry instanceof FormulaFailure) throw entry
  return entry
}

function mentionsItem(node: Node): boolean {
  switch (node.kind) {
    case 'number':
    case 'string':
      return false
    case 'operand':
      return node.name.startsWith('ORDER_ITEM_')
    case 'call':
      return node.name.startsWith('ORDER_ITEM_') || node.args.some(mentionsItem)
    case 'negate':
      return mentionsItem(node.operand)
    case 'binary':
      return mentionsItem(node.left) || mentionsItem(node.right)
    default: {
      const _never: never = node
      return _never
    }
  }
}

function evaluateNode(node: Node, ctx: FormulaContext): FormulaValue {
  switch (node.kind) {
    case 'number':
    case 'string':
      return node.value
    case 'operand':
      return operand(node.name, node.pos, ctx)
    case 'negate':
      return num(evaluateNode(node.operand, ctx), node.pos).negated()
    case 'binary':
      return binary(node, ctx)
    case 'call':
      return call(node, ctx)
    default: {
      const _never: never = node
      return _never
    }
  }
}

function binary(node: Extract<Node, { kind: 'binary' }>, ctx: FormulaContext): FormulaValue {
  const { op, pos } = node
  // AND / OR decide on the left side alone when they can, so a branch never read cannot fail.
  if (op === 'AND') return truthy(evaluateNode(node.left, ctx), pos) && truthy(evaluateNode(node.right, ctx), pos)
  if (op === 'OR') return truthy(evaluateNode(node.left, ctx), pos) || truthy(evaluateNode(node.right, ctx), pos)
  const left = evaluateNode(node.left, ctx)
  const right = evaluateNode(node.right, ctx)
  switch (op) {
    case '+':
      return num(left, pos).plus(num(right, pos))
    case '-':
      return num(left, pos).minus(num(right, pos))
    case '*':
      return num(left, pos).times(num(right, pos))
    case '/':
    case '%': {
      const divisor = num(right, pos)
      if (divisor.isZero()) throw new FormulaFailure('division_by_zero', 'division by zero', pos)
      return op === '/' ? num(left, pos).dividedBy(divisor) : num(left, pos).modulo(divisor)
    }
    case '<':
      return order(left, right, pos, ctx) < 0
    case '<=':
      return order(left, right, pos, ctx) <= 0
    case '>':
      return order(left, right, pos, ctx) > 0
    case '>=':
      return order(left, right, pos, ctx) >= 0
    case '=':
    case 'is':
      return same(left, right, ctx)
    case '!=':
    case 'isNot':
      return !same(left, right, ctx)
    case 'DATE_IS':
      return compareFormulaDates(toDate(left, pos, ctx), toDate(right, pos, ctx), zoneOf(ctx)) === 0
    case 'IS_AFTER':
      return compareFormulaDates(toDate(left, pos, ctx), toDate(right, pos, ctx), zoneOf(ctx)) > 0
    case 'IS_BEFORE':
      return compareFormulaDates(toDate(left, pos, ctx), toDate(right, pos, ctx), zoneOf(ctx)) < 0
    case 'contains':
      return text(left, pos).includes(text(right, pos))
    case 'startsWith':
      return text(left, pos).startsWith(text(right, pos))
    case 'endsWith':
      return text(left, pos).endsWith(text(right, pos))
    default: {
      const _never: never = op
      return _never
    }
  }
}

function call(node: Extract<Node, { kind: 'call' }>, ctx: FormulaContext): FormulaValue {
  const { name, args, pos } = node
  const arg = (k: number): FormulaValue => evaluateNode(args[k] as Node, ctx)
  switch (name) {
    case 'MIN':
    case 'MAX': {
      arity(node, 1, Number.POSITIVE_INFINITY)
      let best = num(arg(0), pos)
      for (let k = 1; k < args.length; k++) {
        const v = num(arg(k), pos)
        if (name === 'MIN' ? v.lessThan(best) : v.greaterThan(best)) best = v
      }
      return best
    }
    case 'POW':
      arity(node, 2, 2)
      return num(arg(0), pos).pow(num(arg(1), pos))
    case 'IF':
      arity(node, 3, 3)
      return truthy(arg(0), pos) ? arg(1) : arg(2)
    case 'DEFAULT_TO':
      arity(node, 2, 2)
      try {
        return arg(0)
      } catch (e) {
        if (e instanceof FormulaFailure && e.code === 'missing_value') return arg(1)
        throw e
      }
    case 'ROUND':
      return roundTo(node, ctx, Decimal.ROUND_HALF_UP)
    case 'FLOOR':
      return roundTo(node, ctx, Decimal.ROUND_FLOOR)
    case 'CEIL':
      return roundTo(node, ctx, Decimal.ROUND_CEIL)
    case 'SWITCH': {
      arity(node, 2, Number.POSITIVE_INFINITY)
      const subject = arg(0)
      for (let k = 1; k < args.length; k++) {
        const c = args[k] as Node
        if (c.kind === 'call' && c.name === 'SWITCH_CASE') {
          arity(c, 2, 2)
          if (same(subject, evaluateNode(c.args[0] as Node, ctx), ctx)) return evaluateNode(c.args[1] as Node, ctx)
        } else if (k === args.length - 1) {
          return evaluateNode(c, ctx)
        } else {
          throw new FormulaFailure('syntax', 'SWITCH takes SWITCH_CASE(key;result) entries, then a default', c.pos)
        }
      }
      throw new FormulaFailure('missing_value', 'no SWITCH_CASE matched and there is no default', pos)
    }
    case 'SWITCH_CASE':
      throw new FormulaFailure('syntax', 'SWITCH_CASE is only allowed inside SWITCH', pos)
    case 'IN_ARRAY':
    case 'NOT_IN_ARRAY': {
      // IN_ARRAY(value; a; b; …) or IN_ARRAY(value; list) where the list comes from metadata.
      arity(node, 2, Number.POSITIVE_INFINITY)
      const needle = arg(0)
      let found = false
      for (let k = 1; k < args.length && !found; k++) {
        const v = arg(k)
        found = Array.isArray(v) ? v.some((x) => same(needle, x, ctx)) : same(needle, v as FormulaValue, ctx)
      }
      return name === 'IN_ARRAY' ? found : !found
    }
    case 'ORDER_METADATA':
      return metadata(node, ctx, ctx.order?.metadata)
    case 'CUSTOMER_METADATA':
      return metadata(node, ctx, ctx.customer?.metadata)
    case 'REDEEMABLE_METADATA':
      return metadata(node, ctx, ctx.redeemable?.metadata)
    case 'REDEMPTION_METADATA':
      return metadata(node, ctx, ctx.redemption?.metadata)
    case 'ORDER_ITEM_METADATA':
      return metadata(node, ctx, needItem(ctx, pos).metadata)
    case 'ORDER_ITEM_PRODUCT_METADATA': {
      const item = needItem(ctx, pos)
      return metadata(node, ctx, item.product?.metadata ?? item.sku?.metadata)
    }
    default:
      return dateCall(node, ctx)
  }
}

/** The date functions (docs/behaviour.md#formulas); any other name is unknown. */
function dateCall(node: Extract<Node, { kind: 'call' }>, ctx: FormulaContext): FormulaValue {
  const { name, args, pos } = node
  const arg = (k: number): FormulaValue => evaluateNode(args[k] as Node, ctx)
  const zone = zoneOf(ctx)
  switch (name) {
    case 'TODAY':
    case 'NOW':
      arity(node, 0, 0)
      return operand(name, pos, ctx)
    case 'DATE': {
      // DATE("2026-03-01"), DATE(a date-time or date), DATE(year; month; day).
      arity(node, 1, 3)
      if (args.length === 3) {
        const [y, m, d] = [0, 1, 2].map((k) => wholeNumber(arg(k), name, pos))
        return dateFromParts(y as number, m as number, d as number, pos)
      }
      arity(node, 1, 1)
      return calendarDate(toLocalDate(toDate(arg(0), pos, ctx), zone))
    }
    case 'DATE_TIME':
      arity(node, 1, 1)
      return instant(toInstant(toDate(arg(0), pos, ctx), zone))
    case 'DAY_OF_MONTH':
      arity(node, 1, 1)
      return decimal(toLocalDate(toDate(arg(0), pos, ctx), zone).day)
    case 'MONTH':
      arity(node, 1, 1)
      return decimal(toLocalDate(toDate(arg(0), pos, ctx), zone).month)
    case 'YEAR':
      arity(node, 1, 1)
      return decimal(toLocalDate(toDate(arg(0), pos, ctx), zone).year)
    case 'DAYS_SINCE':
    case 'MONTHS_SINCE':
    case 'YEARS_SINCE':
    case 'DAYS_UNTIL':
    case 'MONTHS_UNTIL': {
      // DAYS_SINCE(d) counts from d to today; an optional second date replaces today.
      arity(node, 1, 2)
      const date = toLocalDate(toDate(arg(0), pos, ctx), zone)
      const reference = args.length > 1 ? toLocalDate(toDate(arg(1), pos, ctx), zone) : today(ctx, pos)
      switch (name) {
        case 'DAYS_SINCE':
          return decimal(daysBetween(date, reference))
        case 'DAYS_UNTIL':
          return decimal(daysBetween(reference, date))
        case 'MONTHS_SINCE':
          return decimal(monthsBetween(date, reference))
        case 'MONTHS_UNTIL':
          return decimal(monthsBetween(reference, date))
        case 'YEARS_SINCE':
          return decimal(Math.trunc(monthsBetween(date, reference) / 12) + 0) // + 0: never -0
      }
      throw new FormulaFailure('unknown_function', `unknown function ${name}`, pos)
    }
    case 'DATE_IS':
    case 'IS_AFTER':
    case 'IS_BEFORE': {
      arity(node, 2, 2)
      const c = compareFormulaDates(toDate(arg(0), pos, ctx), toDate(arg(1), pos, ctx), zone)
      return name === 'DATE_IS' ? c === 0 : name === 'IS_AFTER' ? c > 0 : c < 0
    }
    default:
      throw new FormulaFailure('unknown_function', `unknown function ${name}`, pos)
  }
}

/** ROUND/FLOOR/CEIL(x; p): p > 0 decimal places, p < 0 tens, hundreds, …; p defaults to 0. */
function roundTo(node: Extract<Node, { kind: 'call' }>, ctx: FormulaContext, mode: Decimal.Rounding): Decimal {
  arity(node, 1, 2)
  const x = num(evaluateNode(node.args[0] as Node, ctx), node.pos)
  const p = node.args.length > 1 ? num(evaluateNode(node.args[1] as Node, ctx), node.pos) : decimal(0)
  if (!p.isInteger()) throw new FormulaFailure('type', `${node.name} places must be a whole number`, node.pos)
  const places = p.toNumber()
  if (places >= 0) return x.toDecimalPlaces(places, mode)
  const unit = decimal(10).pow(-places)
  return x.dividedBy(unit).toDecimalPlaces(0, mode).times(unit)
}

function metadata(
  node: Extract<Node, { kind: 'call' }>,
  ctx: FormulaContext,
  source: Metadata | null | undefined,
): FormulaValue {
  arity(node, 1, 1)
  const key = evaluateNode(node.args[0] as Node, ctx)
  if (typeof key !== 'string') throw new FormulaFailure('type', `${node.name} takes a "key" string`, node.pos)
  const value = fromMetadata(source?.[key])
  if (value === undefined) throw new FormulaFailure('missing_value', `${node.name}("${key}") is not set`, node.pos)
  return value
}

function fromMetadata(raw: unknown): FormulaValue | undefined {
  switch (typeof raw) {
    case 'number':
      return Number.isFinite(raw) ? decimal(raw) : undefined
    case 'string':
    case 'boolean':
      return raw
    case 'object': {
      if (!Array.isArray(raw)) return undefined
      const out: FormulaValue[] = []
      for (const x of raw) {
        const v = fromMetadata(x)
        if (v !== undefined) out.push(v)
      }
      return out
    }
    default:
      return undefined
  }
}

function arity(node: Extract<Node, { kind: 'call' }>, min: number, max: number): void {
  const n = node.args.length
  if (n < min || n > max) {
    const wanted = min === max ? `${min}` : max === Number.POSITIVE_INFINITY ? `at least ${min}` : `${min} to ${max}`
    throw new FormulaFailure('arity', `${node.name} takes ${wanted} argument(s), got ${n}`, node.pos)
  }
}

function isNumber(v: FormulaValue): v is Decimal {
  return Decimal.isDecimal(v)
}

/** A date where one is needed: a date value, or ISO text (metadata often stores dates as text). */
function toDate(v: FormulaValue, pos: number, ctx: FormulaContext): FormulaDate {
  if (isFormulaDate(v)) return v
  if (typeof v === 'string') {
    const date = parseDateText(v, zoneOf(ctx))
    if (date !== null) return date
  }
  throw new FormulaFailure('type', `expected a date, got ${kindOf(v)}`, pos)
}

function wholeNumber(v: FormulaValue, name: string, pos: number): number {
  const n = num(v, pos)
  if (!n.isInteger()) throw new FormulaFailure('type', `${name} takes whole numbers`, pos)
  return n.toNumber()
}

/** `<`, `>` …: dates compare as dates (either side a date), anything else as numbers. */
function order(a: FormulaValue, b: FormulaValue, pos: number, ctx: FormulaContext): number {
  if (isFormulaDate(a) || isFormulaDate(b)) {
    return compareFormulaDates(toDate(a, pos, ctx), toDate(b, pos, ctx), zoneOf(ctx))
  }
  return num(a, pos).comparedTo(num(b, pos))
}

/** A number where one is needed; metadata may hold a number as text ("10"). */
function num(v: FormulaValue, pos: number): Decimal {
  if (isNumber(v)) return v
  if (typeof v === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)\s*$/.test(v)) return decimal(v.trim())
  throw new FormulaFailure('type', `expected a number, got ${kindOf(v)}`, pos)
}

function text(v: FormulaValue, pos: number): string {
  if (typeof v === 'string') return v
  if (isNumber(v)) return v.toString()
  throw new FormulaFailure('type', `expected text, got ${kindOf(v)}`, pos)
}

function truthy(v: FormulaValue, pos: number): boolean {
  if (typeof v === 'boolean') return v
  if (isNumber(v)) return !v.isZero()
  throw new FormulaFailure('type', `expected a condition, got ${kindOf(v)}`, pos)
}

/**
 * Equality across kinds: a number equals the text of the same number ("5" = 5), as metadata often
 * stores it; a date equals a date (or ISO text) naming the same day, or the same instant when both are instants.
 */
function same(a: FormulaValue, b: FormulaValue, ctx: FormulaContext): boolean {
  if (isFormulaDate(a) || isFormulaDate(b)) {
    try {
      return compareFormulaDates(toDate(a, 0, ctx), toDate(b, 0, ctx), zoneOf(ctx)) === 0
    } catch {
      return false
    }
  }
  if (isNumber(a) || isNumber(b)) {
    try {
      return num(a, 0).equals(num(b, 0))
    } catch {
      return false
    }
  }
  if (Array.isArray(a) || Array.isArray(b)) return false
  return a === b
}

function kindOf(v: FormulaValue): string {
  if (typeof v === 'string') return 'text'
  if (typeof v === 'boolean') return 'a yes/no value'
  if (Array.isArray(v)) return 'a list'
  if (isFormulaDate(v)) return v.kind === 'date' ? 'a date' : 'a date-time'
  return 'a number'
}
