import type { PointsBucket } from '../../model/loyalty'
import { type Page, takeOrder } from '../../storage/ports'
import { startEarly } from '../kernel/early-reads'
import type { Tx } from '../kernel/unit-of-work'
import { type CardSlot, remember } from './card-slots'

/*
 * The card's spending order (docs/storage.md#loyalty-cards-and-their-buckets): its spendable buckets,
 * soonest-expiring first, then the never-expiring ones by age, read a page at a time through two
 * declared indexes, and what a spend may choose from them.
 */

/** How many buckets a spend reads per page of the spending order. */
export const SPEND_PAGE = 32

/**
 * The buckets as this transaction read them, less what this engine's other attempts in flight take
 * from them (their guarded decrements, `InFlight`) and at most the newest value a commit reported.
 * Only a choice: the guards decide, and a spend that finds too little here takes the buckets as read.
 */
export function unclaimed(tx: Tx, slot: CardSlot): PointsBucket[] {
  const own = new Map<string, number>()
  for (const g of tx.guards()) if (g.collection === 'points_buckets') own.set(g.id, (own.get(g.id) ?? 0) + g.by)
  return slot.buckets.map((b) => {
    if (b.status !== 'ACTIVE' || slot.puts.has(b.id)) return b
    const { sum, seen } = tx.ctx.inFlight.field(`points_buckets/${b.id}:remaining`)
    const others = sum - (own.get(b.id) ?? 0)
    const read = slot.bucketIncrements.has(b.id) ? b.remaining : Math.min(b.remaining, seen ?? b.remaining)
    const left = Math.max(0, read + others)
    return left === b.remaining ? b : { ...b, remaining: left }
  })
}

/** Whether every bucket that comes before `b` in spending order (`takeOrder`) has been read. */
export function covered(slot: CardSlot, b: PointsBucket): boolean {
  const { scan } = slot
  if (b.expires_at !== null) {
    if (scan.expiringDone) return true
    const at = Date.parse(b.expires_at)
    if (at !== scan.lastExpiry) return at < scan.lastExpiry
    // The last day read by expiry then id: what comes first in it is known once it is read by creation.
    const day = scan.day
    return day?.expiry === at && (day.done || (day.last !== undefined && takeOrder(b, day.last) <= 0))
  }
  // Never-expiring buckets come after every expiring one.
  return scan.expiringDone && (scan.neverDone || Date.parse(b.created_at) <= scan.lastCreated)
}

/**
 * Reads the next page of the card's spending order: ACTIVE buckets expiring after now by expiry,
 * then the never-expiring ones by age (docs/storage.md#loyalty-cards-and-their-buckets). The first
 * read takes half a page of each at once (one round trip); later ones a page of the expiring ones
 * until they run out, then of the others. False at the end.
 */
export function readMore(tx: Tx, slot: CardSlot): Promise<boolean> {
  const { scan } = slot
  if (scan.expiringDone && scan.neverDone) return Promise.resolve(false)
  if (!scan.started) {
    scan.started = true
    slot.first ??= Promise.all([
      readPhase(tx, slot, 'expiring', SPEND_PAGE / 2),
      readPhase(tx, slot, 'never', SPEND_PAGE / 2),
    ]).then(() => undefined)
    return startEarly(slot.first).then(() => true)
  }
  const first = slot.first ?? Promise.resolve()
  return first.then(() => readPhase(tx, slot, scan.expiringDone ? 'never' : 'expiring', SPEND_PAGE)).then(() => true)
}

export function listPhase(tx: Tx, voucherId: string, phase: 'expiring' | 'never', limit: number, cursor?: string) {
  const expiring = phase === 'expiring'
  return tx.store.points_buckets.list({
    where: expiring
      ? { voucher_id: voucherId, status: 'ACTIVE', expires_at: { after: tx.nowIso } }
      : { voucher_id: voucherId, status: 'ACTIVE', expires_at: null },
    order: { field: expiring ? 'expires_at' : 'created_at', direction: 'asc' },
    limit,
    ...(cursor !== undefined ? { starting_after_id: cursor } : {}),
    count: false,
  })
}

async function readPhase(tx: Tx, slot: CardSlot, phase: 'expiring' | 'never', limit: number): Promise<void> {
  const cursor = phase === 'expiring' ? slot.scan.expiringCursor : slot.scan.neverCursor
  applyPhase(slot, phase, await listPhase(tx, slot.voucher.id, phase, limit, cursor))
}

export function applyPhase(slot: CardSlot, phase: 'expiring' | 'never', page: Page<PointsBucket>): void {
  const scan = slot.scan
  const expiring = phase === 'expiring'
  for (const row of page.data) remember(slot, row)
  const last = page.data.at(-1)?.value
  if (expiring) {
    if (last?.expires_at) scan.lastExpiry = Date.parse(last.expires_at)
    scan.expiringDone = !page.has_more
    scan.expiringCursor = last?.id ?? scan.expiringCursor
  } else {
    if (last) scan.lastCreated = Date.parse(last.created_at)
    scan.neverDone = !page.has_more
    scan.neverCursor = last?.id ?? scan.neverCursor
  }
}

/** The buckets of a choice not covered yet (`covered`). */
export function uncovered(slot: CardSlot, taken: readonly { bucketId: string }[]): PointsBucket[] {
  return taken.map((t) => slot.byId.get(t.bucketId) as PointsBucket).filter((b) => !covered(slot, b))
}

/** Whether `b` is of the last expiry day read, which `readDay` can read on in spending order. */
export function onLastDay(slot: CardSlot, b: PointsBucket): boolean {
  const { scan } = slot
  return !scan.expiringDone && b.expires_at !== null && Date.parse(b.expires_at) === scan.lastExpiry
}

/**
 * Reads the next page of the last expiry day read, in spending order: its ACTIVE buckets by creation
 * then id from the declared index `(voucher_id, status, expires_at)` the store's `take` walks
 * (docs/storage.md#taking-points), so that a spend chooses within a day exactly as a take would,
 * reading a page of that day rather than all of it. False when the day is read to its end.
 */
export async function readDay(tx: Tx, slot: CardSlot): Promise<boolean> {
  await slot.first
  const scan = slot.scan
  const expiry = scan.lastExpiry
  if (scan.day?.expiry !== expiry) scan.day = { expiry, last: undefined, done: false }
  const day = scan.day
  if (day.done) return false
  const page = await tx.store.points_buckets.list({
    where: { voucher_id: slot.voucher.id, status: 'ACTIVE', expires_at: new Date(expiry).toISOString() },
    order: { field: 'created_at', direction: 'asc' },
    limit: SPEND_PAGE,
    ...(day.last !== undefined ? { starting_after_id: day.last.id } : {}),
    count: false,
  })
  for (const row of page.data) remember(slot, row)
  day.last = page.data.at(-1)?.value ?? day.last
  day.done = !page.has_more
  return true
}

/**
 * Reads on for a choice whose buckets `open` are not all covered yet: the rest of the last expiry day
 * read when they all belong to it, else the next page of the spending order. False at the end.
 */
export async function readOn(tx: Tx, slot: CardSlot, open: readonly PointsBucket[]): Promise<boolean> {
  if (open.length > 0 && open.every((b) => onLastDay(slot, b)) && (await readDay(tx, slot))) return true
  return readMore(tx, slot)
}

export async function readMoreExpiring(tx: Tx, slot: CardSlot): Promise<boolean> {
  return slot.scan.expiringDone ? false : readMore(tx, slot)
}
