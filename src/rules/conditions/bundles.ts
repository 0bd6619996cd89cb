/**
 * Product bundles (docs/concepts.md#bundles): `bundle_rules` with a `limit` and numbered `order.items.any`
 * rules whose `$is` lists the products, SKUs or collections that make up one bundle. The result's
 * `quantity` is the number of complete bundles in the order (0 when something is missing), capped
 * by `limit`; it is the discount multiplier.
 *
 * The units one bundle needs of a rule come from its nested `order.items.quantity` or
 * `order.items.aggregated_quantity` rule (`$is` / `$more_than_or_equal` N, `$more_than` N → N+1),
 * else 1. A unit counts towards one bundle rule only; rules take units in rule order and lines in
 * order, so the answer is deterministic.
 */
import type { BundleRules, RuleDefinition } from '../../model/validation-rule'
import type { EvalCollection, EvalOrderItem } from './evaluation-context'
import { bundleIdentity, type ItemRef, itemMatchesRef, quantityOf, toItemRef } from './items'
import { canonicalOperator } from './operators'

export interface BundleIdentifiedItem {
  id: string
  object: 'product' | 'sku'
  item_index: number
  item_quantity: number
}

export interface BundleMissingItem {
  id: string
  object: 'product' | 'sku' | 'products_collection'
  item_quantity: number
}

export interface Bundle {
  quantity: number
  limit: number
  identified: BundleIdentifiedItem[]
  missing: BundleMissingItem[]
}

/** When `bundle_rules.limit` is absent one bundle counts: the discount is never multiplied unasked. */
export const DEFAULT_BUNDLE_LIMIT = 1

interface BundlePart {
  refs: ItemRef[]
  required: number
}

function unitsRequired(def: RuleDefinition): number {
  const nested = def.rules ?? {}
  for (const [key, value] of Object.entries(nested)) {
    if (key === 'logic' || value === undefined || typeof value === 'string') continue
    if (value.name !== 'order.items.quantity' && value.name !== 'order.items.aggregated_quantity') continue
    for (const [op, raw] of Object.entries(value.conditions ?? {})) {
      const n = Number(Array.isArray(raw) ? raw[0] : raw)
      if (!Number.isInteger(n) || n < 0) continue
      const canon = canonicalOperator(op)
      if (canon === '$is' || canon === '$more_than_or_equal') return Math.max(1, n)
      if (canon === '$more_than') return n + 1
    }
  }
  return 1
}

function parts(rules: BundleRules): BundlePart[] {
  return Object.keys(rules)
    .filter((k) => k !== 'limit')
    .sort((a, b) => Number(a) - Number(b))
    .flatMap((k) => {
      const def = rules[k]
      if (def === undefined || typeof def === 'number') return []
      const is = def.conditions?.$is ?? def.conditions?.$in ?? []
      const refs = is.map(toItemRef).filter((r): r is ItemRef => r !== null)
      return refs.length === 0 ? [] : [{ refs, required: unitsRequired(def) }]
    })
}

interface Allocation {
  /** Per part: units taken from each line. */
  taken: Map<number, number>[]
  /** Per part: units still missing. */
  short: number[]
}

function allocate(
  bundleParts: readonly BundlePart[],
  items: readonly EvalOrderItem[],
  bundles: number,
  collections: Readonly<Record<string, EvalCollection>> | undefined,
): Allocation {
  const left = items.map(quantityOf)
  const taken: Map<number, number>[] = []
  const short: number[] = []
  for (const part of bundleParts) {
    let need = part.required * bundles
    const mine = new Map<number, number>()
    items.forEach((item, index) => {
      if (need === 0 || !part.refs.some((r) => itemMatchesRef(item, r, collections))) return
      const take = Math.min(need, left[index] ?? 0)
      if (take <= 0) return
      left[index] = (left[index] ?? 0) - take
      need -= take
      mine.set(index, take)
    })
    taken.push(mine)
    short.push(need)
  }
  return { taken, short }
}

/** Counts the complete bundles in an order and names what one bundle is missing. */
export function evaluateBundle(
  rules: BundleRules,
  items: readonly EvalOrderItem[],
  collections?: Readonly<Record<string, EvalCollection>>,
): Bundle {
  const limit = typeof rules.limit === 'number' && rules.limit >= 1 ? Math.floor(rules.limit) : DEFAULT_BUNDLE_LIMIT
  const bundleParts = parts(rules)
  if (bundleParts.length === 0) return { quantity: 0, limit, identified: [], missing: [] }
  const total = items.reduce((n, item) => n + quantityOf(item), 0)
  const upper = Math.min(limit, ...bundleParts.map((p) => Math.floor(total / p.required)))
  let quantity = 0
  for (let k = upper; k >= 1; k--) {
    if (allocate(bundleParts, items, k, collections).short.every((s) => s === 0)) {
      quantity = k
      break
    }
  }
  const allocation = allocate(bundleParts, items, Math.max(quantity, 1), collections)
  const identified: BundleIdentifiedItem[] = []
  const missing: BundleMissingItem[] = []
  bundleParts.forEach((part, i) => {
    const ref = part.refs[0] as ItemRef
    for (const [index, units] of allocation.taken[i] ?? []) {
      const item = items[index] as EvalOrderItem
      const matched = part.refs.find((r) => itemMatchesRef(item, r, collections)) ?? ref
      identified.push({ ...bundleIdentity(item, matched), item_index: index, item_quantity: units })
    }
    const short = allocation.short[i] ?? 0
    if (quantity === 0 && short > 0) {
      const object = ref.object === 'sku' || ref.object === 'products_collection' ? ref.object : 'product'
      missing.push({ id: ref.id ?? ref.source_id ?? '', object, item_quantity: short })
    }
  })
  return { quantity, limit, identified, missing }
}
