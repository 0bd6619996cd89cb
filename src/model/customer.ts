import type { DateTime, Metadata } from './common'

export interface Address {
  city?: string | null
  state?: string | null
  line_1?: string | null
  line_2?: string | null
  country?: string | null
  postal_code?: string | null
}

export interface Customer {
  id: string
  source_id: string | null
  name?: string | null
  email?: string | null
  phone?: string | null
  birthdate?: string | null
  address?: Address | null
  description?: string | null
  metadata: Metadata
  /** Ids of the segments the customer is a member of. */
  segments?: string[]
  created_at: DateTime
  updated_at: DateTime | null
  object: 'customer'
}

export interface CustomerInput {
  id?: string
  source_id?: string | null
  name?: string | null
  email?: string | null
  phone?: string | null
  birthdate?: string | null
  address?: Address | null
  description?: string | null
  metadata?: Metadata
}

export interface ActivityEvent {
  id: string
  type: string
  customer_id: string
  /** Campaign and related ids for the activity filters. */
  campaign_id?: string | null
  campaign_type?: string | null
  category?: 'ACTION' | 'EFFECT'
  data: Record<string, unknown> & {
    event_source: { channel: string; user?: { id: string }; api_key?: { name: string; app_id: string } }
  }
  group_id: string
  created_at: DateTime
  object?: 'customer_activity'
}
