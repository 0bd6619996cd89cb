import type { RequestAddress, RequestMetadata } from './request-shapes'

export interface ReferralsPublishParams {
  count?: number | undefined
  metadata?: RequestMetadata | undefined
  source_id?: string | undefined
  voucher?: string | undefined
  customer: {
    id?: string | undefined
    source_id?: string | null | undefined
    name?: string | null | undefined
    email?: string | null | undefined
    phone?: string | null | undefined
    birthdate?: string | null | undefined
    address?: RequestAddress | null | undefined
    description?: string | null | undefined
    metadata?: RequestMetadata | undefined
  }
  channel?: string | undefined
}
export interface ReferralsListHoldersParams {
  limit?: string | number | undefined
  order?: string | undefined
  starting_after_id?: string | undefined
  filters?: unknown
}
