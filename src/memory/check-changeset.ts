import type { CollectionName, Conflict, TakenPart, Write } from '../storage/ports'
import { guardCheck, takeOrder } from '../storage/ports'
import { bucketsFor, type IndexBuckets } from './index-buckets'
import { type Row, StoredVersion } from './pages'
import { readPath, withIncrements } from './paths'
import { keyValue, type MemoryState, type NaturalKey, table } from './state'

/** Checking a changeset before anything applies: versions, guards and natural keys, on the state it leaves. */

/** The state of one entity after a changeset: null when deleted. */
export interface Staged {
  collection: CollectionName
  id: string
  before: Row | undefined
  after: Row | null
  /** Whether the changeset incremented it (its value is then reported in `values`). */
  incremented: boolean
}

/**
 * Checks a changeset against the store without changing it. With `collectGuards` a failed guard
 * does not stop the check: every failed guard is reported (`failed`, for choosing an alternative),
 * unless a conflict of another kind comes first.
 */
export function check(
  state: MemoryState,
  writes: readonly Write[],
  collectGuards = false,
): { conflict: Conflict; failed?: Conflict[] } | { staged: Map<string, Staged> } {
  // Writes apply in order, so each is checked against the state the earlier writes of this same
  // changeset leave (as sequential conditional statements in one SQL transaction would be).
  const staged = new Map<string, Staged>()
  const failed: Conflict[] = []
  const takes: Extract<Write, { op: 'take' }>[] = []
  for (const w of writes) {
    if (w.op === 'take') {
      takes.push(w)
      continue
    }
    const id = w.op === 'put' ? (w.value as { id: string }).id : w.id
    const slot = `${w.collection}/${id}`
    let entry = staged.get(slot)
    if (!entry) {
      const before = table(state, w.collection).get(id)
      entry = { collection: w.collection, id, before, after: before ?? null, incremented: false }
      staged.set(slot, entry)
    }
    const current = entry.after
    if (w.op === 'increment') {
      let base = current
      if (base === null) {
        if (w.create === undefined) return { conflict: { collection: w.collection, id, reason: 'missing' } }
        base = new StoredVersion({ ...w.create, id }, 0, w.shape ?? 1)
      }
      const value = withIncrements(base.value, w.by, w.set, w.unset)
      for (const [path, guard] of Object.entries(w.guard ?? {})) {
        // The bound stored at commit (`maxOf`) and the fields added to this one (`plus`): guardCheck.
        const checked = guardCheck(value, path, guard, readPath)
        if (!checked.ok) {
          const conflict: Conflict = {
            collection: w.collection,
            id,
            reason: 'guard',
            guard: { path, value: checked.value, ...guard, ...(checked.max === undefined ? {} : { max: checked.max }) },
          }
          if (!collectGuards) return { conflict }
          failed.push(conflict)
        }
      }
      entry.after = new StoredVersion(value, base.version + 1, base.shape)
      entry.incremented = true
      continue
    }
    const version = current?.version ?? null
    if (w.expectedVersion === null) {
      if (version !== null) return { conflict: { collection: w.collection, id, reason: 'exists' } }
    } else if (version === null) {
      return { conflict: { collection: w.collection, id, reason: 'missing' } }
    } else if (version !== w.expectedVersion) {
      return { conflict: { collection: w.collection, id, reason: 'version' } }
    }
    entry.after = w.op === 'put' ? new StoredVersion(w.value, (version ?? 0) + 1, w.shape) : null
  }
  // Takes apply after every other write, on the state they leave (docs/storage.md#taking-points).
  for (const w of takes) {
    const short = take(state, staged, w)
    if (short) {
      if (!collectGuards) return { conflict: short }
      failed.push(short)
    }
  }
  // Natural keys are checked on the final state, so a key may move between entities in one changeset.
  const claimed = new Map<string, string>()
  for (const { collection, id, after } of staged.values()) {
    if (after === null) continue
    for (const { fields, name: key, ids } of state.naturalKeys.get(collection) as NaturalKey[]) {
      const value = keyValue(after.value, fields)
      if (value === undefined) continue
      const slot = `${collection}.${key}=${value}`
      const rival = claimed.get(slot)
      if (rival !== undefined && rival !== id) return { conflict: { collection, id, reason: 'unique', key } }
      claimed.set(slot, id)
      const holder = ids.get(value)
      if (holder === undefined || holder === id) continue
      // The current holder keeps the key unless this same changeset deletes it or gives it another value.
      const holderAfter = staged.get(`${collection}/${holder}`)
      const keeps =
        holderAfter === undefined || (holderAfter.after !== null && keyValue(holderAfter.after.value, fields) === value)
      if (keeps) return { conflict: { collection, id, reason: 'unique', key } }
    }
  }
  // Nothing of these writes applies: the first failed guard is the conflict, the others come along.
  const [first] = failed
  if (first) return { conflict: first, failed }
  return { staged }
}

interface Bucket {
  id: string
  voucher_id?: unknown
  remaining?: unknown
  status?: unknown
  expires_at?: unknown
  created_at?: unknown
}

/** Whether a bucket of the card can give at `now` (ACTIVE, points left, not expired). */
function spendable(value: Bucket, card: string, now: number): boolean {
  if (value.voucher_id !== card || value.status !== 'ACTIVE') return false
  if (typeof value.remaining !== 'number' || value.remaining <= 0) return false
  return typeof value.expires_at !== 'string' || !(Date.parse(value.expires_at) <= now)
}

function bucketIndex(state: MemoryState, on: number, sort: string): IndexBuckets {
  const index = state.indexes
    .get('points_buckets')
    ?.find(
      (i) =>
        i.declaration.on.length === on &&
        i.declaration.on[0]?.[0] === 'voucher_id' &&
        i.declaration.on[1]?.[0] === 'status' &&
        i.declaration.sort[0] === sort,
    )
  if (!index) throw new Error(`points_buckets: a take needs the declared index of the spending order (${sort})`)
  return index
}

/**
 * The ids of the card's ACTIVE buckets not expired at `now`, as stored, in spending order
 * (`takeOrder`), read lazily through the declared indexes: each expiry day met in the index sorted by
 * `expires_at` (after `now`), that day's buckets by creation from the `(voucher_id, status,
 * expires_at)` index, then its never-expiring ones from the same index. Each id read counts as a row
 * examined, so a take costs what it takes, whatever the card holds.
 */
function* storedInSpendingOrder(state: MemoryState, card: string, now: number): Generator<string> {
  const byExpiry = bucketIndex(state, 2, 'expires_at')
  const byDay = bucketIndex(state, 3, 'created_at')
  const day = (expires: string | null) =>
    byDay.buckets.get(
      bucketsFor(byDay.declaration, { voucher_id: card, status: 'ACTIVE', expires_at: expires })[0] ?? '',
    )
  const expiring = byExpiry.buckets.get(
    bucketsFor(byExpiry.declaration, { voucher_id: card, status: 'ACTIVE' })[0] ?? '',
  )
  let after = now
  for (;;) {
    const next = expiring?.at(expiring.firstWhere((e) => e.key !== null && (e.key as number) > after))
    if (!next) break
    after = next.key as number
    for (const e of day(new Date(after).toISOString()) ?? []) {
      state.stats.rowsExamined++
      yield e.id
    }
  }
  for (const e of day(null) ?? []) {
    state.stats.rowsExamined++
    yield e.id
  }
}

/**
 * A `take`: the card's spendable buckets in spending order, the stored ones walked through the
 * declared indexes and merged with those this changeset wrote, each taken from until the amount is
 * covered; nothing after is read. Returns the shortfall as a guard conflict, or nothing when it is staged.
 */
function take(
  state: MemoryState,
  staged: Map<string, Staged>,
  w: Extract<Write, { op: 'take' }>,
): Conflict | undefined {
  const now = Date.parse(w.now)
  const rows = table(state, 'points_buckets')
  // The buckets this changeset wrote give as they stand after it; the index holds them as stored.
  const written: { row: Row; value: Bucket }[] = []
  for (const s of staged.values()) {
    if (s.collection !== 'points_buckets' || !s.after) continue
    const value = s.after.value as Bucket
    if (spendable(value, w.id, now)) written.push({ row: s.after, value })
  }
  written.sort((a, b) => takeOrder(a.value, b.value))
  function* inOrder(): Generator<{ row: Row; value: Bucket }> {
    let i = 0
    for (const id of storedInSpendingOrder(state, w.id, now)) {
      if (staged.has(`points_buckets/${id}`)) continue
      const row = rows.get(id) as Row
      const value = row.value as Bucket
      if (!spendable(value, w.id, now)) continue
      while (i < written.length && takeOrder((written[i] as { value: Bucket }).value, value) < 0)
        yield written[i++] as { row: Row; value: Bucket }
      yield { row, value }
    }
    while (i < written.length) yield written[i++] as { row: Row; value: Bucket }
  }
  const taken: TakenPart[] = []
  const gives: { row: Row; value: Bucket; part: number }[] = []
  let left = w.amount
  // Stops at the bucket that covers the amount, before the next one is read.
  for (const { row, value } of left > 0 ? inOrder() : []) {
    const part = Math.min(left, value.remaining as number)
    left -= part
    gives.push({ row, value, part })
    if (left === 0) break
  }
  if (left > 0) {
    return {
      collection: 'points_buckets',
      id: w.id,
      reason: 'guard',
      guard: { path: 'remaining', value: -left, min: 0 },
    }
  }
  for (const { row, value, part } of gives) {
    taken.push({ bucketId: value.id, points: part })
    const remaining = (value.remaining as number) - part
    const slot = `points_buckets/${value.id}`
    const entry = staged.get(slot) ?? {
      collection: 'points_buckets' as const,
      id: value.id,
      before: row,
      after: row,
      incremented: false,
    }
    entry.after = new StoredVersion(
      { ...value, remaining, ...(remaining === 0 ? { status: 'SPENT' } : {}) },
      row.version + 1,
      row.shape,
    )
    staged.set(slot, entry)
  }
  if (w.record) {
    const target = staged.get(`${w.record.collection}/${w.record.id}`)
    if (!target?.after) throw new Error(`take: the record ${w.record.collection}/${w.record.id} is not written`)
    // The record's own write: its version stays the one the put gives it.
    target.after = new StoredVersion(
      withIncrements(target.after.value, {}, { [w.record.path]: taken }),
      target.after.version,
      target.after.shape,
    )
  }
  return undefined
}
