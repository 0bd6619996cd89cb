import { Decimal } from 'decimal.js'
import type { Metadata } from '../../model/common'
import { decimal } from '../../money'
import { type FormulaContext, type FormulaItem, toMajorUnits } from './context'
import { FormulaFailure, type FormulaFailureReason } from './failure'
import { type Node, parse } from './parse'

/** A value inside a formula: numbers are exact decimals; metadata may also give text, yes/no, or lists. */
export type FormulaValue = Decimal | string | boolean | readonly FormulaValue[]

export type FormulaOutcome = { ok: true; value: Decimal } | { ok: false; reason: FormulaFailureReason }

/**
 * Evaluates a formula to a number. Never throws: a formula that does not parse, names something
 * unknown, reads metadata the context lacks, or divides by zero gives `{ ok: false, reason }`, and the
 * caller falls back to the static value (reference §3.5).
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
      return num(left, pos).lessThan(num(right, pos))
    case '<=':
      return num(left, pos).lessThanOrEqualTo(num(right, pos))
    case '>':
      return num(left, pos).greaterThan(num(right, pos))
    case '>=':
      return num(left, pos).greaterThanOrEqualTo(num(right, pos))
    case '=':
    case 'is':
      return same(left, right)
    case '!=':
    case 'isNot':
      return !same(left, right)
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
          if (same(subject, evaluateNode(c.args[0] as Node, ctx))) return evaluateNode(c.args[1] as Node, ctx)
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
        found = Array.isArray(v) ? v.some((x) => same(needle, x)) : same(needle, v as FormulaValue)
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

function operand(name: string, pos: number, ctx: FormulaContext): FormulaValue {
  switch (name) {
    case 'TRUE':
      return true
    case 'FALSE':
      return false
    case 'ORDER_AMOUNT':
      return toMajorUnits(needOrder(ctx, pos).amount)
    case 'ORDER_ITEMS_QUANTITY':
      return decimal(needOrder(ctx, pos).items.filter((i) => i.quantity > 0).length)
    case 'ORDER_UNITS_QUANTITY':
      return decimal(needOrder(ctx, pos).items.reduce((s, i) => s + Math.max(0, i.quantity), 0))
    case 'VOUCHER_REDEMPTION_QUANTITY':
      return count(ctx.redeemable?.redemption_quantity, name, pos)
    case 'VOUCHER_REDEEMED_QUANTITY':
      return count(ctx.redeemable?.redeemed_quantity, name, pos)
    case 'VOUCHER_PUBLISH_COUNT':
      return count(ctx.redeemable?.publish_count, name, pos)
  }
  const field = ITEM_FIELDS.find((f) => name.endsWith(f))
  if (field !== undefined) {
    const prefix = name.slice(0, name.length - field.length)
    if (prefix === 'ORDER_ITEM_') return itemField(needItem(ctx, pos), field)
    if (prefix === 'CHEAPEST_ORDER_ITEM_' || prefix === 'MOST_EXPENSIVE_ORDER_ITEM_') {
      const item = extremeItem(needOrder(ctx, pos).items, prefix === 'CHEAPEST_ORDER_ITEM_' ? 1 : -1)
      if (item === null) throw new FormulaFailure('missing_value', `${name}: the order has no items`, pos)
      return itemField(item, field)
    }
  }
  if (name === 'ORDER_ITEM_QUANTITY') return decimal(needItem(ctx, pos).quantity)
  throw new FormulaFailure('unknown_operand', `unknown operand ${name}`, pos)
}

const ITEM_FIELDS = ['PRICE', 'AMOUNT', 'SUBTOTAL', 'UNITS_QUANTITY'] as const
type ItemField = (typeof ITEM_FIELDS)[number]

function itemField(item: FormulaItem, field: ItemField): Decimal {
  switch (field) {
    case 'PRICE':
      return toMajorUnits(item.price)
    case 'AMOUNT':
      return toMajorUnits(item.amount)
    case 'SUBTOTAL':
      return toMajorUnits(item.subtotal_amount)
    case 'UNITS_QUANTITY':
      return decimal(item.quantity)
    default: {
      const _never: never = field
      return _never
    }
  }
}

/** The cheapest (or most expensive) line: by unit price, then the lower subtotal, then the first (reference §3.3). */
function extremeItem(items: readonly FormulaItem[], direction: 1 | -1): FormulaItem | null {
  let best: FormulaItem | null = null
  for (const item of items) {
    if (item.quantity <= 0) continue
    if (
      best === null ||
      (item.price - best.price) * direction < 0 ||
      (item.price === best.price && item.subtotal_amount < best.subtotal_amount)
    ) {
      best = item
    }
  }
  return best
}

function needOrder(ctx: FormulaContext, pos: number): NonNullable<FormulaContext['order']> {
  if (ctx.order == null) throw new FormulaFailure('missing_value', 'the formula reads the order and there is none', pos)
  return ctx.order
}

function needItem(ctx: FormulaContext, pos: number): FormulaItem {
  if (ctx.item == null) {
    throw new FormulaFailure('item_required', 'ORDER_ITEM_* operands need an order line to be evaluated for', pos)
  }
  return ctx.item
}

function count(value: number | null | undefined, name: string, pos: number): Decimal {
  if (value == null) throw new FormulaFailure('missing_value', `${name} is not known here`, pos)
  return decimal(value)
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
  return typeof v === 'object' && !Array.isArray(v)
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

/** Equality across kinds: a number equals the text of the same number ("5" = 5), as metadata often stores it. */
function same(a: FormulaValue, b: FormulaValue): boolean {
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
  return 'a number'
}
