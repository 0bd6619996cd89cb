import type { Metadata, Validity } from '../model/common'
import type {
  EarningLoyalty,
  EarningRule,
  MappingPoints,
  ProportionalCalculationType,
  ProportionalSpec,
} from '../model/loyalty'
import { decimal } from '../money'
import { evaluateFormula, type FormulaContext, type FormulaItem } from './formulas'
import { checkValidity } from './time-validity'

/**
 * How many points an earning rule gives (docs/concepts.md#earning-rules, docs/behaviour.md#earning-points).
 *
 * FIXED gives its `points`. PROPORTIONAL gives `floor(base / every) × points`, where the base is the
 * quantity the `calculation_type` names: a base below `every` gives 0, a negative, missing or
 * non-numeric base gives 0, and a non-positive `every` gives 0 (a rule that cannot be satisfied).
 * Amounts are in minor units (`every: 500` is $5).
 *
 * A `points_formula` (FIXED: on the rule; PROPORTIONAL: on the spec of its calculation type) gives the points
 * instead (docs/behaviour.md#formulas, docs/behaviour.md#rounding): money operands in major units
 * (ORDER_AMOUNT of 123.45 is 123.45), metadata as stored. The formula rounds as it says (`ROUND(…;0)`,
 * `FLOOR`); a result that is still fractional is floored to whole points, a negative one gives 0. When it
 * cannot be evaluated (missing metadata, a syntax error) the static calculation above is the fallback.
 *
 * A tier mapping then adjusts the result: `MULTIPLY` multiplies it (exactly, with decimal.js) and
 * floors to a whole point, so a member is never given a fraction; `CUSTOM` replaces it by the
 * mapping's fixed points whenever the rule earns anything (a rule that earns 0 still earns 0).
 */
export function calculateEarnedPoints(
  loyalty: EarningLoyalty,
  input: EarningInput,
  mapping?: MappingPoints | null,
): number {
  return applyMapping(basePoints(loyalty, input), mapping)
}

export interface EarningOrderItem {
  product_id?: string | null
  sku_id?: string | null
  quantity?: number | null
  /** Pre-discount amount of the line, minor units. */
  amount?: number | null
  /** Post-discount amount of the line, minor units. */
  subtotal_amount?: number | null
  /** Unit price, minor units (formulas' ORDER_ITEM_PRICE; amount ÷ quantity when absent). */
  price?: number | null
  metadata?: Metadata | null
  /**
   * Units of the line a discount made free (see `freeUnits`): item-quantity earning counts only the
   * units paid for, and a line with no unit paid for earns nothing by its amounts either.
   */
  free_quantity?: number | null
}

/**
 * The units of a calculated order line the customer does not pay for: units a discount added
 * (`quantity − initial_quantity`, ADD_NEW_ITEMS / ADD_MISSING_ITEMS), or, when the line's discount
 * covers its discounted units at their full price (a free unit of a line already in the order), those
 * units. A part-price discount (10% off three units) frees no unit: they are still paid for.
 */
export function freeUnits(line: {
  quantity: number
  initial_quantity: number
  discount_quantity: number
  discount_amount: number
  price: number
}): number {
  const added = Math.max(0, line.quantity - line.initial_quantity)
  const whole = line.price > 0 && line.discount_amount >= line.discount_quantity * line.price
  const free = whole ? Math.max(added, line.discount_quantity) : added
  return Math.min(Math.max(0, line.quantity), free)
}

export interface EarningInput {
  order?: {
    amount?: number | null
    total_amount?: number | null
    metadata?: Metadata | null
    items?: readonly EarningOrderItem[] | null
  } | null
  customer?: { metadata?: Metadata | null; birthdate?: string | null } | null
  customEvent?: { metadata?: Metadata | null } | null
  /** The event's instant and the engine's zone, for date operands in points formulas (`TODAY`, `NOW`). */
  now?: Date
  timeZone?: string
  /** Product collections by id, already resolved to the product and SKU ids they hold. */
  collections?: Readonly<Record<string, { products: readonly string[]; skus: readonly string[] }>>
}

function basePoints(loyalty: EarningLoyalty, input: EarningInput): number {
  const formula = pointsFormula(loyalty)
  if (formula !== undefined) {
    const outcome = evaluateFormula(formula, formulaContext(input))
    if (outcome.ok) {
      const points = outcome.value.isNegative() ? 0 : outcome.value.floor().toNumber()
      if (Number.isSafeInteger(points)) return points
    }
  }
  return staticPoints(loyalty, input)
}

function pointsFormula(loyalty: EarningLoyalty): string | undefined {
  let formula: string | undefined
  switch (loyalty.type) {
    case 'FIXED':
      formula = loyalty.points_formula
      break
    case 'PROPORTIONAL':
      formula = proportionalSpec(loyalty)?.points_formula
      break
    default: {
      const _never: never = loyalty
      return _never
    }
  }
  return formula !== undefined && formula.trim() !== '' ? formula : undefined
}

/** Where a PROPORTIONAL rule's spec lives, per calculation type (`order.amount` for ORDER_AMOUNT, …). */
export const PROPORTIONAL_SPEC_AT = {
  ORDER_AMOUNT: ['order', 'amount'],
  ORDER_TOTAL_AMOUNT: ['order', 'total_amount'],
  ORDER_METADATA: ['order', 'metadata'],
  ORDER_ITEMS_AMOUNT: ['order_items', 'amount'],
  ORDER_ITEMS_SUBTOTAL_AMOUNT: ['order_items', 'subtotal_amount'],
  ORDER_ITEMS_QUANTITY: ['order_items', 'quantity'],
  CUSTOMER_METADATA: ['customer', 'metadata'],
  CUSTOM_EVENT_METADATA: ['custom_event', 'metadata'],
} as const satisfies Record<ProportionalCalculationType, readonly [string, string]>

/** The spec a PROPORTIONAL rule's calculation type reads, when the rule carries it. */
export function proportionalSpec(
  loyalty: Extract<EarningLoyalty, { type: 'PROPORTIONAL' }>,
): ProportionalSpec | undefined {
  const [container, field] = PROPORTIONAL_SPEC_AT[loyalty.calculation_type]
  return (loyalty as unknown as Record<string, Record<string, ProportionalSpec | undefined> | undefined>)[container]?.[
    field
  ]
}

/** The earning input as a formula sees it; a line without a price is priced at amount ÷ quantity, floored to a minor unit. */
function formulaContext(input: EarningInput): FormulaContext {
  const order = input.order
  const context: FormulaContext = { customer: input.customer ?? null, now: input.now, timeZone: input.timeZone }
  if (order != null && order.amount != null) {
    const items: FormulaItem[] = (order.items ?? []).map((item) => {
      const quantity = item.quantity ?? 0
      const amount = item.amount ?? 0
      return {
        price: item.price ?? (quantity > 0 ? Math.floor(amount / quantity) : 0),
        amount,
        subtotal_amount: item.subtotal_amount ?? amount,
        quantity,
        metadata: item.metadata ?? undefined,
      }
    })
    context.order = { amount: order.amount, items, metadata: order.metadata }
  }
  return context
}

function staticPoints(loyalty: EarningLoyalty, input: EarningInput): number {
  switch (loyalty.type) {
    case 'FIXED':
      return Number.isSafeInteger(loyalty.points) && loyalty.points > 0 ? loyalty.points : 0
    case 'PROPORTIONAL': {
      const ct = loyalty.calculation_type
      switch (ct) {
        case 'ORDER_AMOUNT':
          return proportional(loyalty.order?.amount, input.order?.amount)
        case 'ORDER_TOTAL_AMOUNT':
          return proportional(loyalty.order?.total_amount, input.order?.total_amount)
        case 'ORDER_METADATA':
          return proportional(loyalty.order?.metadata, metadataNumber(input.order?.metadata, loyalty.order?.metadata))
        case 'CUSTOMER_METADATA':
          return proportional(
            loyalty.customer?.metadata,
            metadataNumber(input.customer?.metadata, loyalty.customer?.metadata),
          )
        case 'CUSTOM_EVENT_METADATA':
          return proportional(
            loyalty.custom_event?.metadata,
            metadataNumber(input.customEvent?.metadata, loyalty.custom_event?.metadata),
          )
        case 'ORDER_ITEMS_AMOUNT': {
          const spec = loyalty.order_items?.amount
          return proportional(
            spec,
            sumItems(spec, input, (item) => item.amount),
          )
        }
        case 'ORDER_ITEMS_SUBTOTAL_AMOUNT': {
          const spec = loyalty.order_items?.subtotal_amount
          return proportional(
            spec,
            sumItems(spec, input, (item) => item.subtotal_amount),
          )
        }
        case 'ORDER_ITEMS_QUANTITY': {
          const spec = loyalty.order_items?.quantity
          return proportional(
            spec,
            sumItems(spec, input, (item) => (item.quantity ?? 0) - (item.free_quantity ?? 0)),
          )
        }
        default: {
          const _never: never = ct
          return _never
        }
      }
    }
    default: {
      const _never: never = loyalty
      return _never
    }
  }
}

/** floor(base / every) × points, exact for fractional metadata values too. */
function proportional(spec: ProportionalSpec | undefined, base: number | null | undefined): number {
  if (spec === undefined || base === null || base === undefined) return 0
  if (!Number.isFinite(base) || base <= 0) return 0
  if (!Number.isFinite(spec.every) || spec.every <= 0) return 0
  if (!Number.isSafeInteger(spec.points) || spec.points <= 0) return 0
  if (Number.isSafeInteger(base) && Number.isSafeInteger(spec.every)) {
    // Integer fast path: `base - base % every` is an exact multiple, so the division is exact.
    const points = ((base - (base % spec.every)) / spec.every) * spec.points
    if (Number.isSafeInteger(points)) return points
  }
  return decimal(base).dividedBy(spec.every).floor().times(spec.points).toNumber()
}

/** A metadata property counts only when it is a finite number (a Number in the metadata schema). */
function metadataNumber(metadata: Metadata | null | undefined, spec: ProportionalSpec | undefined): number | null {
  if (metadata === null || metadata === undefined || spec?.property === undefined) return null
  const value = metadata[spec.property]
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

/**
 * Sums a field over the order lines the spec targets. Each line counts once even when it matches
 * several targets (an item in two selected collections is not counted twice). A line with no unit
 * paid for never counts. A spec that names no target covers every line.
 */
function sumItems(
  spec: ProportionalSpec | undefined,
  input: EarningInput,
  field: (item: EarningOrderItem) => number | null | undefined,
): number | null {
  const items = input.order?.items
  if (spec === undefined || items === null || items === undefined) return null
  const targets = itemTargets(spec)
  let total = 0
  for (const item of items) {
    if ((item.free_quantity ?? 0) > 0 && (item.free_quantity ?? 0) >= (item.quantity ?? 0)) continue
    if (targets.length > 0 && !targets.some((t) => itemMatches(item, t, input.collections))) continue
    const value = field(item)
    // A negative or missing line value adds nothing rather than cancelling other lines.
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) total += value
  }
  return total
}

export interface ItemTarget {
  object: 'product' | 'sku' | 'products_collection'
  id: string
}

function itemTargets(spec: ProportionalSpec): ItemTarget[] {
  const targets: ItemTarget[] = spec.applicable_to === undefined ? [] : [...spec.applicable_to]
  if (spec.object !== undefined && spec.id !== undefined) targets.push({ object: spec.object, id: spec.id })
  return targets
}

/** A product target matches its SKUs' lines too (the line carries its product id). */
export function itemMatches(
  item: EarningOrderItem,
  target: ItemTarget,
  collections: EarningInput['collections'],
): boolean {
  switch (target.object) {
    case 'product':
      return item.product_id === target.id
    case 'sku':
      return item.sku_id === target.id
    case 'products_collection': {
      const collection = collections?.[target.id]
      if (collection === undefined) return false
      return (
        (item.product_id != null && collection.products.includes(item.product_id)) ||
        (item.sku_id != null && collection.skus.includes(item.sku_id))
      )
    }
    default: {
      const _never: never = target.object
      return _never
    }
  }
}

function applyMapping(points: number, mapping: MappingPoints | null | undefined): number {
  if (mapping === null || mapping === undefined || points <= 0) return points
  switch (mapping.type) {
    case 'MULTIPLY': {
      if (!Number.isFinite(mapping.multiplier) || mapping.multiplier <= 0) return 0
      return multiplyFloor(points, mapping.multiplier)
    }
    case 'CUSTOM':
      return Number.isSafeInteger(mapping.points) && mapping.points > 0 ? mapping.points : 0
    default: {
      const _never: never = mapping
      return _never
    }
  }
}

/**
 * floor(points × multiplier), exact: the multiplier is read as the decimal it is written as (1.1 is
 * 11/10, not the binary float just above it), so 10 points × 1.1 is 11, never 10.
 */
function multiplyFloor(points: number, multiplier: number): number {
  const ratio = decimalRatio(multiplier)
  if (ratio !== null) {
    const product = points * ratio.num
    if (Number.isSafeInteger(product)) return (product - (product % ratio.den)) / ratio.den
  }
  return decimal(points).times(multiplier).floor().toNumber()
}

// Multipliers repeat (a handful per program): memoise their exact num/den form.
const ratios = new Map<number, { num: number; den: number } | null>()

function decimalRatio(value: number): { num: number; den: number } | null {
  const known = ratios.get(value)
  if (known !== undefined) return known
  const text = String(value)
  let ratio: { num: number; den: number } | null = null
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text)
  if (m !== null) {
    const frac = m[2] ?? ''
    const num = Number((m[1] ?? '') + frac)
    const den = 10 ** frac.length
    if (Number.isSafeInteger(num) && Number.isSafeInteger(den)) ratio = { num, den }
  }
  if (ratios.size >= 1000) ratios.clear()
  ratios.set(value, ratio)
  return ratio
}

/** The tier's mapping for an earning rule, if the member's tier has one. */
export function tierEarningMapping(
  tier: { earning_rules?: Readonly<Record<string, MappingPoints>> } | null | undefined,
  earningRuleId: string,
): MappingPoints | null {
  return tier?.earning_rules?.[earningRuleId] ?? null
}

export const ANY_TIER = '__ANY__'

export const TIER_EVENTS = [
  'customer.loyalty.tier.joined',
  'customer.loyalty.tier.left',
  'customer.loyalty.tier.upgraded',
  'customer.loyalty.tier.downgraded',
  'customer.loyalty.tier.prolonged',
] as const

export interface EarningRuleSelection {
  /** `order.paid`, `customer.segment.entered`, a tier event, or a custom event's name. */
  event: string
  now: Date
  timeZone: string
  /** For tier events: the tier the event concerns. */
  tierId?: string | null
  /** For `customer.segment.entered`: the segment entered. */
  segmentId?: string | null
  /** For custom events: the schema of the event, when known. */
  customEventSchemaId?: string | null
}

/**
 * The rules an event fires: active, inside their validity window at `now`, and whose event matches.
 * A segment rule needs the entered segment; a tier rule needs the event's tier or `__ANY__`; a
 * custom-event rule matches by event name and, when both sides know it, by schema id. The validation
 * rule (`validation_rule_id`) is the caller's to check: it needs the conditions engine.
 * The input order is kept.
 */
export function selectEarningRules<R extends EarningRuleLike>(
  rules: readonly R[],
  selection: EarningRuleSelection,
): R[] {
  const options = { timeZone: selection.timeZone }
  return rules.filter((rule) => eventMatches(rule, selection) && isValidAt(rule, selection.now, options))
}

export type EarningRuleLike = Validity &
  Pick<EarningRule, 'event' | 'segment' | 'custom_event' | 'loyalty_tier'> & { created_at?: string | null }

/** `active`, dates, timeframe (counted from `created_at` when there is no start), days of week and hours. */
function isValidAt(rule: EarningRuleLike, now: Date, options: { timeZone: string }): boolean {
  // Only a timeframe needs the anchor; sharing the options object keeps selection cheap per order.
  const anchored = rule.validity_timeframe == null ? options : { ...options, timeframeAnchor: rule.created_at ?? null }
  return checkValidity(rule, now, anchored).ok
}

function eventMatches(rule: EarningRuleLike, s: EarningRuleSelection): boolean {
  if (rule.event !== s.event) return false
  if (s.event === 'order.paid') return true
  if (s.event === 'customer.segment.entered') return rule.segment?.id !== undefined && rule.segment.id === s.segmentId
  if ((TIER_EVENTS as readonly string[]).includes(s.event)) {
    const wanted = rule.loyalty_tier?.id
    return wanted === ANY_TIER || (wanted !== undefined && wanted === s.tierId)
  }
  const schema = rule.custom_event?.schema_id
  return schema === undefined || s.customEventSchemaId == null || schema === s.customEventSchemaId
}
