import { ID_PREFIX } from '../../ids'
import type { PointsBucket, PointsExpirationRules } from '../../model/loyalty'
import type { Voucher } from '../../model/voucher'
import {
  activate,
  availablePoints,
  type CardBalance,
  cardBalance,
  credit,
  creditPending,
  expire,
  refund,
  type SpendResult,
  spend,
  type TakenPoints,
} from '../../rules/ledger'
import type { Page, Stored, Write } from '../../storage/ports'
import { enqueue } from '../kernel/jobs'
import type { Tx } from '../kernel/unit-of-work'
import { holdWorkingCopy } from '../vouchers/held-codes'

/**
 * The one place that moves points on a loyalty card. It persists the pure ledger (`src/rules/ledger`)
 * as `points_buckets` and keeps the card's summary consistent with it in the same commit:
 * `voucher.loyalty_card` {points, balance, expired_points, subtracted_points, next_expiration_date,
 * next_expiration_points} and `voucher.redemption.redeemed_points`, so
 * `balance = points − expired − subtracted − redeemed` always holds.
 *
 * A card is loaded once per transaction (`loadCard`): every later credit, spend or expiry in that
 * transaction works on the same in-memory state, and each change rewrites the card and the buckets
 * it touched (a second write of an entity in one transaction replaces the first). Every change writes
 * the card's voucher, so two concurrent spends on one card conflict and one of them recomputes: the
 * balance never goes below zero.
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

export interface CardState {
  readonly voucher: Voucher
  readonly buckets: readonly PointsBucket[]
}

interface CardSlot {
  stored: Stored<Voucher>
  voucher: Voucher
  buckets: PointsBucket[]
  storedBuckets: Map<string, Stored<PointsBucket>>
  /** Each bucket as read, to count what this transaction changed against the card's stored summary. */
  loaded: Map<string, PointsBucket>
  /** Every bucket this transaction changed or created. */
  changed: Set<string>
  dirty: Set<string>
  /** Expiry actions already queued in this transaction, by instant. */
  scheduled: Set<string>
  /**
   * Guarded increments this transaction wrote for the card (a spend): if the card changes again in
   * the same transaction, `persist` drops them and writes the card and its buckets whole instead.
   */
  increments: Write[]
}

/** The statuses of buckets whose points can still be spent, expire or activate. */
const LIVE = ['ACTIVE', 'PENDING']

const slots = new WeakMap<Tx, Map<string, CardSlot>>()
const loading = new WeakMap<Tx, Map<string, Promise<Page<PointsBucket>>>>()

function slotsOf(tx: Tx): Map<string, CardSlot> {
  let map = slots.get(tx)
  if (!map) {
    map = new Map()
    slots.set(tx, map)
  }
  return map
}

/** The card as this transaction sees it (its own earlier changes included). */
export async function loadCard(tx: Tx, stored: Stored<Voucher>): Promise<CardState> {
  const map = slotsOf(tx)
  const known = map.get(stored.value.id)
  if (known) return known
  let reading = loading.get(tx)
  if (!reading) {
    reading = new Map()
    loading.set(tx, reading)
  }
  let page = reading.get(stored.value.id)
  if (!page) {
    // Only the buckets that can still move: spent and expired ones are history, counted in the card's summary.
    page = tx.store.points_buckets.list({ where: { voucher_id: stored.value.id, status: { in: LIVE } } })
    reading.set(stored.value.id, page)
  }
  const rows = await page
  // Another caller may have finished the same read first.
  const raced = map.get(stored.value.id)
  if (raced) return raced
  const slot: CardSlot = {
    stored,
    voucher: stored.value,
    buckets: rows.data.map((s) => s.value),
    storedBuckets: new Map(rows.data.map((s) => [s.value.id, s])),
    loaded: new Map(rows.data.map((s) => [s.value.id, s.value])),
    changed: new Set(),
    dirty: new Set(),
    scheduled: new Set(),
    increments: [],
  }
  map.set(stored.value.id, slot)
  holdWorkingCopy(tx, stored.value.id, () => ({ value: slot.voucher, version: slot.stored.version }))
  return slot
}

/**
 * Inserts a new card: later changes in this transaction replace the insert. Its `loyalty_card` is
 * recomputed from the (empty) ledger, so the caller credits any initial points.
 */
export function newCard(tx: Tx, voucher: Voucher): CardState {
  tx.insert('vouchers', voucher)
  const slot: CardSlot = {
    stored: { value: voucher, version: 0 },
    voucher,
    buckets: [],
    storedBuckets: new Map(),
    loaded: new Map(),
    changed: new Set(),
    dirty: new Set(),
    scheduled: new Set(),
    increments: [],
  }
  slotsOf(tx).set(voucher.id, slot)
  holdWorkingCopy(tx, voucher.id, () => ({ value: slot.voucher, version: slot.stored.version }))
  persist(tx, slot)
  return slot
}

function slotOf(tx: Tx, card: CardState): CardSlot {
  const slot = slotsOf(tx).get(card.voucher.id)
  if (!slot) throw new Error(`card ${card.voucher.id} was not loaded in this transaction`)
  return slot
}

/** Reads buckets of the card that are not live (a rollback gives points back to spent or expired ones). */
export async function loadBuckets(tx: Tx, card: CardState, ids: readonly string[]): Promise<void> {
  const slot = slotOf(tx, card)
  const missing = [...new Set(ids)].filter((id) => !slot.storedBuckets.has(id))
  if (missing.length === 0) return
  for (const row of await tx.store.points_buckets.getMany(missing)) {
    if (row.value.voucher_id !== slot.voucher.id || slot.storedBuckets.has(row.value.id)) continue
    slot.buckets.push(row.value)
    slot.storedBuckets.set(row.value.id, row)
    slot.loaded.set(row.value.id, row.value)
  }
}

/** Replaces the card's voucher fields other than the ledger's (holder, publish count…). */
export function updateCardVoucher(tx: Tx, card: CardState, change: (v: Voucher) => Voucher): Voucher {
  const slot = slotOf(tx, card)
  slot.voucher = change(slot.voucher)
  persist(tx, slot)
  return slot.voucher
}

/** Spendable points at the transaction's now (buckets past expiry are not, even before the sweep). */
export function spendablePoints(tx: Tx, card: CardState): number {
  return availablePoints(slotOf(tx, card).buckets, tx.now)
}

export interface CreditOptions {
  points: number
  expiresAt: Date | null
  source: PointsBucket['source']
}

/** Credits a bucket; an expiring one queues its expiry at its instant (`asyncActions.runPending`). */
export function creditCard(tx: Tx, card: CardState, options: CreditOptions): PointsBucket {
  const slot = slotOf(tx, card)
  const id = tx.id(ID_PREFIX.points_bucket)
  slot.buckets = credit(slot.buckets, {
    id,
    points: options.points,
    expiresAt: options.expiresAt,
    createdAt: tx.now,
    voucherId: slot.voucher.id,
    campaignId: slot.voucher.campaign_id ?? '',
    customerId: slot.voucher.holder_id ?? null,
    source: options.source,
  })
  slot.dirty.add(id)
  scheduleExpiry(tx, slot, options.expiresAt)
  persist(tx, slot)
  const bucket = slot.buckets.find((b) => b.id === id)
  if (!bucket) throw new Error('credited bucket missing')
  return bucket
}

function scheduleExpiry(tx: Tx, slot: CardSlot, expiresAt: Date | null): void {
  if (expiresAt === null) return
  const at = expiresAt.toISOString()
  if (slot.scheduled.has(at)) return
  slot.scheduled.add(at)
  enqueue(tx, POINTS_EXPIRY_ACTION, { voucher_id: slot.voucher.id }, expiresAt)
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
  const id = tx.id(ID_PREFIX.points_bucket)
  slot.buckets = creditPending(slot.buckets, {
    id,
    points: options.points,
    activatesAt: options.activatesAt,
    createdAt: tx.now,
    voucherId: slot.voucher.id,
    campaignId: slot.voucher.campaign_id ?? '',
    customerId: slot.voucher.holder_id ?? null,
    source: options.source,
  })
  slot.dirty.add(id)
  const payload: PendingPointsPayload = {
    voucher_id: slot.voucher.id,
    bucket_id: id,
    expiration_rules: options.expirationRules,
    origin: options.origin,
  }
  enqueue(tx, PENDING_POINTS_ACTION, payload, options.activatesAt)
  persist(tx, slot)
  const bucket = slot.buckets.find((b) => b.id === id)
  if (!bucket) throw new Error('credited bucket missing')
  return bucket
}

/** Activates a pending bucket at the transaction's now; returns the points that became spendable. */
export function activateCardPoints(tx: Tx, card: CardState, bucketId: string, expiresAt: Date | null): number {
  const slot = slotOf(tx, card)
  const result = activate(slot.buckets, bucketId, { now: tx.now, expiresAt })
  if (result.activated === 0) return 0
  slot.buckets = result.buckets
  slot.dirty.add(bucketId)
  scheduleExpiry(tx, slot, expiresAt)
  persist(tx, slot)
  return result.activated
}

/**
 * Spends points, soonest-expiring first. `redeemed` (rewards, pay with points) and `subtracted`
 * (manual) differ only in which counter of the card records them. All or nothing.
 */
export function spendCard(
  tx: Tx,
  card: CardState,
  points: number,
  kind: 'redeemed' | 'subtracted' = 'redeemed',
): SpendResult {
  const slot = slotOf(tx, card)
  const result = spend(slot.buckets, points, { now: tx.now })
  if (!result.ok) return result
  slot.buckets = result.buckets
  for (const t of result.taken) slot.dirty.add(t.bucketId)
  if (kind === 'subtracted') {
    const lc = slot.voucher.loyalty_card
    slot.voucher = {
      ...slot.voucher,
      loyalty_card: lc ? { ...lc, subtracted_points: (lc.subtracted_points ?? 0) + points } : lc,
    }
  }
  persist(tx, slot)
  return result
}

/** Expires every bucket due at the transaction's now; returns the points that lapsed. */
export function expireCard(tx: Tx, card: CardState): number {
  const slot = slotOf(tx, card)
  const result = expire(slot.buckets, tx.now)
  if (result.expired === 0) return 0
  slot.buckets = result.buckets
  for (const t of result.expiredBuckets) slot.dirty.add(t.bucketId)
  persist(tx, slot)
  return result.expired
}

/** Gives spent points back to the buckets they came from (a rollback); see `refund`. */
export function refundCard(
  tx: Tx,
  card: CardState,
  taken: readonly TakenPoints[],
): { restored: number; expired: number } {
  const slot = slotOf(tx, card)
  const result = refund(slot.buckets, taken, tx.now)
  slot.buckets = result.buckets
  for (const t of taken) slot.dirty.add(t.bucketId)
  persist(tx, slot)
  return { restored: result.restored, expired: result.expired }
}

/**
 * Spends points like `spendCard`, as guarded increments instead of rewrites: each bucket's `remaining`
 * (never below zero) and the card's balance (never below zero) and counters, plus one use of the
 * card. Concurrent spends on one card then all land while the points last; one that finds them gone
 * fails its guard and decides again (docs/storage.md#counters). The card's other summary fields
 * (next expiration) catch up at its next full write.
 */
export function spendCardGuarded(tx: Tx, card: CardState, points: number): SpendResult {
  const slot = slotOf(tx, card)
  const result = spend(slot.buckets, points, { now: tx.now })
  if (!result.ok) return result
  slot.buckets = result.buckets
  const write = (
    collection: 'vouchers' | 'points_buckets',
    id: string,
    by: Record<string, number>,
    options: object,
  ) => {
    tx.increment(collection, id, by, options)
    slot.increments.push(tx.writes[tx.writes.length - 1] as Write)
  }
  for (const t of result.taken) {
    slot.changed.add(t.bucketId)
    const after = slot.buckets.find((b) => b.id === t.bucketId)
    write(
      'points_buckets',
      t.bucketId,
      { remaining: -t.points },
      { guard: { remaining: { min: 0 } }, ...(after?.remaining === 0 ? { set: { status: 'SPENT' } } : {}) },
    )
  }
  write(
    'vouchers',
    slot.voucher.id,
    { 'loyalty_card.balance': -points, 'redemption.redeemed_points': points, 'redemption.redeemed_quantity': 1 },
    { guard: { 'loyalty_card.balance': { min: 0 } }, set: { updated_at: tx.nowIso } },
  )
  const lc = slot.voucher.loyalty_card
  slot.voucher = {
    ...slot.voucher,
    loyalty_card: lc ? { ...lc, balance: lc.balance - points } : lc,
    redemption: {
      ...slot.voucher.redemption,
      redeemed_points: (slot.voucher.redemption.redeemed_points ?? 0) + points,
      redeemed_quantity: slot.voucher.redemption.redeemed_quantity + 1,
    },
    updated_at: tx.nowIso,
  }
  return result
}

function persist(tx: Tx, slot: CardSlot): void {
  if (slot.increments.length > 0) {
    // The card changes again: its whole next version (spend included) replaces the increments.
    for (const w of slot.increments) {
      tx.withdraw(w)
      if (w.op === 'increment' && w.collection === 'points_buckets') slot.dirty.add(w.id)
    }
    slot.increments = []
  }
  for (const id of slot.dirty) {
    const bucket = slot.buckets.find((b) => b.id === id)
    if (!bucket) continue
    const stored = slot.storedBuckets.get(id)
    if (stored) tx.update('points_buckets', stored, bucket)
    else {
      tx.insert('points_buckets', bucket)
      // Later writes in this transaction replace the insert.
      slot.storedBuckets.set(id, { value: bucket, version: 0 })
    }
  }
  for (const id of slot.dirty) slot.changed.add(id)
  slot.dirty.clear()
  const lc = slot.voucher.loyalty_card
  const summary = ledgerSummary(slot, tx)
  slot.voucher = {
    ...slot.voucher,
    loyalty_card: {
      ...(lc ?? {}),
      points: summary.points,
      balance: summary.balance,
      expired_points: summary.expired_points,
      subtracted_points: summary.subtracted_points,
      pending_points: summary.pending_points,
      next_expiration_date: summary.next_expiration_date,
      next_expiration_points: summary.next_expiration_points,
    },
    redemption: { ...slot.voucher.redemption, redeemed_points: summary.redeemed_points },
    // A card inserted in this transaction keeps `updated_at` null.
    updated_at: slot.stored.version === 0 ? slot.voucher.updated_at : tx.nowIso,
  }
  // For a card inserted in this transaction, `update` finds the insert and replaces it.
  tx.update('vouchers', slot.stored, slot.voucher)
}

/**
 * The card's summary: the stored one (what the buckets not read add up to) plus what this
 * transaction changed in the buckets it read or made; the next expiration from the live buckets,
 * which are all read. A card made in this transaction starts from nothing.
 */
function ledgerSummary(slot: CardSlot, tx: Tx): CardBalance {
  const base = slot.stored.version === 0 ? undefined : slot.stored.value.loyalty_card
  const changed = slot.buckets.filter((b) => slot.changed.has(b.id))
  const before = cardBalance([...slot.changed].flatMap((id) => slot.loaded.get(id) ?? []))
  const after = cardBalance(changed)
  const live = cardBalance(slot.buckets, { now: tx.now, timeZone: tx.ctx.config.timezone })
  const points = (base?.points ?? 0) + after.points - before.points
  const balance = (base?.balance ?? 0) + after.balance - before.balance
  const expired = (base?.expired_points ?? 0) + after.expired_points - before.expired_points
  const subtracted = slot.voucher.loyalty_card?.subtracted_points ?? 0
  return {
    points,
    pending_points: (base?.pending_points ?? 0) + after.pending_points - before.pending_points,
    balance,
    expired_points: expired,
    subtracted_points: subtracted,
    redeemed_points: points - balance - expired - subtracted,
    next_expiration_date: live.next_expiration_date,
    next_expiration_points: live.next_expiration_points,
  }
}
