import type { DateTime, Metadata } from './common'

export interface Product {
  id: string
  source_id: string | null
  name: string | null
  price: number | null
  attributes: string[]
  image_url?: string | null
  metadata: Metadata
  created_at: DateTime
  updated_at: DateTime | null
  object: 'product'
}

export interface Sku {
  id: string
  source_id: string | null
  product_id: string
  sku: string | null
  price: number | null
  currency?: string | null
  attributes: Record<string, string>
  image_url?: string | null
  metadata: Metadata
  created_at: DateTime
  updated_at: DateTime | null
  object: 'sku'
}

/** A products collection, given to the rules as a resolved member list. */
export interface ProductCollection {
  id: string
  name: string
  type: 'STATIC' | 'AUTO_UPDATE'
  products: { id: string; product_id?: string; object: 'product' | 'sku' }[]
  created_at: DateTime
  object: 'products_collection'
}
