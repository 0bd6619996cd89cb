import { ID_PREFIX } from '../../ids'
import type { PointsBucket, PointsExpirationRules } from '../../model/loyalty'
import type { Voucher } from '../../model/voucher'
import { activate, credit, creditPending, expire, refund, type TakenPoints } from '../../rules/ledger'
import type { Stored, Write } from '../../storage/ports'
import { startEarly } from '../kernel/early-reads'
import { enqueue } from '../kernel/jobs'
import type { Tx } from '../kernel/unit-of-work'
import { holdWorkingCopy } from '../vouchers/held-codes'
import { type CardSlot, type CardState, emptySlot, loading, remember, slotOf, slotsOf } from './card-slots'
import { changeCard, putBucket, writeWhole } from './card-writes'
import { noteExpiring, refreshNextExpiration } from './next-expiration'
import { applyPhase, listPhase, readMore, SPEND_PAGE } from './spending-order'

export type { CardState } from './card-slots'
export { SPEND_PAGE } from './spending-order'

/**
 * With `card-spend.ts`, the one place that moves points on a loyalty card
 * (docs/storage.md#loyalty-cards-and-their-buckets).
 * It persists the pure ledger (`src/rules/ledger`) as `points_buckets` and keeps the card's summary
 * stored on the card: `voucher.loyalty_card` {points, balance, expired_points, subtracted_points,
 * pending_points, next_expiration_date, next_expiration_points} and `voucher.redemption.redeemed_points`.
 *
 * What a change reads and writes is flat in the card's live buckets:
 * - earning appends its bucket and reads none; the summary moves by increments of the card;
 * - a spend (`card-spend.ts`) is a guarded decrement of the card and a `take` the store allocates at
 *   commit, or reads the card's spendable buckets in spending order a page at a time until the points
 *   are covered and takes them with guarded decrements (`remaining ≥ 0`, the card's `balance ≥ 0`);
 * - loading a card reads only its ACTIVE buckets already past their expiry (the expiry job has not run
 *   yet: normally none), whose points are in the stored balance but no longer spendable.
 *
 * The card itself is written by increments with `set` (no version), so concurrent earnings and spends
 * of one member all land. Only operations that change the card's other fields (assigning it, a card
 * made in this transaction) write it whole, with the summary this transaction computed.
 */

export const POINTS_EXPIRY_ACTION = 'loyalty.points_expiry'
export const PENDING_POINTS_ACTION = 'loyalty.pending_points_activation'

/** What the activation of a pending bucket needs (the action's payload). */
export interface PendingPointsPayload {
  voucher_id: string
  bucket_id: string
  /** The expiration rules in force when the points were earned; the clock starts at activation. */
  expiration_rules: PointsExpirationRules | null
  /** What the `points_added` events say the points came from (`earning_rule`, `order`). */
  origin: Record<string, unknown>
}

/**
 * The card as this transaction sees it (its own earlier changes included). Reads the card's ACTIVE
 * buckets already past their expiry (normally none), never its live ledger.
 */
export async function loadCard(
  tx: Tx,
  stored: Stored<Voucher>,
  options: { spending?: boolean } = {},
): Promise<CardState> {
  const map = slotsOf(tx)
  const known = map.get(stored.value.id)
  if (known) {
    if (options.spending) prefetchSpending(tx, known)
    return known
  }
  let reading = loading.get(tx)
  if (!reading) {
    reading = new Map()
    loading.set(tx, reading)
  }
  let pending = reading.get(stored.value.id)
  if (!pending) {
    const id = stored.value.id
    const half = SPEND_PAGE / 2
    pending = Promise.all([
      tx.store.points_buckets.list({
        where: {
          voucher_id: id,
          status: 'ACTIVE',
          expires_at: { before: new Date(tx.now.getTime() + 1).toISOString() },
        },
        order: { field: 'expires_at', direction: 'asc' },
        count: false,
      }),
      // A caller about to spend reads the first pages of the spending order in the same round trip.
      options.spending ? listPhase(tx, id, 'expiring', half) : undefined,
      options.spending ? listPhase(tx, id, 'never', half) : undefined,
    ]).then(([overdue, expiring, never]) => {
      const slot = emptySlot(
        stored,
        overdue.data.map((r) => r.value),
        overdue.data,
      )
      if (expiring && never) {
        slot.scan.started = true
        applyPhase(slot, 'expiring', expiring)
        applyPhase(slot, 'never', never)
      }
      return slot
    })
    reading.set(stored.value.id, startEarly(pending))
  }
  const slot = await pending
  // Another caller may have finished the same read first.
  const raced = map.get(stored.value.id)
  if (raced) return raced
  map.set(stored.value.id, slot)
  holdWorkingCopy(tx, stored.value.id, () => ({ value: slot.voucher, version: slot.stored.version }))
  if (options.spending) prefetchSpending(tx, slot)
  return slot
}

/**
 * Inserts a new card: later changes in this transaction replace the insert. Its summary starts from
 * nothing, so the caller credits any initial points.
 */
export function newCard(tx: Tx, voucher: Voucher): CardState {
  const empty: Voucher = {
    ...voucher,
    loyalty_card: {
      ...(voucher.loyalty_card ?? {}),
      points: 0,
      balance: 0,
      expired_points: 0,
      subtracted_points: 0,
      pending_points: 0,
      next_expiration_date: null,
      next_expiration_points: null,
    },
    redemption: { ...voucher.redemption, redeemed_points: 0 },
  }
  tx.insert('vouchers', empty)
  const slot = emptySlot({ value: empty, version: 0 }, [], [])
  slot.whole = true
  slot.scan = { ...slot.scan, started: true, expiringDone: true, neverDone: true }
  slotsOf(tx).set(voucher.id, slot)
  holdWorkingCopy(tx, voucher.id, () => ({ value: slot.voucher, version: slot.stored.version }))
  return slot
}

/** Reads buckets of the card by id (a rollback gives points back to the buckets they came from). */
async function loadBuckets(tx: Tx, card: CardState, ids: readonly string[]): Promise<void> {
  const slot = slotOf(tx, card)
  const missing = [...new Set(ids)].filter((id) => !slot.byId.has(id))
  if (missing.length === 0) return
  for (const row of await tx.store.points_buckets.getMany(missing)) {
    if (row.value.voucher_id === slot.voucher.id) remember(slot, row)
  }
}

/** Replaces the card's voucher fields other than the ledger's (holder, publish count…): a whole write. */
export function updateCardVoucher(tx: Tx, card: CardState, change: (v: Voucher) => Voucher): Voucher {
  const slot = slotOf(tx, card)
  slot.voucher = change(slot.voucher)
  if (!slot.whole) {
    slot.whole = true
    // The card's increments so far are in `slot.voucher`: its whole next version replaces them.
    if (slot.cardWrite) tx.withdraw(slot.cardWrite)
    slot.cardWrite = undefined
  }
  writeWhole(tx, slot)
  return slot.voucher
}

/** One more (or fewer) use of the card, as an increment (docs/storage.md#shared-rows). */
export function countCardUse(tx: Tx, card: CardState, uses: number): Voucher {
  const slot = slotOf(tx, card)
  changeCard(tx, slot, { 'redemption.redeemed_quantity': uses })
  return slot.voucher
}

/**
 * The card's tier mark (`Voucher.tier_mark`) as stored when read, and the card's increment write of
 * this transaction (absent when the card is written whole, checked by its version instead, or not
 * changed at all).
 */
export function cardTierMark(tx: Tx, card: CardState): { read: number; write?: Extract<Write, { op: 'increment' }> } {
  const slot = slotOf(tx, card)
  return { read: slot.stored.value.tier_mark ?? 0, ...(slot.cardWrite ? { write: slot.cardWrite } : {}) }
}

/** Moves the card's tier mark with a tier move of this transaction (docs/storage.md#a-members-tier). */
export function moveCardTierMark(tx: Tx, card: CardState, by: number): void {
  if (by !== 0) changeCard(tx, slotOf(tx, card), { tier_mark: by })
}

/** Spendable points at the transaction's now (buckets past expiry are not, even before the sweep). */
export function spendablePoints(tx: Tx, card: CardState): number {
  return slotOf(tx, card).spendable
}

export interface CreditOptions {
  points: number
  expiresAt: Date | null
  source: PointsBucket['source']
}

function creditInput(tx: Tx, slot: CardSlot, points: number, source: PointsBucket['source']) {
  return {
    id: tx.id(ID_PREFIX.points_bucket),
    points,
    createdAt: tx.now,
    voucherId: slot.voucher.id,
    campaignId: slot.voucher.campaign_id ?? '',
    customerId: slot.voucher.holder_id ?? null,
    source,
  }
}

/** Appends a bucket this transaction made: an insert, nothing read. */
function append(tx: Tx, slot: CardSlot, bucket: PointsBucket): PointsBucket {
  tx.insert('points_buckets', bucket)
  slot.puts.add(bucket.id)
  slot.byId.set(bucket.id, bucket)
  slot.buckets.push(bucket)
  return bucket
}

/**
 * Credits a bucket; an expiring one queues its expiry at its instant (`asyncActions.runPending`).
 * The card's summary moves by increments: concurrent credits of one card all land.
 */
export function creditCard(tx: Tx, card: CardState, options: CreditOptions): PointsBucket {
  const slot = slotOf(tx, card)
  const [bucket] = credit([], {
    ...creditInput(tx, slot, options.points, options.source),
    expiresAt: options.expiresAt,
  })
  append(tx, slot, bucket as PointsBucket)
  scheduleExpiry(tx, slot, options.expiresAt)
  changeCard(tx, slot, { 'loyalty_card.points': options.points, 'loyalty_card.balance': options.points })
  noteExpiring(tx, slot, bucket as PointsBucket, options.points)
  return bucket as PointsBucket
}

/**
 * Credits pending points (`voucher.loyalty_card.pending_points`) and queues their activation at
 * `activatesAt` (`asyncActions.runPending`), which makes them spendable (`activateCardPoints`).
 */
export function creditPendingCard(
  tx: Tx,
  card: CardState,
  options: {
    points: number
    activatesAt: Date
    source: PointsBucket['source']
    expirationRules: PointsExpirationRules | null
    origin: Record<string, unknown>
  },
): PointsBucket {
  const slot = slotOf(tx, card)
  const [bucket] = creditPending([], {
    ...creditInput(tx, slot, options.points, options.source),
    activatesAt: options.activatesAt,
  })
  append(tx, slot, bucket as PointsBucket)
  const payload: PendingPointsPayload = {
    voucher_id: slot.voucher.id,
    bucket_id: (bucket as PointsBucket).id,
    expiration_rules: options.expirationRules,
    origin: options.origin,
  }
  enqueue(tx, PENDING_POINTS_ACTION, payload, options.activatesAt)
  changeCard(tx, slot, { 'loyalty_card.pending_points': options.points })
  return bucket as PointsBucket
}

function scheduleExpiry(tx: Tx, slot: CardSlot, expiresAt: Date | null): void {
  if (expiresAt === null) return
  const at = expiresAt.toISOString()
  if (slot.scheduled.has(at)) return
  slot.scheduled.add(at)
  enqueue(tx, POINTS_EXPIRY_ACTION, { voucher_id: slot.voucher.id }, expiresAt)
}

/** Activates a pending bucket at the transaction's now; returns the points that became spendable. */
export async function activateCardPoints(
  tx: Tx,
  card: CardState,
  bucketId: string,
  expiresAt: Date | null,
): Promise<number> {
  const slot = slotOf(tx, card)
  await loadBuckets(tx, card, [bucketId])
  const bucket = slot.byId.get(bucketId)
  if (!bucket) return 0
  const result = activate([bucket], bucketId, { now: tx.now, expiresAt })
  if (result.activated === 0) return 0
  putBucket(tx, slot, result.buckets[0] as PointsBucket)
  scheduleExpiry(tx, slot, expiresAt)
  const p = result.activated
  changeCard(tx, slot, { 'loyalty_card.pending_points': -p, 'loyalty_card.points': p, 'loyalty_card.balance': p })
  noteExpiring(tx, slot, result.buckets[0] as PointsBucket, p)
  return p
}

/** Expires every bucket due at the transaction's now; returns the points that lapsed. */
export async function expireCard(tx: Tx, card: CardState): Promise<number> {
  const slot = slotOf(tx, card)
  const due = slot.overdue.map((b) => slot.byId.get(b.id) as PointsBucket)
  const result = expire(due, tx.now)
  if (result.expired === 0) return 0
  for (const t of result.expiredBuckets) {
    putBucket(tx, slot, result.buckets.find((b) => b.id === t.bucketId) as PointsBucket)
  }
  changeCard(tx, slot, { 'loyalty_card.balance': -result.expired, 'loyalty_card.expired_points': result.expired })
  await refreshNextExpiration(tx, slot)
  return result.expired
}

/** Gives spent points back to the buckets they came from (a rollback); see `refund`. */
export async function refundCard(
  tx: Tx,
  card: CardState,
  taken: readonly TakenPoints[],
): Promise<{ restored: number; expired: number }> {
  const slot = slotOf(tx, card)
  await loadBuckets(
    tx,
    card,
    taken.map((t) => t.bucketId),
  )
  const ids = new Set(taken.map((t) => t.bucketId))
  const result = refund(
    slot.buckets.filter((b) => ids.has(b.id)),
    taken,
    tx.now,
  )
  for (const b of result.buckets) putBucket(tx, slot, b)
  const back = result.restored + result.expired
  changeCard(tx, slot, {
    'loyalty_card.balance': result.restored,
    'loyalty_card.expired_points': result.expired,
    'redemption.redeemed_points': -back,
  })
  for (const b of result.buckets) {
    const part = taken.filter((t) => t.bucketId === b.id).reduce((n, t) => n + t.points, 0)
    if (b.status === 'ACTIVE') noteExpiring(tx, slot, b, part)
  }
  return { restored: result.restored, expired: result.expired }
}

/**
 * Starts reading the card's spending order, for a caller about to spend from it: the read overlaps
 * the caller's own (a reward redemption, a redemption paying with points).
 */
export function prefetchSpending(tx: Tx, card: CardState): void {
  const slot = slotOf(tx, card)
  if (!slot.scan.started) void startEarly(readMore(tx, slot))
}
