import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { ListEnvelope } from '../../model/common'
import type { Product, ProductCollection, Sku } from '../../model/product'
import { nonEmptyString, orderOf } from '../../schema/common'
import { parse } from '../../schema/parse'
import type {
  ProductsCreateCollectionParams,
  ProductsCreateParams,
  ProductsCreateSkuParams,
  ProductsListSkusParams,
} from '../../schema/requests'
import type { ListQuery, Stored } from '../../storage/ports'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import { type Context, mutate } from '../kernel/unit-of-work'

/**
 * The metadata schema SKUs are checked against. The service interface's standard `related_object` list has
 * `product` only, so SKUs use a custom `sku` schema: none by default (no checks) until a host defines one.
 */
export const SKU_METADATA_OBJECT = 'sku'

import {
  listSkusQuery,
  productCollectionInput,
  productInput,
  type SKU_ORDER_FIELDS,
  skuInput,
} from '../../schema/product'
import { duplicateFound } from '../kernel/duplicate-found'
import { envelope } from '../kernel/list-envelope'

const SKU_SORT_FIELD: Record<(typeof SKU_ORDER_FIELDS)[number], string> = {
  created_at: 'created_at',
  updated_at: 'updated_at',
  type: 'created_at',
  code: 'sku',
  campaign: 'created_at',
  category: 'created_at',
}

/** Finds a product by id, else by `source_id`: the service interface's `productId` takes either. */
export async function findProduct(store: Context['store'], idOrSourceId: string): Promise<Stored<Product> | undefined> {
  return (await store.products.get(idOrSourceId)) ?? (await store.products.findBy('source_id', idOrSourceId))
}

/** Moves an ISO bound by one millisecond so the store's strict before/after filter includes the bound itself. */
function shift(iso: string, ms: number): string {
  return new Date(Date.parse(iso) + ms).toISOString()
}

export function products(ctx: Context) {
  return {
    /**
     * Creates a product; a known `source_id` updates that product instead (upsert, as customers do):
     * given fields replace, metadata merges. A new product needs a `name`.
     */
    async create(body: ProductsCreateParams, _options?: CallOptions): Promise<Product> {
      const input = parse(productInput, body)
      return mutate(ctx, async (tx) => {
        const existing = input.source_id ? await tx.store.products.findBy('source_id', input.source_id) : undefined
        if (existing) {
          const next: Product = {
            ...existing.value,
            ...input,
            metadata: await enforceMetadata(tx, 'product', { ...existing.value.metadata, ...input.metadata }),
            updated_at: tx.nowIso,
          }
          return tx.update('products', existing, next)
        }
        if (!input.name) throw EngineError.invalid('name', 'is required for a new product')
        return tx.insert('products', {
          id: tx.id(ID_PREFIX.product),
          source_id: input.source_id ?? null,
          name: input.name,
          price: input.price ?? null,
          attributes: input.attributes ?? [],
          image_url: input.image_url ?? null,
          metadata: await enforceMetadata(tx, 'product', input.metadata),
          created_at: tx.nowIso,
          updated_at: null,
          object: 'product',
        })
      })
    },

    /**
     * Adds a SKU to a product (by id or `source_id`). A `source_id` already used by a SKU of the same
     * product updates it; one used under another product is a 409. A new SKU needs `sku` (its name).
     */
    async createSku(productId: string, body: ProductsCreateSkuParams, _options?: CallOptions): Promise<Sku> {
      const ref = parse(nonEmptyString, productId, 'productId')
      const input = parse(skuInput, body)
      return mutate(ctx, async (tx) => {
        const product = await findProduct(tx.store, ref)
        if (!product) throw EngineError.notFound('product', ref, 'productId')
        const existing = input.source_id ? await tx.store.skus.findBy('source_id', input.source_id) : undefined
        if (existing && existing.value.product_id !== product.value.id) {
          throw duplicateFound('sku', 'source_id', input.source_id ?? '')
        }
        if (existing) {
          const next: Sku = {
            ...existing.value,
            ...input,
            attributes: { ...existing.value.attributes, ...input.attributes },
            metadata: await enforceMetadata(tx, SKU_METADATA_OBJECT, { ...existing.value.metadata, ...input.metadata }),
            updated_at: tx.nowIso,
          }
          return tx.update('skus', existing, next)
        }
        if (!input.sku) throw EngineError.invalid('sku', 'is required for a new SKU')
        return tx.insert('skus', {
          id: tx.id(ID_PREFIX.sku),
          source_id: input.source_id ?? null,
          product_id: product.value.id,
          sku: input.sku,
          price: input.price ?? null,
          currency: input.currency ?? null,
          attributes: input.attributes ?? {},
          image_url: input.image_url ?? null,
          metadata: await enforceMetadata(tx, SKU_METADATA_OBJECT, input.metadata),
          created_at: tx.nowIso,
          updated_at: null,
          object: 'sku',
        })
      })
    },

    /**
     * Lists a product's SKUs: `limit` 1–100 (default 10), `page` 1–100, `order` as the service interface lists
     * (default `created_at`), `start_date`/`end_date` bounding `created_at` (both inclusive).
     */
    async listSkus(
      productId: string,
      query: ProductsListSkusParams = {},
      _options?: CallOptions,
    ): Promise<ListEnvelope<'skus', Sku>> {
      const ref = parse(nonEmptyString, productId, 'productId')
      const q = parse(listSkusQuery, query)
      const product = await findProduct(ctx.store, ref)
      if (!product) throw EngineError.notFound('product', ref, 'productId')
      const { field, direction } = orderOf(q.order, 'created_at')
      const created: { before?: string; after?: string } = {}
      if (q.start_date !== undefined) created.after = shift(q.start_date, -1)
      if (q.end_date !== undefined) created.before = shift(q.end_date, 1)
      const listQuery: ListQuery = {
        where: { product_id: product.value.id, ...(q.start_date || q.end_date ? { created_at: created } : {}) },
        order: { field: SKU_SORT_FIELD[field as keyof typeof SKU_SORT_FIELD], direction },
        limit: q.limit ?? 10,
        page: q.page ?? 1,
      }
      const page = await ctx.store.skus.list(listQuery)
      return envelope('skus', page)
    },

    /**
     * Creates a STATIC products collection: its members are checked to exist and stored resolved
     * (a SKU member carries its `product_id`), which is the form the discount and condition rules take.
     */
    async createCollection(body: ProductsCreateCollectionParams, _options?: CallOptions): Promise<ProductCollection> {
      const input = parse(productCollectionInput, body)
      return mutate(ctx, async (tx) => {
        const members: ProductCollection['products'] = []
        for (const [i, member] of input.products.entries()) {
          if (member.object === 'product') {
            const found = await tx.store.products.get(member.id)
            if (!found) throw EngineError.invalid(`products[${i}].id`, `names no product (${member.id})`)
            members.push({ id: found.value.id, object: 'product' })
          } else {
            const found = await tx.store.skus.get(member.id)
            if (!found) throw EngineError.invalid(`products[${i}].id`, `names no SKU (${member.id})`)
            members.push({ id: found.value.id, product_id: found.value.product_id, object: 'sku' })
          }
        }
        return tx.insert('product_collections', {
          id: tx.id(ID_PREFIX.products_collection),
          name: input.name,
          type: 'STATIC',
          products: members,
          created_at: tx.nowIso,
          object: 'products_collection',
        })
      })
    },

    /** Reads a products collection by id. */
    async getCollection(collectionId: string, _options?: CallOptions): Promise<ProductCollection> {
      const id = parse(nonEmptyString, collectionId, 'productsCollectionId')
      const found = await ctx.store.product_collections.get(id)
      if (!found) throw EngineError.notFound('products_collection', id, 'productsCollectionId')
      return found.value
    },
  }
}
