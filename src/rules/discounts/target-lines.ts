import type { CalculatedOrderItem } from '../../model/order'
import type {
  ApplicableTo,
  ApplicableToEffect,
  ApplicableToEntry,
  ApplicableToResultItem,
  ApplicableToResultList,
  OrderItemUnits,
  UnitBudgetReport,
} from '../../model/validation-rule'
import { UNIT_BUDGET_FIELDS } from '../../model/validation-rule'
import type { CollectionMembers, Collections, UnitRoom } from './discount-types'

/**
 * Which order lines, and how many units of each, a discount may touch (docs/concepts.md#targeting). Lines go to
 * the first included entry that matches them; excluded entries always win. Within an entry the lines
 * are ordered by its `effect`, then `skip_initially` / `repeat` pick the positions (lines for target
 * ITEM, units counted across lines for target UNIT), then the unit limits cut, in that order. Unit
 * budgets (what a campaign or tier may still discount of the entry, per member for collections) cut
 * with the per-request limits: the tightest wins.
 */

/** Units listed in `order_item_units` only while the order holds at most this many (docs/concepts.md#targeting). */
export const MAX_LISTED_UNITS = 1000

/** One line chosen for a discount: `units` of it, under targeting group `group`. */
export interface Pick {
  index: number
  units: number
  group: number
}

export interface TargetGroup {
  /** The included entry, or null for "every line" (no included entries, or `included_all`). */
  entry: ApplicableToEntry | null
}

export interface TargetSelection {
  /** In application order: group by group, each in its effect's order. */
  picks: Pick[]
  groups: TargetGroup[]
  applicable_to: ApplicableToResultList
  inapplicable_to: ApplicableToResultList
}

export interface TargetingContext {
  collections?: Collections | undefined
  /** ONCE mode: lines already discounted by an earlier step are not candidates. */
  once: boolean
  /** Bundle multiplier for unit limits (1 when the discount type does not scale them). */
  unitScale: number
  /** Unit budgets left, by position in `included` (never scaled by bundles). */
  unitRoom?: readonly (UnitRoom | undefined)[] | undefined
}

export function emptyList(): ApplicableToResultList {
  return { object: 'list', data_ref: 'data', data: [], total: 0 }
}

/** True when the rule names any product, SKU or collection: targeting then decides the default effect. */
export function hasTargetEntries(applicableTo: ApplicableTo | undefined): boolean {
  return (applicableTo?.included?.length ?? 0) > 0 || (applicableTo?.excluded?.length ?? 0) > 0
}

export function selectTargets(
  items: readonly CalculatedOrderItem[],
  applicableTo: ApplicableTo | undefined,
  ctx: TargetingContext,
): TargetSelection {
  const included = applicableTo?.included ?? []
  const excluded = applicableTo?.excluded ?? []
  const n = items.length
  const listUnits = excluded.length + included.length > 0 && totalQuantity(items) <= MAX_LISTED_UNITS

  let excludedLine: Uint8Array | undefined
  const inapplicable: ApplicableToResultItem[] = []
  for (const entry of excluded) {
    excludedLine ??= new Uint8Array(n)
    const indices: number[] = []
    const units: OrderItemUnits[] = []
    for (let i = 0; i < n; i++) {
      const item = items[i] as CalculatedOrderItem
      if (!matches(item, entry, ctx.collections)) continue
      excludedLine[i] = 1
      indices.push(i)
      units.push(unitsEntry(i, 1, item.quantity, 1, listUnits))
    }
    if (indices.length > 0) inapplicable.push(resultItem(entry, indices, units))
  }

  // Lines no included entry names still count when the rule says "all" or names no product at all.
  const everyLine = included.length === 0 || applicableTo?.included_all === true
  const groupCount = included.length + (everyLine ? 1 : 0)
  const members: number[][] = []
  for (let g = 0; g < groupCount; g++) members.push([])
  for (let i = 0; i < n; i++) {
    if (excludedLine !== undefined && excludedLine[i] === 1) continue
    const item = items[i] as CalculatedOrderItem
    if (item.quantity <= 0) continue
    if (ctx.once && (item.discount_amount > 0 || item.discount_quantity > 0)) continue
    let group = -1
    for (let g = 0; g < included.length; g++) {
      if (matches(item, included[g] as ApplicableToEntry, ctx.collections)) {
        group = g
        break
      }
    }
    if (group === -1 && everyLine) group = included.length
    if (group !== -1) (members[group] as number[]).push(i)
  }

  const picks: Pick[] = []
  const groups: TargetGroup[] = []
  const applicable: ApplicableToResultItem[] = []
  for (let g = 0; g < groupCount; g++) {
    const entry = g < included.length ? (included[g] as ApplicableToEntry) : null
    groups.push({ entry })
    const lines = members[g] as number[]
    if (lines.length === 0) continue
    const units = entry !== null ? ([] as OrderItemUnits[]) : undefined
    const room = entry !== null ? ctx.unitRoom?.[g] : undefined
    const budget = entry === null || room === undefined ? undefined : new BudgetLeft(room, entry, ctx.collections)
    selectInGroup(items, lines, entry, g, ctx.unitScale, picks, units, listUnits, budget)
    // Members were collected in line order; only the effect's ordering (a copy) reorders them.
    if (entry !== null) {
      const out = resultItem(entry, lines, units ?? [])
      if (budget !== undefined) out.unit_budget = budget.report()
      applicable.push(out)
    }
  }

  return {
    picks,
    groups,
    applicable_to: { object: 'list', data_ref: 'data', data: applicable, total: applicable.length },
    inapplicable_to: { object: 'list', data_ref: 'data', data: inapplicable, total: inapplicable.length },
  }
}

function selectInGroup(
  items: readonly CalculatedOrderItem[],
  lines: number[],
  entry: ApplicableToEntry | null,
  group: number,
  unitScale: number,
  picks: Pick[],
  listed: OrderItemUnits[] | undefined,
  listUnits: boolean,
  budget: BudgetLeft | undefined,
): void {
  const effect: ApplicableToEffect = entry?.effect ?? 'APPLY_TO_EVERY'
  const target = entry?.target ?? 'ITEM'
  const skip = positive(entry?.skip_initially) ?? 0
  const repeat = positive(entry?.repeat) ?? 1
  const quantityLimit = scaled(entry?.quantity_limit, unitScale)
  let aggregatedLeft = scaled(entry?.aggregated_quantity_limit, unitScale) ?? Number.POSITIVE_INFINITY

  const ordered = orderLines(items, lines, effect)
  const single = effect === 'APPLY_TO_CHEAPEST' || effect === 'APPLY_TO_MOST_EXPENSIVE'

  let position = 0 // last position used (lines for ITEM, units for UNIT)
  for (let k = 0; k < ordered.length && aggregatedLeft > 0; k++) {
    const index = ordered[k] as number
    const quantity = (items[index] as CalculatedOrderItem).quantity
    let first: number // 1-based unit number of the first chosen unit within the line
    let step: number
    let count: number
    if (target === 'ITEM') {
      position += 1
      const chosen = single ? k === 0 : position > skip && (position - skip - 1) % repeat === 0
      if (!chosen) continue
      first = 1
      step = 1
      count = quantity
    } else {
      const start = position // units before this line
      position += quantity
      if (single) {
        if (k > 0) break
        first = 1
        step = 1
        count = 1
      } else {
        // First chosen position ≥ max(start+1, skip+1) on the grid skip+1, skip+1+repeat, …
        const low = Math.max(start + 1, skip + 1)
        const p0 = skip + 1 + Math.ceil((low - skip - 1) / repeat) * repeat
        if (p0 > start + quantity) continue
        first = p0 - start
        step = repeat
        count = Math.floor((start + quantity - p0) / repeat) + 1
      }
    }
    if (quantityLimit !== undefined && count > quantityLimit) count = quantityLimit
    if (count > aggregatedLeft) count = aggregatedLeft
    if (budget !== undefined) count = budget.take(items[index] as CalculatedOrderItem, count)
    if (count <= 0) continue
    aggregatedLeft -= count
    picks.push({ index, units: count, group })
    listed?.push(unitsEntry(index, first, count, step, listUnits))
    if (single) break
  }
}

/**
 * The unit budgets one entry has left during a selection: taken line by line in application order,
 * so the lines the effect puts first keep their units. Counts what it refused, for the result.
 */
class BudgetLeft {
  private units: number
  private readonly members: Map<string, number> | undefined
  private readonly reported: Record<string, number> | undefined
  private refused = 0

  constructor(
    private readonly room: UnitRoom,
    private readonly entry: ApplicableToEntry,
    private readonly collections: Collections | undefined,
  ) {
    this.units = room.units ?? Number.POSITIVE_INFINITY
    const perMember =
      entry.object === 'products_collection' && (room.members !== undefined || room.member_default !== undefined)
    this.members = perMember ? new Map(Object.entries(room.members ?? {})) : undefined
    this.reported = perMember ? {} : undefined
  }

  /** The units of `wanted` the budgets allow on this line; they are used up. */
  take(item: CalculatedOrderItem, wanted: number): number {
    let count = Math.min(wanted, this.units)
    if (this.members !== undefined) {
      const key = collectionMemberKey(item, this.entry, this.collections)
      if (key !== undefined) {
        const left = this.members.get(key) ?? this.room.member_default ?? Number.POSITIVE_INFINITY
        if (this.reported !== undefined && !(key in this.reported) && Number.isFinite(left)) this.reported[key] = left
        if (count > left) count = left
        this.members.set(key, left - Math.max(count, 0))
      }
    }
    if (count < 0) count = 0
    this.units -= count
    this.refused += wanted - count
    return count
  }

  report(): UnitBudgetReport {
    const out: UnitBudgetReport = { refused_units: this.refused }
    if (this.room.units !== undefined) out.remaining_units = this.room.units
    if (this.reported !== undefined) out.members = this.reported
    return out
  }
}

/**
 * Which member of a collection entry a line is, for per-product budgets: its product when the
 * collection lists the product, else its SKU. Undefined when the entry is not a collection or the
 * line is not in it.
 */
export function collectionMemberKey(
  item: CalculatedOrderItem,
  entry: ApplicableToEntry,
  collections: Collections | undefined,
): string | undefined {
  if (entry.object !== 'products_collection') return undefined
  const members = collections?.[entry.id]
  if (members === undefined) return undefined
  const sets = memberSets(members)
  const productId = item.product_id ?? item.product?.id
  if (productId != null && sets.products.has(productId)) return productId
  const skuId = item.sku_id ?? item.sku?.id
  return skuId != null && sets.skus.has(skuId) ? skuId : undefined
}

/** EVERY keeps request order; the others sort by unit price, then lower subtotal, then request order. */
function orderLines(items: readonly CalculatedOrderItem[], lines: number[], effect: ApplicableToEffect): number[] {
  switch (effect) {
    case 'APPLY_TO_EVERY':
      return lines
    case 'APPLY_TO_CHEAPEST':
    case 'APPLY_FROM_CHEAPEST':
      return lines.slice().sort((a, b) => compareLines(items, a, b, 1))
    case 'APPLY_TO_MOST_EXPENSIVE':
    case 'APPLY_FROM_MOST_EXPENSIVE':
      return lines.slice().sort((a, b) => compareLines(items, a, b, -1))
    default: {
      const _never: never = effect
      return _never
    }
  }
}

function compareLines(items: readonly CalculatedOrderItem[], a: number, b: number, direction: 1 | -1): number {
  const x = items[a] as CalculatedOrderItem
  const y = items[b] as CalculatedOrderItem
  if (x.price !== y.price) return (x.price - y.price) * direction
  const sx = x.amount - x.discount_amount
  const sy = y.amount - y.discount_amount
  if (sx !== sy) return sx - sy
  return a - b
}

/** Does `entry` name this line? A product entry covers the product's SKUs. */
export function matches(item: CalculatedOrderItem, entry: ApplicableToEntry, collections?: Collections): boolean {
  switch (entry.object) {
    case 'product': {
      const productId = item.product_id ?? item.product?.id
      if (productId != null && productId === entry.id) return true
      if (entry.source_id == null) return false
      const source = item.product?.source_id ?? (item.related_object === 'sku' ? undefined : item.source_id)
      return source != null && source === entry.source_id
    }
    case 'sku': {
      const skuId = item.sku_id ?? item.sku?.id
      if (skuId != null && skuId === entry.id) return true
      if (entry.source_id == null) return false
      const source = item.sku?.source_id ?? (item.related_object === 'sku' ? item.source_id : undefined)
      return source != null && source === entry.source_id
    }
    case 'products_collection': {
      const members = collections?.[entry.id]
      if (members === undefined) return false
      const sets = memberSets(members)
      const productId = item.product_id ?? item.product?.id
      if (productId != null && sets.products.has(productId)) return true
      const skuId = item.sku_id ?? item.sku?.id
      return skuId != null && sets.skus.has(skuId)
    }
    default: {
      const _never: never = entry.object
      return _never
    }
  }
}

// Memoised per members object: the lists are plain data from the caller and never change under us.
const setsCache = new WeakMap<CollectionMembers, { products: Set<string>; skus: Set<string> }>()
function memberSets(members: CollectionMembers): { products: Set<string>; skus: Set<string> } {
  let sets = setsCache.get(members)
  if (sets === undefined) {
    sets = { products: new Set(members.products ?? []), skus: new Set(members.skus ?? []) }
    setsCache.set(members, sets)
  }
  return sets
}

function resultItem(entry: ApplicableToEntry, indices: number[], units: OrderItemUnits[]): ApplicableToResultItem {
  // Field by field rather than `{ ...entry, … }`: V8 takes a slow path for a spread with additions.
  const out: ApplicableToResultItem = {
    object: entry.object,
    id: entry.id,
    effect: entry.effect ?? 'APPLY_TO_EVERY',
    target: entry.target ?? 'ITEM',
    order_item_indices: indices,
    order_item_units: units,
  }
  if (entry.source_id !== undefined) out.source_id = entry.source_id
  if (entry.product_id !== undefined) out.product_id = entry.product_id
  if (entry.product_source_id !== undefined) out.product_source_id = entry.product_source_id
  if (entry.strict !== undefined) out.strict = entry.strict
  if (entry.price !== undefined) out.price = entry.price
  if (entry.price_formula !== undefined) out.price_formula = entry.price_formula
  if (entry.quantity_limit !== undefined) out.quantity_limit = entry.quantity_limit
  if (entry.aggregated_quantity_limit !== undefined) out.aggregated_quantity_limit = entry.aggregated_quantity_limit
  if (entry.amount_limit !== undefined) out.amount_limit = entry.amount_limit
  if (entry.aggregated_amount_limit !== undefined) out.aggregated_amount_limit = entry.aggregated_amount_limit
  if (entry.repeat !== undefined) out.repeat = entry.repeat
  if (entry.skip_initially !== undefined) out.skip_initially = entry.skip_initially
  for (const [field, formulaField] of BUDGET_FIELD_PAIRS) {
    const limit = entry[field]
    if (limit !== undefined) out[field] = limit
    const formula = entry[formulaField]
    if (formula !== undefined) out[formulaField] = formula
  }
  return out
}

// Built once: a key made per call (`${field}_formula`) costs a string and a slow keyed lookup per entry.
const BUDGET_FIELD_PAIRS = UNIT_BUDGET_FIELDS.map((field) => [field, `${field}_formula` as const] as const)

function unitsEntry(index: number, first: number, count: number, step: number, list: boolean): OrderItemUnits {
  if (!list) return { index, units_limit_exceeded: true }
  const units: number[] = new Array(count)
  for (let u = 0; u < count; u++) units[u] = first + u * step
  return { index, units, units_limit_exceeded: false }
}

function totalQuantity(items: readonly CalculatedOrderItem[]): number {
  let total = 0
  for (const item of items) total += item.quantity
  return total
}

function positive(value: number | null | undefined): number | undefined {
  return value != null && value > 0 ? value : undefined
}

/** A unit limit (0 or absent = none), multiplied by the bundle count where the type scales limits. */
function scaled(value: number | null | undefined, scale: number): number | undefined {
  const v = positive(value)
  return v === undefined ? undefined : v * scale
}
