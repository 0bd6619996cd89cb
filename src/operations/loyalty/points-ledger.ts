import { ID_PREFIX } from '../../ids'
import type { PointsBucket, PointsExpirationRules } from '../../model/loyalty'
import type { Voucher } from '../../model/voucher'
import {
  activate,
  credit,
  creditPending,
  expire,
  refund,
  type SpendResult,
  spend,
  type TakenPoints,
} from '../../rules/ledger'
import type { Guard, Stored, Write } from '../../storage/ports'
import { startEarly } from '../kernel/early-reads'
import { enqueue } from '../kernel/jobs'
import type { Tx } from '../kernel/unit-of-work'
import { holdWorkingCopy } from '../vouchers/held-codes'
import { type CardSlot, type CardState, emptySlot, loading, remember, slotsOf } from './card-slots'
import { changeCard, decrementBucket, putBucket, writeWhole } from './card-writes'
import { afterTaking, noteExpiring, refreshNextExpiration } from './next-expiration'
import { applyPhase, covered, listPhase, readMore, readOn, SPEND_PAGE, unclaimed, uncovered } from './spending-order'

export type { CardState } from './card-slots'
export { SPEND_PAGE } from './spending-order'

/**
 * The one place that moves points on a loyalty card (docs/storage.md#loyalty-cards-and-their-buckets).
 * It persists the pure ledger (`src/rules/ledger`) as `points_buckets` and keeps the card's summary
 * stored on the card: `voucher.loyalty_card` {points, balance, expired_points, subtracted_points,
 * pending_points, next_expiration_date, next_expiration_points} and `voucher.redemption.redeemed_points`.
 *
 * What a change reads and writes is flat in the card's live buckets:
 * - earning appends its bucket and reads none; the summary moves by increments of the card;
 * - a spend reads the card's spendable buckets in spending order (soonest-expiring first, then the
 *   never-expiring ones by age), through two declared indexes, a page at a time until the points are
 *   covered, and takes them with guarded decrements (`remaining ≥ 0`, the card's `balance ≥ 0`);
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

function slotOf(tx: Tx, card: CardState): CardSlot {
  const slot = slotsOf(tx).get(card.voucher.id)
  if (!slot) throw new Error(`card ${card.voucher.id} was not loaded in this transaction`)
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
 * Guards the balance this transaction's card increment leaves within `bounds` (with the spend's own
 * guard at zero): a decision on the balance, the member's BALANCE tier, then holds at commit, and a
 * concurrent change of the card past the bounds makes this transaction decide again. A card written
 * whole is checked by its version instead; a card this transaction does not change is not guarded.
 */
export function guardCardBalance(tx: Tx, card: CardState, bounds: { min?: number; max?: number }): void {
  const slot = slotOf(tx, card)
  const write = slot.cardWrite
  if (!write) return
  const path = 'loyalty_card.balance'
  // A later decision's bounds replace an earlier one's; a spend's floor at zero stays.
  const min = Math.max(slot.spent ? 0 : Number.NEGATIVE_INFINITY, bounds.min ?? Number.NEGATIVE_INFINITY)
  const guard: Guard = {
    ...(Number.isFinite(min) ? { min } : {}),
    ...(bounds.max !== undefined ? { max: bounds.max } : {}),
  }
  if (guard.min === undefined && guard.max === undefined) return
  write.guard = { ...(write.guard ?? {}), [path]: guard }
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

export interface SpendOptions {
  /** `redeemed` (rewards, pay with points) or `subtracted` (manual): the card counter that records them. */
  kind?: 'redeemed' | 'subtracted'
  /** Counts one use of the card (`redemption.redeemed_quantity`) with the spend. */
  use?: boolean
  /**
   * A redemption that left other sessions' locked points out of its decision (docs/storage.md#session-locks):
   * the points other sessions' live locks hold stay on the card at commit, and `released` (the
   * request's own lock and the expired ones it read, `session_locks` fields) leaves the card's
   * counter in the same increment, so the guard compares what the decision compared.
   */
  locks?: { released: Record<string, number> }
}

/**
 * A spend as decided: `taken` names the buckets when the decision chose them; a spend the store
 * allocates at commit (a `take`) names them in the record `recordIn` points it at.
 */
export type CardSpend =
  | (Extract<SpendResult, { ok: true }> & {
      /** Has the store write what it took into `points_taken` of this entity of the changeset. */
      recordIn(collection: 'redemptions', id: string): void
    })
  | Extract<SpendResult, { ok: false }>

/**
 * Spends points, soonest-expiring first (docs/storage.md#taking-points). A card the transaction
 * increments is spent by a guarded decrement of its balance and a `take` the store allocates at commit over the
 * card's buckets in spending order: the card's lock serialises spends of one card from any number of
 * processes, so each takes what the previous one left, in one commit, with no bucket read. A card
 * written whole, one with overdue points not swept yet, or a spend that empties the card's next
 * expiration day (whose next day the decision must read) takes from the buckets it reads instead, with
 * guarded decrements (`spendFromBuckets`). All or nothing.
 */
export async function spendCard(
  tx: Tx,
  card: CardState,
  points: number,
  options: SpendOptions = {},
): Promise<CardSpend> {
  const slot = slotOf(tx, card)
  if (points > slot.spendable) {
    return {
      ok: false,
      reason: 'insufficient_points',
      requested: points,
      available: slot.spendable,
      shortfall: points - slot.spendable,
    }
  }
  const by = spentBy(points, options)
  const lc = slot.voucher.loyalty_card
  const day = lc?.next_expiration_date ?? null
  const dayPoints = lc?.next_expiration_points ?? 0
  const overdue = slot.overdue.some((b) => slot.byId.get(b.id)?.status === 'ACTIVE')
  if (points > 0 && !slot.whole && slot.stored.version > 0 && !overdue && (day === null || points < dayPoints)) {
    // The next expiration day keeps points after the spend (or the card has none expiring): the spend
    // comes off that day's points, and the guard keeps it so at commit; points expiring that a
    // concurrent earning added make this transaction decide again.
    const guard = spendGuards(options)
    if (day === null) guard['loyalty_card.next_expiration_points'] = { max: 0 }
    else {
      by['loyalty_card.next_expiration_points'] = -points
      guard['loyalty_card.next_expiration_points'] = { min: 1 }
    }
    slot.spent = true
    changeCard(tx, slot, by, guard)
    const take: Extract<Write, { op: 'take' }> = {
      op: 'take',
      collection: 'points_buckets',
      id: slot.voucher.id,
      amount: points,
      now: tx.nowIso,
    }
    tx.writes.push(take)
    slot.taking += points
    return {
      ok: true,
      buckets: slot.buckets,
      taken: [],
      recordIn: (collection, id) => {
        take.record = { collection, id, path: 'points_taken' }
      },
    }
  }
  const result = await spendFromBuckets(tx, slot, points)
  if (!result.ok) return result
  slot.spent = true
  changeCard(tx, slot, by, spendGuards(options))
  await afterTaking(tx, slot, result.taken)
  return { ...result, recordIn: () => undefined }
}

/**
 * A spend's guards: the balance never below zero and, for a redemption that counts locks, never below
 * what other sessions' live locks hold (`minus_points` stores them negated: its sum with the balance
 * stays at or above zero), on a field of its own, so that a tier's bounds on the balance
 * (`guardCardBalance`) stay the balance's alone.
 */
function spendGuards(options: SpendOptions): Record<string, Guard> {
  const guard: Record<string, Guard> = { 'loyalty_card.balance': { min: 0 } }
  if (options.locks) guard['session_locks.minus_points'] = { min: 0, plus: ['loyalty_card.balance'] }
  return guard
}

/** The card's counters a spend moves. */
function spentBy(points: number, options: SpendOptions): Record<string, number> {
  const by: Record<string, number> = { ...options.locks?.released, 'loyalty_card.balance': -points }
  if (options.kind === 'subtracted') by['loyalty_card.subtracted_points'] = points
  else by['redemption.redeemed_points'] = points
  if (options.use) by['redemption.redeemed_quantity'] = 1
  return by
}

/**
 * Takes points from the buckets this transaction reads, soonest-expiring first, as guarded
 * decrements: each bucket's `remaining` (never below zero; to exactly zero when it is emptied, so a
 * refund landing meanwhile is not hidden under SPENT). A concurrent spend that finds a bucket gone
 * fails its guard and decides again (docs/storage.md#counters). Reads only the buckets it takes
 * from, a page at a time.
 */
async function spendFromBuckets(tx: Tx, slot: CardSlot, points: number): Promise<SpendResult> {
  let result: SpendResult
  for (;;) {
    // What this engine's other attempts are taking from a bucket is left to them: concurrent spends
    // of one card in one process take from different buckets instead of all failing on the first.
    result = spend(unclaimed(tx, slot), points, { now: tx.now })
    const open = result.ok ? uncovered(slot, result.taken) : []
    if (result.ok && open.length === 0) break
    if (!(await readOn(tx, slot, open))) {
      if (!result.ok) result = spend(slot.buckets, points, { now: tx.now })
      break
    }
  }
  if (!result.ok) return result
  for (const t of result.taken) {
    const before = slot.byId.get(t.bucketId) as PointsBucket
    decrementBucket(tx, slot, before, t.points)
  }
  // Buckets emptied by concurrent partial spends (each guarded at zero, none saw the last one) are
  // closed as they are met, so they do not stay in the spending order.
  for (const b of slot.buckets) {
    if (b.status === 'ACTIVE' && b.remaining === 0 && slot.storedBuckets.has(b.id) && covered(slot, b)) {
      decrementBucket(tx, slot, b, 0)
    }
  }
  return result
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
