import type { PointsBucket } from '../../model/loyalty'
import type { Voucher } from '../../model/voucher'
import type { Stored, Write } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'

/*
 * A loyalty card as one transaction holds it: the card as read with this transaction's changes, the
 * buckets it read or made, where its reading of the spending order stands, and the writes it has
 * gathered. `points-ledger.ts` moves points on it; `spending-order.ts` reads its buckets.
 */

export interface CardState {
  /** The card as this transaction sees it: as read, with this transaction's changes. */
  readonly voucher: Voucher
  /** The buckets this transaction read or made (never all of the card's: see above). */
  readonly buckets: readonly PointsBucket[]
  /** Spendable points: the stored balance less what has expired but is not swept yet. */
  readonly spendable: number
}

/** Where a card's reading of its spending order stands. */
interface Scan {
  /** The first read (half a page of each order) has started. */
  started: boolean
  /** Every spendable bucket expiring after now has been read. */
  expiringDone: boolean
  /** The expiry (ms) of the last expiring bucket read. */
  lastExpiry: number
  expiringCursor: string | undefined
  /**
   * The last expiry day read further in spending order (`readDay`): the expiring buckets are read by
   * expiry then id, and a bucket of that day not read yet may have been created earlier.
   */
  day: { expiry: number; last: PointsBucket | undefined; done: boolean } | undefined
  /** Every never-expiring bucket has been read. */
  neverDone: boolean
  /** The creation time (ms) of the last never-expiring bucket read. */
  lastCreated: number
  neverCursor: string | undefined
}

export interface CardSlot extends CardState {
  stored: Stored<Voucher>
  voucher: Voucher
  spendable: number
  buckets: PointsBucket[]
  /** Buckets by id (current state in this transaction) and the stored rows they were read as. */
  byId: Map<string, PointsBucket>
  storedBuckets: Map<string, Stored<PointsBucket>>
  /** Buckets this transaction inserted or writes whole: later changes replace that write. */
  puts: Set<string>
  /** The increment write of each bucket this transaction decrements. */
  bucketIncrements: Map<string, Extract<Write, { op: 'increment' }>>
  /** Overdue ACTIVE buckets (expiry passed, not swept yet). */
  overdue: PointsBucket[]
  scan: Scan
  /** The first read of the spending order, once started. */
  first?: Promise<void>
  /** The card's one increment write in this transaction (changes merge into it). */
  cardWrite: Extract<Write, { op: 'increment' }> | undefined
  /** The card is written whole in this transaction (inserted, or its other fields changed). */
  whole: boolean
  /** Expiry actions already queued in this transaction, by instant. */
  scheduled: Set<string>
  /** This transaction spends from the card: its balance is guarded at zero. */
  spent: boolean
  /**
   * The points this transaction's `take` writes of the card take at commit, after its other writes,
   * from the front of the spending order: a later spend that sets the next expiration counts them.
   */
  taking: number
}

const slots = new WeakMap<Tx, Map<string, CardSlot>>()
export const loading = new WeakMap<Tx, Map<string, Promise<CardSlot>>>()

export function slotsOf(tx: Tx): Map<string, CardSlot> {
  let map = slots.get(tx)
  if (!map) {
    map = new Map()
    slots.set(tx, map)
  }
  return map
}

export function emptySlot(
  stored: Stored<Voucher>,
  overdue: PointsBucket[],
  storedRows: Stored<PointsBucket>[],
): CardSlot {
  const slot: CardSlot = {
    stored,
    voucher: stored.value,
    spendable: 0,
    buckets: [],
    byId: new Map(),
    storedBuckets: new Map(),
    puts: new Set(),
    bucketIncrements: new Map(),
    overdue,
    scan: {
      started: false,
      expiringDone: false,
      lastExpiry: Number.NEGATIVE_INFINITY,
      expiringCursor: undefined,
      day: undefined,
      neverDone: false,
      lastCreated: 0,
      neverCursor: undefined,
    },
    cardWrite: undefined,
    whole: false,
    scheduled: new Set(),
    spent: false,
    taking: 0,
  }
  for (const row of storedRows) remember(slot, row)
  refreshSpendable(slot)
  return slot
}

export function remember(slot: CardSlot, row: Stored<PointsBucket>): boolean {
  if (slot.byId.has(row.value.id)) return false
  slot.storedBuckets.set(row.value.id, row)
  slot.byId.set(row.value.id, row.value)
  slot.buckets.push(row.value)
  return true
}

export function refreshSpendable(slot: CardSlot): void {
  let overdue = 0
  for (const b of slot.overdue) overdue += slot.byId.get(b.id)?.status === 'ACTIVE' ? b.remaining : 0
  slot.spendable = Math.max(0, (slot.voucher.loyalty_card?.balance ?? 0) - overdue)
}

/** The card as this transaction loaded it (`loadCard`); a card not loaded is a programming error. */
export function slotOf(tx: Tx, card: CardState): CardSlot {
  const slot = slotsOf(tx).get(card.voucher.id)
  if (!slot) throw new Error(`card ${card.voucher.id} was not loaded in this transaction`)
  return slot
}
