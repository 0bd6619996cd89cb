import type { Discount } from '../../model/discount'
import type { CalculatedOrder, OrderItemInput } from '../../model/order'
import type { Product, Sku } from '../../model/product'
import type { EvalCollection } from '../../rules/conditions'
import type { CatalogPrices } from '../../rules/discounts'
import type { RedeemableSubject } from '../../rules/redeemables'
import type { Store, Stored } from '../../storage/ports'

/*
 * What the catalogue adds to a request's order: product and SKU ids for lines named by `source_id`,
 * catalogue prices for lines that send none (and for UNIT discounts' free products), the `product` /
 * `sku` objects of each line, and the members of the product collections the rules name.
 */

/** Items that name a product or SKU by `source_id` get its id, and a SKU its product, so targeting can match them. */
export async function withCatalogIds(store: Store, items: readonly OrderItemInput[]): Promise<OrderItemInput[]> {
  // Most lines name their product by id already and need no read at all.
  if (!needsCatalogIds(items)) return [...items]
  return Promise.all(items.map((item) => withCatalogId(store, item)))
}

/** Whether a line names its product or SKU other than by the ids the catalogue is read by. */
export function needsCatalogIds(items: readonly OrderItemInput[]): boolean {
  return items.some(needsCatalogId)
}

export function needsCatalogId(item: OrderItemInput): boolean {
  return Boolean(item.source_id || (item.sku_id && !item.product_id))
}

async function withCatalogId(store: Store, item: OrderItemInput): Promise<OrderItemInput> {
  let next = item
  if (!item.sku_id && item.related_object === 'sku' && item.source_id) {
    const sku = await store.skus.findBy('source_id', item.source_id)
    if (sku) next = { ...next, sku_id: sku.value.id }
  }
  if (!item.product_id && item.related_object !== 'sku' && item.source_id) {
    const product = await store.products.findBy('source_id', item.source_id)
    if (product) next = { ...next, product_id: product.value.id }
  }
  if (next.sku_id && !next.product_id) {
    const sku = await store.skus.get(next.sku_id)
    if (sku) next = { ...next, product_id: sku.value.product_id }
  }
  return next
}

/** The stored products and SKUs the order and the UNIT discounts name, and their prices. */
export interface Catalogue {
  prices: CatalogPrices
  /** Products and SKUs the order's lines name, by id (UNIT targets are priced only). */
  products: Map<string, Product>
  skus: Map<string, Sku>
}

export async function loadCatalogue(
  store: Store,
  items: readonly OrderItemInput[],
  discounts: readonly (Discount | null | undefined)[],
): Promise<Catalogue> {
  return readCatalogue(store, catalogueReads(items, discounts))
}

/** The catalogue rows a request reads: its lines' products and SKUs, and those its UNIT discounts price. */
export interface CatalogueReads {
  productIds: ReadonlySet<string>
  skuIds: ReadonlySet<string>
  /** The lines' own (UNIT targets are priced only). */
  lineProducts: ReadonlySet<string>
  lineSkus: ReadonlySet<string>
}

export function catalogueReads(
  items: readonly OrderItemInput[],
  discounts: readonly (Discount | null | undefined)[],
): CatalogueReads {
  const productIds = new Set<string>()
  const skuIds = new Set<string>()
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as OrderItemInput
    if (item.product_id) productIds.add(item.product_id)
    if (item.sku_id) skuIds.add(item.sku_id)
  }
  // Ids UNIT discounts add are priced only; the lines' own are copied aside first, when there are any.
  let lineProducts: ReadonlySet<string> = productIds
  let lineSkus: ReadonlySet<string> = skuIds
  for (const discount of discounts) {
    if (discount?.type !== 'UNIT') continue
    if (lineProducts === productIds) {
      lineProducts = new Set(productIds)
      lineSkus = new Set(skuIds)
    }
    const units = 'units' in discount ? discount.units : [discount]
    for (const u of units) {
      productIds.add(u.unit_type)
      skuIds.add(u.unit_type)
    }
  }
  return { productIds, skuIds, lineProducts, lineSkus }
}

/** Whether two catalogue plans read the same rows and keep the same of them as the lines' own. */
export function sameCatalogueReads(a: CatalogueReads, b: CatalogueReads): boolean {
  return (
    sameSet(a.productIds, b.productIds) &&
    sameSet(a.skuIds, b.skuIds) &&
    sameSet(a.lineProducts, b.lineProducts) &&
    sameSet(a.lineSkus, b.lineSkus)
  )
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false
  for (const id of a) if (!b.has(id)) return false
  return true
}

export async function readCatalogue(store: Store, reads: CatalogueReads): Promise<Catalogue> {
  const { productIds, skuIds, lineProducts, lineSkus } = reads
  const product: Record<string, number> = {}
  const sku: Record<string, number> = {}
  const products = new Map<string, Product>()
  const skus = new Map<string, Sku>()
  const none: Stored<never>[] = []
  const found = await Promise.all([
    productIds.size ? store.products.getMany([...productIds]) : none,
    skuIds.size ? store.skus.getMany([...skuIds]) : none,
  ])
  for (const { value } of found[0]) {
    if (value.price !== null) product[value.id] = value.price
    if (lineProducts.has(value.id)) products.set(value.id, value)
  }
  for (const { value } of found[1]) {
    if (value.price !== null) sku[value.id] = value.price
    if (lineSkus.has(value.id)) skus.set(value.id, value)
  }
  return { prices: { product, sku }, products, skus }
}

/**
 * Lines naming a stored product or SKU carry its `product` / `sku` object as the calculated order
 * shows it (spec: `product {id, source_id, override, name, metadata, price}`, `sku {id, source_id,
 * override, sku, price, metadata}`). What the request embedded wins field by field (it also won the
 * price), the catalogue fills the rest; `override` is the request's, else false. Lines are fresh
 * objects from `normalizeOrder`, so they are completed in place; nothing is done when no line resolved.
 */
export function withCatalogueObjects(order: CalculatedOrder, catalogue: Catalogue): CalculatedOrder {
  if (catalogue.products.size === 0 && catalogue.skus.size === 0) return order
  for (const item of order.items) {
    const product = item.product_id ? catalogue.products.get(item.product_id) : undefined
    if (product) {
      item.product = {
        id: product.id,
        source_id: product.source_id,
        override: false,
        name: product.name,
        metadata: product.metadata,
        price: product.price,
        ...item.product,
      }
    }
    const sku = item.sku_id ? catalogue.skus.get(item.sku_id) : undefined
    if (sku) {
      item.sku = {
        id: sku.id,
        source_id: sku.source_id,
        override: false,
        sku: sku.sku,
        price: sku.price,
        metadata: sku.metadata,
        ...item.sku,
      }
    }
  }
  return order
}

/**
 * Members of the product collections the redeemables' rules refer to (a targeting entry, a condition
 * or bundle reference naming one by `object` or `type` `products_collection`), read by id.
 */
export async function loadCollections(
  store: Store,
  subjects: readonly RedeemableSubject[],
): Promise<Record<string, EvalCollection>> {
  const ids = new Set<string>()
  // Many redeemables share a rule: each is looked at once.
  for (const rule of new Set(subjects.flatMap((s) => s.validation_rules))) collectionsNamedBy(rule, ids)
  if (ids.size === 0) return {}
  const out: Record<string, EvalCollection> = {}
  for (const { value } of await store.product_collections.getMany([...ids])) {
    out[value.id] = {
      products: value.products.filter((p) => p.object === 'product').map((p) => p.id),
      skus: value.products.filter((p) => p.object === 'sku').map((p) => p.id),
    }
  }
  return out
}

/** Adds the ids of the collections a rule names anywhere in it (stored rules are plain JSON). */
function collectionsNamedBy(rule: unknown, into: Set<string>): void {
  const stack: unknown[] = [rule]
  while (stack.length > 0) {
    const value = stack.pop()
    if (value === null || typeof value !== 'object') continue
    if (Array.isArray(value)) {
      stack.push(...value)
      continue
    }
    const o = value as Record<string, unknown>
    if ((o.object === 'products_collection' || o.type === 'products_collection') && typeof o.id === 'string') {
      into.add(o.id)
    }
    stack.push(...Object.values(o))
  }
}
