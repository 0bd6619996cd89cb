import type { DateTime, Metadata } from './common'

export type OrderStatus = 'CREATED' | 'PAID' | 'CANCELED' | 'FULFILLED' | 'PROCESSING'

export interface OrderItemProduct {
  id?: string
  source_id?: string | null
  override?: boolean
  name?: string | null
  metadata?: Metadata
  price?: number | null
}

export interface OrderItemSku {
  id?: string
  source_id?: string | null
  override?: boolean
  sku?: string | null
  price?: number | null
  metadata?: Metadata
}

/** An order line as a request sends it. */
export interface OrderItemInput {
  sku_id?: string | null
  product_id?: string | null
  related_object?: 'product' | 'sku'
  source_id?: string | null
  /** Numeric strings are accepted by the parser and normalised. */
  quantity?: number | string | null
  /** price × quantity */
  amount?: number | null
  discount_amount?: number | null
  /** Unit price in minor units. */
  price?: number | null
  product?: OrderItemProduct
  sku?: OrderItemSku
  metadata?: Metadata
}

export interface OrderInput {
  id?: string
  source_id?: string | null
  status?: OrderStatus
  amount?: number | null
  initial_amount?: number | null
  discount_amount?: number | null
  items?: OrderItemInput[]
  metadata?: Metadata
}

export interface ApplicationDetail {
  source_index: number
  source_applied_quantity: number
  source_applied_quantity_amount: number
  target_index: number
  target_applied_quantity: number
  target_applied_quantity_amount: number
  target_applied_discount_amount: number
}

export interface CalculatedOrderItem {
  object: 'order_item'
  id?: string
  sku_id?: string | null
  product_id?: string | null
  related_object?: 'product' | 'sku'
  source_id?: string | null
  quantity: number
  discount_quantity: number
  initial_quantity: number
  amount: number
  discount_amount: number
  applied_discount_amount: number
  applied_discount_quantity: number
  applied_quantity: number
  applied_quantity_amount: number
  initial_amount: number
  price: number
  subtotal_amount: number
  product?: OrderItemProduct
  sku?: OrderItemSku
  metadata?: Metadata
  application_details?: ApplicationDetail[]
}

/** An order after discounts: every calculated field of spec and docs/concepts.md#the-calculated-order. */
export interface CalculatedOrder {
  object: 'order'
  id?: string
  source_id?: string | null
  status?: OrderStatus
  amount: number
  initial_amount: number
  discount_amount: number
  items_discount_amount: number
  total_discount_amount: number
  total_amount: number
  applied_discount_amount: number
  items_applied_discount_amount: number
  total_applied_discount_amount: number
  items: CalculatedOrderItem[]
  metadata: Metadata
  created_at?: DateTime
  updated_at?: DateTime | null
  customer_id?: string | null
  referrer_id?: string | null
  customer?: { id: string; object: 'customer' }
  referrer?: { id: string; object: 'customer' }
  redemptions?: Record<string, OrderRedemptionEntry>
}

export interface OrderRedemptionEntry {
  date: DateTime
  related_object_type: 'redemption' | 'voucher' | 'promotion_tier'
  related_object_id: string
  related_object_parent_id?: string
  stacked?: string[]
  rollback_id?: string
  rollback_date?: DateTime
  rollback_stacked?: string[]
}

/** A stored order: the calculated order plus its bookkeeping. */
export type Order = CalculatedOrder & { id: string; created_at: DateTime; status: OrderStatus }

/**
 * A stored order as it stood at one version, kept when a later write replaces that version and a
 * redemption or rollback refers to it (docs/storage.md#what-a-redemption-stores). Its id is
 * `<order id>@<version>`.
 */
export interface OrderSnapshot {
  id: string
  order: Order
}
