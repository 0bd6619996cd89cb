import type { RequestCustomer, RequestMetadata } from './request-shapes'

export interface ReferralsPublishParams {
  count?: number | undefined
  metadata?: RequestMetadata | undefined
  source_id?: string | undefined
  voucher?: string | undefined
  customer: RequestCustomer
  channel?: string | undefined
}
export interface ReferralsListHoldersParams {
  limit?: string | number | undefined
  order?: string | undefined
  starting_after_id?: string | undefined
  filters?: unknown
}
