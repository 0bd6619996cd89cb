import type { PointsBucket } from '../../model/loyalty'
import { type SpendResult, spend } from '../../rules/ledger'
import type { Guard, Write } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'
import { type CardSlot, type CardState, slotOf } from './card-slots'
import { changeCard, decrementBucket } from './card-writes'
import { afterTaking } from './next-expiration'
import { covered, readOn, unclaimed, uncovered } from './spending-order'

/*
 * Spending a loyalty card's points (docs/storage.md#taking-points): how much a spend may take, the
 * guards it commits with, and whether the store takes the points at commit (a `take`) or the
 * decision names the buckets. Crediting, expiring and refunding stay in `points-ledger.ts`.
 */

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
