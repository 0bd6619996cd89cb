import type { PointsBucket } from '../../model/loyalty'
import { expiryDay, spend, type TakenPoints } from '../../rules/ledger'
import type { Tx } from '../kernel/unit-of-work'
import type { CardSlot } from './card-slots'
import { changeCard } from './card-writes'
import { readMoreExpiring, readOn, uncovered } from './spending-order'

/*
 * The card's next expiration (`loyalty_card.next_expiration_date` and `_points`), kept as points
 * are credited, spent and taken: the soonest day on which spendable points expire.
 */

/**
 * After a spend: the card's next expiration. Points taken from the day it names come off its
 * points; when that day is emptied (or the stored day is not the soonest any more), the next day
 * is read from the spending order (`refreshNextExpiration`).
 */
export async function afterTaking(tx: Tx, slot: CardSlot, taken: readonly TakenPoints[]): Promise<void> {
  const tz = tx.ctx.config.timezone
  const lc = slot.voucher.loyalty_card
  const day = lc?.next_expiration_date ?? null
  let atDay = 0
  let elsewhere = false
  for (const t of taken) {
    const b = slot.byId.get(t.bucketId) as PointsBucket
    if (b.expires_at === null) continue
    const d = expiryDay(b.expires_at, tz)
    if (d === day) atDay += t.points
    else if (day === null || d < day) elsewhere = true
  }
  if (!elsewhere && (day === null || (lc?.next_expiration_points ?? 0) - atDay > 0)) {
    if (atDay > 0) changeCard(tx, slot, { 'loyalty_card.next_expiration_points': -atDay })
    return
  }
  await refreshNextExpiration(tx, slot)
}

/**
 * Sets the card's next expiration from the spending order: the soonest day on which spendable
 * points expire and how many, reading on until that day's buckets are all read.
 */
export async function refreshNextExpiration(tx: Tx, slot: CardSlot): Promise<void> {
  const tz = tx.ctx.config.timezone
  const now = tx.now.getTime()
  for (;;) {
    const view = await afterTakes(tx, slot)
    if (view === undefined) continue
    let day: string | null = null
    for (const b of view) {
      if (b.status !== 'ACTIVE' || b.remaining <= 0 || b.expires_at === null || Date.parse(b.expires_at) <= now)
        continue
      const d = expiryDay(b.expires_at, tz)
      if (day === null || d < day) day = d
    }
    // The day is complete once a stored bucket of a later day has been read, or the expiring ones ran out.
    const complete =
      slot.scan.expiringDone ||
      (day !== null &&
        slot.buckets.some(
          (b) =>
            slot.storedBuckets.has(b.id) &&
            b.expires_at !== null &&
            Date.parse(b.expires_at) > now &&
            expiryDay(b.expires_at, tz) > (day as string),
        ))
    if (complete || !(await readMoreExpiring(tx, slot))) {
      let points = 0
      for (const b of view) {
        if (b.status === 'ACTIVE' && b.expires_at !== null && Date.parse(b.expires_at) > now) {
          if (expiryDay(b.expires_at, tz) === day) points += b.remaining
        }
      }
      changeCard(tx, slot, {}, undefined, {
        'loyalty_card.next_expiration_date': day,
        'loyalty_card.next_expiration_points': day === null ? null : points,
      })
      return
    }
  }
}

/**
 * The card's buckets read as they will stand at commit: this transaction's `take` writes apply after
 * its guarded decrements, from the front of the spending order (docs/storage.md#taking-points), so a
 * spend choosing its buckets after a take in one transaction (an auto-redemption repeated, a payment
 * with points then an auto-redemption) sets the next expiration on what the take leaves. Undefined
 * when it read on to cover what the takes take (call again); the buckets as read when nothing is
 * left to read.
 */
async function afterTakes(tx: Tx, slot: CardSlot): Promise<readonly PointsBucket[] | undefined> {
  if (slot.taking === 0) return slot.buckets
  const result = spend(slot.buckets, slot.taking, { now: tx.now })
  const open = result.ok ? uncovered(slot, result.taken) : []
  if (result.ok && open.length === 0) return result.buckets
  return (await readOn(tx, slot, open)) ? undefined : result.ok ? result.buckets : slot.buckets
}

/**
 * A bucket that became spendable (credited, activated, refunded) moves the next expiration when it
 * expires on the day the card names (its points add up) or sooner (it becomes the day). Decided on
 * the card as this transaction sees it; the day is a `set`, its points an increment.
 */
export function noteExpiring(tx: Tx, slot: CardSlot, bucket: PointsBucket, points: number): void {
  if (bucket.expires_at === null || points <= 0 || Date.parse(bucket.expires_at) <= tx.now.getTime()) return
  const d = expiryDay(bucket.expires_at, tx.ctx.config.timezone)
  const day = slot.voucher.loyalty_card?.next_expiration_date ?? null
  if (day === d) changeCard(tx, slot, { 'loyalty_card.next_expiration_points': points })
  else if (day === null || d < day)
    changeCard(tx, slot, {}, undefined, {
      'loyalty_card.next_expiration_date': d,
      'loyalty_card.next_expiration_points': points,
    })
}
