import type { RequestCustomer, RequestMetadata, RequestOrder } from './request-shapes'

export type CustomersCreateParams = RequestCustomer
export interface CustomersListActivityParams {
  limit?: string | number | undefined
  order?: 'created_at' | '-created_at' | undefined
  starting_after_id?: string | undefined
  start_date?: string | undefined
  end_date?: string | undefined
  campaign_id?: string | undefined
  campaign_type?:
    | 'DISCOUNT_COUPONS'
    | 'GIFT_VOUCHERS'
    | 'REFERRAL_PROGRAM'
    | 'LOYALTY_PROGRAM'
    | 'PROMOTION'
    | undefined
  category?: 'ACTION' | 'EFFECT' | undefined
  type?: string | undefined
}

export interface ProductsCreateParams {
  source_id?: string | null | undefined
  name?: string | null | undefined
  price?: number | null | undefined
  attributes?: string[] | undefined
  image_url?: string | null | undefined
  metadata?: RequestMetadata | undefined
}
export interface ProductsCreateSkuParams {
  sku?: string | null | undefined
  source_id?: string | null | undefined
  price?: number | null | undefined
  currency?: string | null | undefined
  attributes?:
    | {
        [x: string]: string | undefined
      }
    | undefined
  image_url?: string | null | undefined
  metadata?: RequestMetadata | undefined
}
export interface ProductsListSkusParams {
  limit?: string | number | undefined
  page?: string | number | undefined
  order?: string | undefined
  start_date?: string | undefined
  end_date?: string | undefined
}
export interface ProductsCreateCollectionParams {
  name: string
  type: 'STATIC'
  products: {
    id: string
    product_id?: string | undefined
    object: 'product' | 'sku'
  }[]
}

/** A custom event's body; `event` names it unless the name is passed first (`create(name, body)`). */
export type EventsCreateParams = {
  customer: RequestCustomer
  referral?:
    | {
        code?: string | undefined
        referrer_id?: string | undefined
      }
    | null
    | undefined
  loyalty?:
    | {
        code: string
      }
    | null
    | undefined
  metadata?: RequestMetadata | undefined
} & {
  event?: string
}

export interface OrdersCreateParams extends RequestOrder {
  customer?: RequestCustomer | undefined
}
export type OrdersUpdateParams = OrdersCreateParams
