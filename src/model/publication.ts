import type { DateTime, Metadata } from './common'

export interface Publication {
  id: string
  voucher_id: string
  campaign_id: string | null
  customer_id: string
  source_id: string | null
  channel: string | null
  metadata: Metadata
  created_at: DateTime
  object: 'publication'
}

export interface RedeemableHolder {
  id: string
  created_at: DateTime
  redeemable_id: string
  redeemable_object: 'voucher'
  campaign_id: string | null
  campaign_type: string | null
  voucher_type: string
  customer_id: string
  holder_role: 'REFERRER' | 'OWNER'
  object: 'redeemable_holder'
}
