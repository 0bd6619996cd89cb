import { dateTime, limitParam, metadata, money, nonEmptyString, opt, orderParam, pageParam } from './common'
import * as v from './valibot'

export const productInput = v.object({
  source_id: opt(v.nullable(nonEmptyString)),
  name: opt(v.nullable(nonEmptyString)),
  price: opt(v.nullable(money)),
  attributes: opt(v.array(nonEmptyString)),
  image_url: opt(v.nullable(v.string())),
  metadata: opt(metadata),
})

export const skuInput = v.object({
  sku: opt(v.nullable(nonEmptyString)),
  source_id: opt(v.nullable(nonEmptyString)),
  price: opt(v.nullable(money)),
  currency: opt(v.nullable(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR')))),
  attributes: opt(v.record(v.string(), v.string())),
  image_url: opt(v.nullable(v.string())),
  metadata: opt(metadata),
})

/**
 * The service interface's order values for `GET /v1/products/{productId}/skus`. They are the voucher list's names;
 * `code` sorts by the SKU name (`sku`), and `type`, `campaign` and `category`, which SKUs do not
 * have, keep the creation order.
 */
export const SKU_ORDER_FIELDS = ['created_at', 'updated_at', 'type', 'code', 'campaign', 'category'] as const

export const listSkusQuery = v.object({
  limit: opt(limitParam()),
  page: opt(pageParam),
  order: opt(orderParam(SKU_ORDER_FIELDS)),
  start_date: opt(dateTime),
  end_date: opt(dateTime),
})

export const productCollectionInput = v.object({
  name: nonEmptyString,
  type: v.literal('STATIC'),
  products: v.array(
    v.object({
      id: nonEmptyString,
      product_id: opt(nonEmptyString),
      object: v.picklist(['product', 'sku']),
    }),
  ),
})
