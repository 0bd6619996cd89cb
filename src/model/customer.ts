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

/**
 * The hosted `CustomerSummary` (docs/behaviour.md#customer-summary): redemptions and their gift and
 * loyalty figures; orders counting only PAID and FULFILLED ones.
 */
export interface CustomerSummary {
  redemptions: {
    total_redeemed: number
    total_failed: number
    total_succeeded: number
    total_rolled_back: number
    total_rollback_failed: number
    total_rollback_succeeded: number
    gift: { redeemed_amount: number; amount_to_go: number }
    loyalty_card: { redeemed_points: number; points_to_go: number }
  }
  orders: {
    total_amount: number
    total_discount_amount: number
    total_count: number
    average_amount: number
    last_order_amount: number | null
    last_order_date: string | null
  }
}

/**
 * The hosted `CustomerLoyalty` (docs/behaviour.md#customer-loyalty-and-referrals): the points of the
 * customer's loyalty cards, and the customers the customer referred, in all and per campaign.
 */
export interface CustomerLoyalty {
  /** The spendable points of every loyalty card the customer holds. */
  points: number
  /** The distinct customers referred through the customer's referral codes. */
  referred_customers: number
  /** By campaign id: a program's card `points` and `loyalty_tier` (the tier in force), a referral campaign's `referred_customers`. */
  campaigns: Record<string, { points?: number; loyalty_tier?: string; referred_customers?: number }>
}

/** The hosted `CustomerReferrals`: the referrals that converted with the customer as the referee. */
export interface CustomerReferrals {
  /** How many referrals converted with the customer as the referee. */
  total: number
  /** One per converted referral, oldest first; `related_object_*` the redemption that converted it, else the code. */
  campaigns: {
    campaign_id: string
    referrer_id: string
    related_object_id: string
    related_object_type: string
    date: DateTime
  }[]
}

/** A customer as `customers.get` returns it: with its `summary`, `loyalty` and `referrals`. */
export type CustomerWithSummary = Customer & {
  summary: CustomerSummary
  loyalty: CustomerLoyalty
  referrals: CustomerReferrals
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
