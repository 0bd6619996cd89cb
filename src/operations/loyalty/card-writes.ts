import type { PointsBucket } from '../../model/loyalty'
import type { Guard, Write } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'
import { type CardSlot, refreshSpendable } from './card-slots'

/*
 * How a card and its buckets are written (docs/storage.md#loyalty-cards-and-their-buckets): the card
 * by one increment per transaction (or whole when it is written whole), a bucket by a guarded
 * decrement when spent, or whole when its state changes otherwise.
 */

/** A bucket this transaction writes whole (its state changes other than by a spend). */
export function putBucket(tx: Tx, slot: CardSlot, next: PointsBucket): void {
  slot.byId.set(next.id, next)
  slot.buckets = slot.buckets.map((b) => (b.id === next.id ? next : b))
  const increment = slot.bucketIncrements.get(next.id)
  if (increment) {
    tx.withdraw(increment)
    slot.bucketIncrements.delete(next.id)
  }
  const stored = slot.storedBuckets.get(next.id)
  if (slot.puts.has(next.id) || !stored) {
    // An insert of this transaction: `update` finds it and replaces it.
    tx.update('points_buckets', stored ?? { value: next, version: 0 }, next)
  } else tx.update('points_buckets', stored, next)
  slot.puts.add(next.id)
}

/** Takes `points` from a bucket: a guarded decrement of a stored one, or a rewrite of one written here. */
export function decrementBucket(tx: Tx, slot: CardSlot, before: PointsBucket, points: number): void {
  const remaining = before.remaining - points
  const next: PointsBucket = { ...before, remaining, status: remaining === 0 ? 'SPENT' : before.status }
  if (slot.puts.has(before.id)) {
    putBucket(tx, slot, next)
    return
  }
  slot.byId.set(next.id, next)
  slot.buckets = slot.buckets.map((b) => (b.id === next.id ? next : b))
  const guard: Guard = remaining === 0 ? { min: 0, max: 0 } : { min: 0 }
  const set = remaining === 0 ? { status: 'SPENT' } : undefined
  const known = slot.bucketIncrements.get(next.id)
  if (known) {
    known.by.remaining = (known.by.remaining ?? 0) - points
    known.guard = { remaining: guard }
    if (set) known.set = set
    else delete known.set
    return
  }
  tx.increment(
    'points_buckets',
    next.id,
    { remaining: -points },
    { guard: { remaining: guard }, ...(set ? { set } : {}) },
  )
  slot.bucketIncrements.set(next.id, tx.writes[tx.writes.length - 1] as Extract<Write, { op: 'increment' }>)
}

/**
 * Changes the card: the numbers in `by` added, the fields in `set` assigned (dotted paths). The card
 * this transaction sees moves at once; the store gets one increment of the card per transaction
 * (changes merge into it), or the card's whole next version when it is written whole.
 */
export function changeCard(
  tx: Tx,
  slot: CardSlot,
  by: Record<string, number>,
  guard?: Record<string, Guard>,
  set: Record<string, unknown> = {},
): void {
  let v = slot.voucher
  for (const [path, n] of Object.entries(by)) v = withPath(v, path, (x) => (typeof x === 'number' ? x : 0) + n)
  for (const [path, x] of Object.entries(set)) v = withPath(v, path, () => x)
  slot.voucher = slot.whole || slot.stored.version === 0 ? v : { ...v, updated_at: tx.nowIso }
  refreshSpendable(slot)
  if (slot.whole) {
    writeWhole(tx, slot)
    return
  }
  const write = slot.cardWrite
  if (!write) {
    tx.increment(
      'vouchers',
      slot.voucher.id,
      { ...by },
      {
        ...(guard ? { guard: { ...guard } } : {}),
        set: { ...set, updated_at: tx.nowIso },
      },
    )
    slot.cardWrite = tx.writes[tx.writes.length - 1] as Extract<Write, { op: 'increment' }>
    return
  }
  const sets = write.set ?? {}
  for (const [path, n] of Object.entries(by)) {
    // A field this transaction already assigns takes the sum in its assignment.
    if (path in sets) sets[path] = (typeof sets[path] === 'number' ? (sets[path] as number) : 0) + n
    else write.by[path] = (write.by[path] ?? 0) + n
  }
  for (const [path, x] of Object.entries(set)) {
    delete write.by[path]
    sets[path] = x
  }
  write.set = sets
  if (guard) write.guard = { ...(write.guard ?? {}), ...guard }
}

export function writeWhole(tx: Tx, slot: CardSlot): void {
  // A card inserted in this transaction keeps `updated_at` null; for it `update` replaces the insert.
  const next = slot.stored.version === 0 ? slot.voucher : { ...slot.voucher, updated_at: tx.nowIso }
  slot.voucher = next
  tx.update('vouchers', slot.stored, next)
}

/** A copy of `value` with the dotted `path` replaced by `change` of what it held. */
function withPath<T>(value: T, path: string, change: (x: unknown) => unknown): T {
  const [head, ...rest] = path.split('.') as [string, ...string[]]
  const obj = (value ?? {}) as Record<string, unknown>
  return {
    ...obj,
    [head]: rest.length === 0 ? change(obj[head]) : withPath(obj[head], rest.join('.'), change),
  } as T
}
