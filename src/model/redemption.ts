import type { JsonDiff } from '../rules/json-diff'
import type { DateTime, Metadata, SimpleCustomer } from './common'
import type { CalculatedOrder } from './order'

/**
 * A redemption: a result of `SUCCESS` (succeeded, or rolled back since) or of `FAILURE`, which names
 * why in `failure_code` and `failure_message`.
 */
export type Redemption = RedemptionFields &
  (
    | { result: 'SUCCESS'; status: 'SUCCEEDED' | 'ROLLED_BACK' }
    | { result: 'FAILURE'; status: 'FAILED'; failure_code: string; failure_message: string }
  )

export interface RedemptionFields {
  id: string
  object: 'redemption'
  date: DateTime
  customer_id: string | null
  tracking_id: string | null
  metadata: Metadata
  amount?: number
  /** Parent redemption id (children of a stacked redemption). */
  redemption: string | null
  order?: CalculatedOrder | null
  channel: { channel_id: string | null; channel_type: 'USER' | 'API' | 'AUTO_REDEEM' }
  customer?: SimpleCustomer | null
  related_object_type: 'voucher' | 'promotion_tier' | 'redemption' | 'promotion_stack'
  related_object_id: string
  related_object_parent_id?: string | null
  related_redemptions?: {
    rollbacks: { id: string; date: DateTime; rollback_order_mode?: string }[]
    /** The children of a stacked parent, as the hosted schema shows them. */
    redemptions: { id: string; date: DateTime }[]
  }
  session?: { key: string } | null
  promotion_tier?: unknown
  reward?: unknown
  gift?: { amount: number }
  loyalty_card?: { points: number }
  voucher?: unknown
  /** Bookkeeping, not on the wire of the hosted service: the ledger buckets the points came from, for a rollback. */
  points_taken?: { bucketId: string; points: number }[]
  /** Bookkeeping, not on the wire: the referee reward this redemption credited, for a rollback to take back. */
  referee_credit?: { voucher_id: string; amount: number }
  /**
   * Bookkeeping, not on the wire: the units this redemption added to its unit budget counter rows, by
   * row id (docs/storage.md#counters), for a rollback to give back; `{}` once the backfill saw it.
   */
  unit_counts?: Record<string, number>
}

export interface RedemptionRollback {
  id: string
  object: 'redemption_rollback'
  date: DateTime
  redemption: string
  amount?: number
  reason?: string | null
  result: 'SUCCESS' | 'FAILURE'
  status: 'SUCCEEDED' | 'FAILED'
  failure_code?: string
  failure_message?: string
  order?: CalculatedOrder | null
  channel: { channel_id: string | null; channel_type: 'USER' | 'API' }
  customer_id: string | null
  /** The redemption's `tracking_id` (hashed customer source id). */
  tracking_id?: string | null
  customer?: SimpleCustomer | null
  related_object_type: string
  related_object_id: string
  /** The redemption's `related_object_parent_id`: the campaign of the voucher or tier (absent for a stacked parent). */
  related_object_parent_id?: string
  gift?: { amount: number }
  loyalty_card?: { points: number }
  voucher?: unknown
  reward?: unknown
  metadata: Metadata
}

/**
 * Where a stored redemption or rollback finds its order instead of holding a copy
 * (docs/storage.md#what-a-redemption-stores): the stored order at the version the record's own commit
 * left (kept in `order_snapshots` once a later write replaces it), and for a child of a stacked
 * redemption the difference from that order to its own.
 */
export interface OrderRef {
  id: string
  version: number
  diff?: JsonDiff
}

/** A redemption as stored: its `order` (wire) replaced by `order_ref` when the order is a stored one. */
export type StoredRedemption = Redemption & { order_ref?: OrderRef }

/** A rollback as stored: its `order` (wire) replaced by `order_ref` when the order is a stored one. */
export type StoredRollback = RedemptionRollback & { order_ref?: OrderRef }

export interface ValidationSession {
  id: string
  key: string
  voucher_id: string | null
  promotion_tier_id: string | null
  type: 'LOCK'
  ttl: number
  ttl_unit: 'DAYS' | 'HOURS' | 'MINUTES' | 'SECONDS' | 'MILLISECONDS' | 'MICROSECONDS' | 'NANOSECONDS'
  /** Reserved gift credits and loyalty points. */
  credits: number
  points: number
  expires_at: DateTime
  created_at: DateTime
  released_at: DateTime | null
  /**
   * Whether the lock is counted in its code's `session_locks` (docs/storage.md#session-locks), so its
   * release takes it back out. Locks stored before the counters were kept are not, until
   * `maintenance.backfillSessionLocks` counts them.
   */
  counted?: boolean
}
