import type { OrderItemInput } from '../../model/order'
import type { PromotionTier } from '../../model/promotion'
import type { ApplicableToEntry, ValidationRule } from '../../model/validation-rule'

/*
 * Target keys (docs/qualifications.md#candidates): what an offer's rules target, and what a cart
 * holds, as strings a multi-valued index matches (docs/storage.md#multi-valued-indexes). A promotion
 * tier stores its keys (`targets`); a qualification lists the active tiers holding one of its cart's
 * keys or `ANY_TARGET`. The keys of both sides are made here, together, so that every tier whose
 * discount could reach the cart (`couldDiscountCart`) is found: a tier's keys name every entry its
 * rules include, and a cart's keys every way a line can match one.
 */

/** The key of an offer whose rules set no product targeting (or `included_all`): any cart may use it. */
export const ANY_TARGET = '*'

function entryKeys(entry: ApplicableToEntry): string[] {
  switch (entry.object) {
    case 'product':
      return entry.source_id != null
        ? [`product:${entry.id}`, `product_source:${entry.source_id}`]
        : [`product:${entry.id}`]
    case 'sku':
      return entry.source_id != null ? [`sku:${entry.id}`, `sku_source:${entry.source_id}`] : [`sku:${entry.id}`]
    case 'products_collection':
      return [`collection:${entry.id}`]
    default: {
      const _never: never = entry.object
      return _never
    }
  }
}

/**
 * The target keys of an offer with these validation rules, as `couldDiscountCart` reads them: any
 * `included_all` opens every line, no included entry at all is no restriction (both `ANY_TARGET`),
 * else the keys of every included entry, sorted.
 */
export function offerTargets(rules: readonly Pick<ValidationRule, 'applicable_to'>[]): string[] {
  const keys = new Set<string>()
  for (const rule of rules) {
    if (rule.applicable_to?.included_all) return [ANY_TARGET]
    for (const entry of rule.applicable_to?.included ?? []) for (const key of entryKeys(entry)) keys.add(key)
  }
  return keys.size === 0 ? [ANY_TARGET] : [...keys].sort()
}

/** What the catalogue says of a cart's products and SKUs, by id: their source ids. */
export interface CartCatalogue {
  products: ReadonlyMap<string, { source_id: string | null }>
  skus: ReadonlyMap<string, { source_id: string | null }>
}

/** A cart line as a request or a stored order gives it. */
export type CartLine = Pick<OrderItemInput, 'product_id' | 'sku_id' | 'source_id' | 'related_object'> & {
  product?: { id?: string | null; source_id?: string | null } | null | undefined
  sku?: { id?: string | null; source_id?: string | null } | null | undefined
}

/** The product and SKU ids a cart's lines name (what collections are looked up by). */
export function cartIds(items: readonly CartLine[]): { products: string[]; skus: string[] } {
  const products = new Set<string>()
  const skus = new Set<string>()
  for (const item of items) {
    for (const id of [item.product_id, item.product?.id]) if (id != null) products.add(id)
    for (const id of [item.sku_id, item.sku?.id]) if (id != null) skus.add(id)
  }
  return { products: [...products], skus: [...skus] }
}

/**
 * Every key a line of the cart can match an included entry by (`matches` of the targeting rules):
 * its product and SKU ids, their source ids (as the request or the catalogue gives them), and the
 * collections holding them; then `ANY_TARGET`.
 */
export function cartTargets(
  items: readonly CartLine[],
  catalogue: CartCatalogue,
  collectionIds: readonly string[],
): string[] {
  const keys = new Set<string>([ANY_TARGET])
  const add = (prefix: string, value: string | null | undefined) => {
    if (value != null) keys.add(`${prefix}:${value}`)
  }
  for (const item of items) {
    const isSku = item.related_object === 'sku'
    for (const id of [item.product_id, item.product?.id]) {
      add('product', id)
      if (id != null) add('product_source', catalogue.products.get(id)?.source_id)
    }
    add('product_source', item.product?.source_id)
    if (!isSku) add('product_source', item.source_id)
    for (const id of [item.sku_id, item.sku?.id]) {
      add('sku', id)
      if (id != null) add('sku_source', catalogue.skus.get(id)?.source_id)
    }
    add('sku_source', item.sku?.source_id)
    if (isSku) add('sku_source', item.source_id)
  }
  for (const id of collectionIds) add('collection', id)
  return [...keys]
}

/** A tier as the interface shows it: without its target keys, which only qualifications read. */
export function withoutTargets(tier: PromotionTier): PromotionTier {
  if (!('targets' in tier)) return tier
  const { targets: _targets, ...rest } = tier
  return rest
}
