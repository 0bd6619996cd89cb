/**
 * Which order lines a product / SKU / collection reference names, and the per-line values item
 * rules read. A reference is `{id, object: 'product'|'sku'|'products_collection', source_id?}`
 * (or a bare id, which matches a product or a SKU).
 */
import type { Metadata } from '../../model/common'
import type { EvalCollection, EvalOrderItem } from './evaluation-context'

export interface ItemRef {
  id?: string | null
  source_id?: string | null
  object?: string | null
}

export interface IndexedItem {
  item: EvalOrderItem
  index: number
}

export function toItemRef(value: unknown): ItemRef | null {
  if (typeof value === 'string') return { id: value }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>
    const ref: ItemRef = {}
    if (typeof o.id === 'string') ref.id = o.id
    if (typeof o.source_id === 'string') ref.source_id = o.source_id
    if (typeof o.object === 'string') ref.object = o.object
    // Bundle rules name collections by `type` too: `{id, type: 'products_collection'}`.
    else if (o.type === 'products_collection') ref.object = 'products_collection'
    if (ref.id === undefined && ref.source_id === undefined) return null
    return ref
  }
  return null
}

function productId(item: EvalOrderItem): string | null {
  return item.product_id ?? item.product?.id ?? null
}

function skuId(item: EvalOrderItem): string | null {
  return item.sku_id ?? item.sku?.id ?? null
}

function productSourceId(item: EvalOrderItem): string | null {
  return item.product?.source_id ?? (item.related_object !== 'sku' ? (item.source_id ?? null) : null)
}

function skuSourceId(item: EvalOrderItem): string | null {
  return item.sku?.source_id ?? (item.related_object === 'sku' ? (item.source_id ?? null) : null)
}

function matchesProduct(item: EvalOrderItem, ref: ItemRef): boolean {
  if (ref.id != null && productId(item) === ref.id) return true
  return ref.source_id != null && productSourceId(item) === ref.source_id
}

function matchesSku(item: EvalOrderItem, ref: ItemRef): boolean {
  if (ref.id != null && skuId(item) === ref.id) return true
  return ref.source_id != null && skuSourceId(item) === ref.source_id
}

/** Whether an order line is named by a reference; an unknown collection names nothing. */
export function itemMatchesRef(
  item: EvalOrderItem,
  ref: ItemRef,
  collections: Readonly<Record<string, EvalCollection>> | undefined,
): boolean {
  switch (ref.object) {
    case 'product':
      return matchesProduct(item, ref)
    case 'sku':
      return matchesSku(item, ref)
    case 'products_collection': {
      const c = ref.id == null ? undefined : collections?.[ref.id]
      if (c === undefined) return false
      const p = productId(item)
      const s = skuId(item)
      return (p !== null && c.products.includes(p)) || (s !== null && c.skus.includes(s))
    }
    default:
      return matchesProduct(item, ref) || matchesSku(item, ref)
  }
}

export function quantityOf(item: EvalOrderItem): number {
  return item.quantity ?? 1
}

export function unitPriceOf(item: EvalOrderItem): number | null {
  return item.price ?? item.sku?.price ?? item.product?.price ?? null
}

/** Line amount: `amount`, else price × quantity. */
export function amountOf(item: EvalOrderItem): number {
  if (item.amount != null) return item.amount
  const price = unitPriceOf(item)
  return price === null ? 0 : price * quantityOf(item)
}

/** Metadata lookup: a direct key first, then a dotted path into nested objects. */
export function readMetadata(metadata: Metadata | undefined | null, property: string): unknown {
  if (metadata == null) return undefined
  if (Object.hasOwn(metadata, property)) return metadata[property]
  let current: unknown = metadata
  for (const part of property.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}

/** A line's metadata property: its own metadata, then the SKU's, then the product's. */
export function itemMetadata(item: EvalOrderItem, property: string): unknown {
  for (const m of [item.metadata, item.sku?.metadata, item.product?.metadata]) {
    const v = readMetadata(m, property)
    if (v !== undefined) return v
  }
  return undefined
}

/**
 * The cheapest (or most expensive) line by unit price; ties go to the lower line amount, then the
 * earlier line (the tie-break of docs/concepts.md#targeting).
 */
export function extremeItem(items: readonly IndexedItem[], which: 'cheapest' | 'most_expensive'): IndexedItem | null {
  let best: IndexedItem | null = null
  for (const candidate of items) {
    if (best === null) {
      best = candidate
      continue
    }
    const pc = unitPriceOf(candidate.item) ?? 0
    const pb = unitPriceOf(best.item) ?? 0
    const better = which === 'cheapest' ? pc < pb : pc > pb
    const tie = pc === pb && amountOf(candidate.item) < amountOf(best.item)
    if (better || tie) best = candidate
  }
  return best
}

/** A line's description for explanations: `prod_1` or `prod_1/sku_1`. */
export function describeItem(item: EvalOrderItem): string {
  const p = productId(item) ?? productSourceId(item)
  const s = skuId(item) ?? skuSourceId(item)
  if (p !== null && s !== null) return `${p}/${s}`
  return p ?? s ?? '(unidentified item)'
}

export function productIdsIn(items: readonly EvalOrderItem[]): string[] {
  return [...new Set(items.map(productId).filter((x): x is string => x !== null))]
}

export function skuIdsIn(items: readonly EvalOrderItem[]): string[] {
  return [...new Set(items.map(skuId).filter((x): x is string => x !== null))]
}

/**
 * The id and object a bundle result names a line by: the SKU when the bundle asked for a SKU (or
 * the line has no product id), else the product.
 */
export function bundleIdentity(item: EvalOrderItem, ref: ItemRef): { id: string; object: 'product' | 'sku' } {
  const s = skuId(item)
  const p = productId(item)
  if (s !== null && (ref.object === 'sku' || p === null)) return { id: s, object: 'sku' }
  return { id: p ?? productSourceId(item) ?? s ?? '', object: 'product' }
}
