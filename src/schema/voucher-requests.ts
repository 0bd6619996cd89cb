import type {
  RequestCodeConfig,
  RequestCustomer,
  RequestDiscount,
  RequestGift,
  RequestLoyaltyCard,
  RequestMetadata,
  RequestRedemptionLimit,
  RequestValidity,
} from './request-shapes'

export interface VouchersCreateParams extends RequestValidity {
  active?: boolean | null | undefined
  additional_info?: string | null | undefined
  metadata?: RequestMetadata | undefined
  type?: 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD' | undefined
  discount?: RequestDiscount | null | undefined
  gift?: RequestGift | null | undefined
  loyalty_card?: RequestLoyaltyCard | null | undefined
  redemption?: RequestRedemptionLimit | undefined
  code_config?: RequestCodeConfig | undefined
  is_referral_code?: boolean | undefined
  code?: string | undefined
  campaign?: string | null | undefined
  campaign_id?: string | null | undefined
  category?: string | null | undefined
  category_id?: string | null | undefined
}
export type VouchersBulkUpdateParams = {
  code: string
  metadata: RequestMetadata
}[]

export interface PublicationsCreateParams {
  customer: RequestCustomer
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
  metadata?: RequestMetadata | undefined
}
