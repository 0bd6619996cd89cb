import type { RequestAddress, RequestDiscount, RequestLoyaltyCard, RequestValidity } from './request-shapes'

export interface VouchersCreateParams extends RequestValidity {
  active?: boolean | null | undefined
  additional_info?: string | null | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
  type?: 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD' | undefined
  discount?: RequestDiscount | null | undefined
  gift?:
    | {
        amount: number
        effect?: 'APPLY_TO_ORDER' | 'APPLY_TO_ITEMS' | undefined
      }
    | null
    | undefined
  loyalty_card?: RequestLoyaltyCard | null | undefined
  redemption?:
    | {
        quantity?: number | null | undefined
      }
    | undefined
  code_config?:
    | {
        pattern?: string | undefined
        length?: number | undefined
        charset?: string | undefined
        prefix?: string | undefined
        postfix?: string | undefined
      }
    | undefined
  is_referral_code?: boolean | undefined
  code?: string | undefined
  campaign?: string | null | undefined
  campaign_id?: string | null | undefined
  category?: string | null | undefined
  category_id?: string | null | undefined
}
export type VouchersBulkUpdateParams = {
  code: string
  metadata: {
    [x: string]: unknown
  }
}[]

export interface PublicationsCreateParams {
  customer: {
    id?: string | undefined
    source_id?: string | null | undefined
    name?: string | null | undefined
    email?: string | null | undefined
    phone?: string | null | undefined
    birthdate?: string | null | undefined
    address?: RequestAddress | null | undefined
    description?: string | null | undefined
    metadata?:
      | {
          [x: string]: unknown
        }
      | undefined
  }
  voucher?: string | undefined
  campaign?:
    | string
    | {
        name: string
        count?: number | undefined
      }
    | undefined
  source_id?: string | undefined
  channel?: string | undefined
  metadata?:
    | {
        [x: string]: unknown
      }
    | undefined
}
