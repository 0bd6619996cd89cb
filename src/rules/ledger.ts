import type { PointsBucket } from '../model/loyalty'
import { takeOrder } from '../storage/ports'
import { formatLocalDate, localDate } from './zoned-calendar'

/**
 * A loyalty card's points ledger: every credit is a bucket with its own expiry
 * (docs/concepts.md#the-card-and-its-ledger, docs/concepts.md#points-expiry). Functions take the card's
 * buckets and return new arrays; a bucket is never mutated in place.
 *
 * Per bucket: `points` were credited, `remaining` can still be spent, `expired` lapsed, and the rest
 * (`points − remaining − expired`) was spent. So the card's `balance` is the sum of `remaining`, and
 * `balance = points − expired − subtracted − redeemed` holds by construction.
 */

export interface CreditInput {
  id: string
  points: number
  /** Instant at which the points expire (see `pointsExpiryDate`), or null for never. */
  expiresAt: Date | null
  createdAt: Date
  voucherId: string
  campaignId: string
  customerId?: string | null
  source?: PointsBucket['source']
}

/** Adds a bucket for a credit of points. */
export function credit(buckets: readonly PointsBucket[], input: CreditInput): PointsBucket[] {
  if (!Number.isSafeInteger(input.points) || input.points <= 0) {
    throw new RangeError(`credit: points must be a positive safe integer, got ${input.points}`)
  }
  if (buckets.some((b) => b.id === input.id)) throw new RangeError(`credit: bucket ${input.id} already exists`)
  const bucket: PointsBucket = {
    id: input.id,
    voucher_id: input.voucherId,
    campaign_id: input.campaignId,
    customer_id: input.customerId ?? null,
    points: input.points,
    remaining: input.points,
    expired: 0,
    expires_at: input.expiresAt === null ? null : input.expiresAt.toISOString(),
    created_at: input.createdAt.toISOString(),
    source: input.source ?? { type: 'manual' },
    status: 'ACTIVE',
  }
  return [...buckets, bucket]
}

/**
 * Adds a PENDING bucket: its points wait until `activatesAt` (`activate`) and meanwhile count only
 * as the card's `pending_points`, neither spendable nor part of `points`/`balance`.
 */
export function creditPending(
  buckets: readonly PointsBucket[],
  input: Omit<CreditInput, 'expiresAt'> & { activatesAt: Date },
): PointsBucket[] {
  const next = credit(buckets, { ...input, expiresAt: null })
  return next.map((b) =>
    b.id === input.id ? { ...b, remaining: 0, status: 'PENDING', activates_at: input.activatesAt.toISOString() } : b,
  )
}

/**
 * Makes a PENDING bucket spendable at `now`, expiring at `expiresAt` (counted from the activation,
 * docs/concepts.md#points-expiry): `created_at` becomes the activation instant. Returns the points activated, 0 when
 * the bucket is not pending (already activated: a re-run changes nothing).
 */
export function activate(
  buckets: readonly PointsBucket[],
  bucketId: string,
  options: { now: Date; expiresAt: Date | null },
): { buckets: PointsBucket[]; activated: number } {
  const bucket = buckets.find((b) => b.id === bucketId)
  if (bucket === undefined) throw new RangeError(`activate: unknown bucket ${bucketId}`)
  if (bucket.status !== 'PENDING') return { buckets: [...buckets], activated: 0 }
  const active: PointsBucket = {
    ...bucket,
    remaining: bucket.points,
    status: 'ACTIVE',
    created_at: options.now.toISOString(),
    expires_at: options.expiresAt === null ? null : options.expiresAt.toISOString(),
  }
  return { buckets: buckets.map((b) => (b.id === bucketId ? active : b)), activated: bucket.points }
}

export interface TakenPoints {
  bucketId: string
  points: number
}

export type SpendResult =
  | { ok: true; buckets: PointsBucket[]; taken: TakenPoints[] }
  | { ok: false; reason: 'insufficient_points'; requested: number; available: number; shortfall: number }

/**
 * The last day (`YYYY-MM-DD` in the time zone) on which points expiring at the instant `expiresAt` are
 * usable: a card's `next_expiration_date` for them. The expiry instant is the start of the next day.
 */
export function expiryDay(expiresAt: string, timeZone: string): string {
  return formatLocalDate(localDate(new Date(Date.parse(expiresAt) - 1), timeZone))
}

function expiresAtMs(bucket: PointsBucket): number {
  return bucket.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(bucket.expires_at)
}

/** Whether the bucket's points can be spent at `now` (not yet expired, even if the job has not run). */
function isSpendable(bucket: PointsBucket, now: Date | undefined): boolean {
  if (bucket.status !== 'ACTIVE' || bucket.remaining <= 0) return false
  return now === undefined || expiresAtMs(bucket) > now.getTime()
}

/**
 * The buckets in spending order: the store's own (`takeOrder`, docs/storage.md#taking-points), soonest
 * expiry first, never-expiring last, then by creation, then by id, so that a spend this engine chooses
 * takes the buckets a `take` would.
 */
export function spendingOrder(buckets: readonly PointsBucket[], now?: Date): PointsBucket[] {
  return buckets.filter((bucket) => isSpendable(bucket, now)).sort(takeOrder)
}

/** Points spendable at `now` (all unexpired remaining points; without `now`, all remaining points). */
export function availablePoints(buckets: readonly PointsBucket[], now?: Date): number {
  let total = 0
  for (const b of buckets) if (isSpendable(b, now)) total += b.remaining
  return total
}

/**
 * Takes `points` from the soonest-expiring buckets. All or nothing: when the card holds fewer
 * spendable points the ledger is unchanged and the result says by how much it falls short.
 * Pass `now` so buckets already past their expiry (the expiry job not run yet) are not spent.
 */
export function spend(buckets: readonly PointsBucket[], points: number, options: { now?: Date } = {}): SpendResult {
  if (!Number.isSafeInteger(points) || points < 0) {
    throw new RangeError(`spend: points must be a non-negative safe integer, got ${points}`)
  }
  const available = availablePoints(buckets, options.now)
  if (points > available) {
    return { ok: false, reason: 'insufficient_points', requested: points, available, shortfall: points - available }
  }
  const take = new Map<string, number>()
  const taken: TakenPoints[] = []
  let left = points
  for (const bucket of spendingOrder(buckets, options.now)) {
    if (left === 0) break
    const part = Math.min(left, bucket.remaining)
    take.set(bucket.id, part)
    taken.push({ bucketId: bucket.id, points: part })
    left -= part
  }
  const next = buckets.map((b) => {
    const part = take.get(b.id)
    if (part === undefined) return b
    const remaining = b.remaining - part
    return { ...b, remaining, status: remaining === 0 ? ('SPENT' as const) : b.status }
  })
  return { ok: true, buckets: next, taken }
}

/** Expires every bucket whose expiry instant is at or before `now`. */
export function expire(
  buckets: readonly PointsBucket[],
  now: Date,
): { buckets: PointsBucket[]; expired: number; expiredBuckets: TakenPoints[] } {
  const t = now.getTime()
  let expired = 0
  const expiredBuckets: TakenPoints[] = []
  const next = buckets.map((b) => {
    if (b.status !== 'ACTIVE' || b.remaining <= 0 || expiresAtMs(b) > t) return b
    expired += b.remaining
    expiredBuckets.push({ bucketId: b.id, points: b.remaining })
    return { ...b, expired: b.expired + b.remaining, remaining: 0, status: 'EXPIRED' as const }
  })
  return { buckets: next, expired, expiredBuckets }
}

/**
 * Gives spent points back (a redemption rolled back). Each part returns to the bucket it was taken
 * from, keeping that bucket's expiry: a rollback must not extend the life of points. When that bucket
 * has expired by `now`, the returned part is recorded as expired at once (the points would have lapsed
 * had they never been spent), so `restored + expired` is exactly what was given back.
 */
export function refund(
  buckets: readonly PointsBucket[],
  taken: readonly TakenPoints[],
  now: Date,
): { buckets: PointsBucket[]; restored: number; expired: number } {
  const next = buckets.map((b) => ({ ...b }))
  const byId = new Map(next.map((b) => [b.id, b]))
  let restored = 0
  let expired = 0
  for (const part of taken) {
    const bucket = byId.get(part.bucketId)
    if (bucket === undefined) throw new RangeError(`refund: unknown bucket ${part.bucketId}`)
    if (!Number.isSafeInteger(part.points) || part.points < 0) {
      throw new RangeError(`refund: points must be a non-negative safe integer, got ${part.points}`)
    }
    const spent = bucket.points - bucket.remaining - bucket.expired
    if (part.points > spent) {
      throw new RangeError(`refund: bucket ${bucket.id} had ${spent} points spent, cannot return ${part.points}`)
    }
    if (bucket.status === 'EXPIRED' || expiresAtMs(bucket) <= now.getTime()) {
      bucket.expired += part.points
      // Points the bucket still holds are left to the expiry job (`expire`), which reports them.
      if (bucket.remaining === 0) bucket.status = 'EXPIRED'
      expired += part.points
    } else {
      bucket.remaining += part.points
      if (bucket.remaining > 0) bucket.status = 'ACTIVE'
      restored += part.points
    }
  }
  return { buckets: next, restored, expired }
}

export interface CardBalance {
  /** Lifetime points credited and active (pending points are not counted until they activate). */
  points: number
  /** Points earned but not yet active. */
  pending_points: number
  /** Spendable points: the sum of the buckets' remaining points. */
  balance: number
  expired_points: number
  subtracted_points: number
  redeemed_points: number
  /** The last day (`YYYY-MM-DD`, in the time zone) on which the next-expiring points are usable. */
  next_expiration_date: string | null
  next_expiration_points: number | null
}

/**
 * The card's summary from its ledger. The ledger knows what was spent but not why; `subtracted` (the
 * manual subtractions, tracked by the caller) splits it, and the rest counts as redeemed.
 */
export function cardBalance(
  buckets: readonly PointsBucket[],
  options: { subtracted?: number; now?: Date; timeZone?: string } = {},
): CardBalance {
  let points = 0
  let balance = 0
  let expired = 0
  let nextAt = Number.POSITIVE_INFINITY
  let nextPoints = 0
  let pending = 0
  const after = options.now?.getTime() ?? Number.NEGATIVE_INFINITY
  for (const b of buckets) {
    if (b.status === 'PENDING') {
      pending += b.points
      continue
    }
    points += b.points
    balance += b.remaining
    expired += b.expired
    if (b.remaining <= 0 || b.expires_at === null) continue
    const at = expiresAtMs(b)
    if (at <= after) continue
    if (at < nextAt) {
      nextAt = at
      nextPoints = b.remaining
    } else if (at === nextAt) {
      nextPoints += b.remaining
    }
  }
  const spent = points - balance - expired
  const subtracted = options.subtracted ?? 0
  if (!Number.isSafeInteger(subtracted) || subtracted < 0 || subtracted > spent) {
    throw new RangeError(`cardBalance: subtracted must be between 0 and the ${spent} points spent, got ${subtracted}`)
  }
  const hasNext = nextAt !== Number.POSITIVE_INFINITY
  return {
    points,
    pending_points: pending,
    balance,
    expired_points: expired,
    subtracted_points: subtracted,
    redeemed_points: spent - subtracted,
    // The expiry instant is the start of the day after the last usable day.
    next_expiration_date: hasNext ? formatLocalDate(localDate(new Date(nextAt - 1), options.timeZone ?? 'UTC')) : null,
    next_expiration_points: hasNext ? nextPoints : null,
  }
}
