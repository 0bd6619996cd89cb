import { ID_PREFIX } from '../../ids'
import type { ValidationSession } from '../../model/redemption'
import type { SessionLockCounts, Voucher } from '../../model/voucher'
import type { PipelineResult, RedeemableSubject } from '../../rules/redeemables'
import type { StackableRequest } from '../../schema/stackable'
import type { Guard, Store, Stored } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'
import {
  counterBy,
  EXPIRED_BATCH,
  type Held,
  held,
  lockCounts,
  minus,
  NONE,
  readExpiredLocks,
  releasedBy,
  releaseLockRows,
  sum,
} from '../vouchers/lock-counts'
import { isUnlimitedCoupon } from './redemption-counters'

export { EXPIRED_BATCH, type Held, lockCounts, readExpiredLocks, releasedBy }

/*
 * Session locks as a guarded counter (docs/storage.md#session-locks). A code's counted locks live in
 * its own row (`session_locks`: uses, gift credits, points), so the guard of every redemption and of
 * every new lock compares `redeemed + locks` with the quantity stored at commit: a lock holder always
 * gets what was reserved for them, however many shoppers redeem at once. The lock rows themselves are
 * inserted under a derived id (code + session key) and read by key; no request reads the live locks
 * of a code. An expired lock stays counted until released: a request that the count would refuse
 * first releases that code's expired locks (a bounded batch read from the expiry index), and
 * `maintenance.purgeExpired` releases the rest.
 */

type TtlUnit = ValidationSession['ttl_unit']

const UNIT_MS: Record<TtlUnit, number> = {
  DAYS: 86_400_000,
  HOURS: 3_600_000,
  MINUTES: 60_000,
  SECONDS: 1000,
  MILLISECONDS: 1,
  MICROSECONDS: 0.001,
  NANOSECONDS: 0.000001,
}

export interface SessionResult {
  key: string
  type: 'LOCK'
  ttl: number
  ttl_unit: TtlUnit
}

/** `held` as the code stores it. */
export function storedLocks(held: Held): SessionLockCounts {
  return { count: held.count, minus_credits: -held.credits, minus_points: -held.points }
}

/** The id of a session's lock on a code: one row per (code, key), so two concurrent inserts of it conflict. */
export function lockId(voucherId: string, key: string): string {
  return `${ID_PREFIX.session}${voucherId}:${key}`
}

/** The request's locks as loaded (docs/storage.md#session-locks). */
export interface LoadedLocks {
  /** Every lock row of the request's session key, live or released, by code id. */
  own: Map<string, Stored<ValidationSession>>
  /** Expired locks of other sessions still counted on a code the count would otherwise refuse, by code id. */
  expired: Map<string, Stored<ValidationSession>[]>
  /** Codes the session holds live locks on that no longer exist: releasing those locks moves no counter. */
  gone?: ReadonlySet<string>
}

/** The lock rows of a session key: one per code it ever locked (level 1 of the request's reads). */
export async function readOwnLocks(store: Store, key: string): Promise<Stored<ValidationSession>[]> {
  return (await store.sessions.list({ where: { key }, count: false })).data
}

/**
 * Whether the counted locks of others could refuse this request: only then are the code's expired
 * locks read (and released by its commit), so a code whose locks leave room costs no read.
 */
export function mayBeRefusedByLocks(voucher: Voucher, others: Held): boolean {
  if (others.count <= 0) return false
  const quantity = voucher.redemption.quantity
  if (quantity !== null && voucher.redemption.redeemed_quantity + others.count + 1 > quantity) return true
  return others.credits > 0 || others.points > 0
}

/**
 * The code as the decision sees it: its counted locks less the request's own lock and the expired
 * locks its commit releases, so `session_locks` holds what other live sessions reserve. The
 * redemption's and the lock's guards add the stored counter after the same releases, so the decision
 * and the guard compare the same numbers.
 */
export function othersLocks(voucher: Voucher, locks: LoadedLocks): Held {
  const own = locks.own.get(voucher.id)
  const released = sum([...(own ? [own.value] : []), ...(locks.expired.get(voucher.id) ?? []).map((s) => s.value)])
  return minus(lockCounts(voucher), released)
}

/**
 * Releases the locks of the code that this request's commit takes out of its counter: its own lock
 * and the expired ones it read. Returns what they held, for the caller's increment of the code.
 */
export function releaseLocksOf(tx: Tx, voucherId: string, locks: LoadedLocks): Held {
  const own = locks.own.get(voucherId)
  return releaseLockRows(tx, [
    ...(own && own.value.released_at === null ? [own] : []),
    ...(locks.expired.get(voucherId) ?? []),
  ])
}

/**
 * The guards a change of a code's counter or uses holds: live locks plus uses within the quantity
 * stored at commit, locked credits and points within the balance stored at commit.
 */
export function lockGuards(voucher: Voucher, uses: 'uses' | 'locks'): Record<string, Guard> {
  const guard: Record<string, Guard> = {}
  if (voucher.redemption.quantity !== null) {
    guard[uses === 'uses' ? 'redemption.redeemed_quantity' : 'session_locks.count'] = {
      maxOf: 'redemption.quantity',
      plus: [uses === 'uses' ? 'session_locks.count' : 'redemption.redeemed_quantity'],
    }
  }
  // Balances stay at or above what other sessions lock: the balance plus the negated locked credits.
  if (voucher.gift) {
    if (uses === 'uses') guard['gift.balance'] = { min: 0, plus: ['session_locks.minus_credits'] }
    else guard['session_locks.minus_credits'] = { min: 0, plus: ['gift.balance'] }
  }
  if (voucher.loyalty_card && uses === 'locks') {
    guard['session_locks.minus_points'] = { min: 0, plus: ['loyalty_card.balance'] }
  }
  return guard
}

/**
 * Locks what a validation would redeem (docs/concepts.md#sessions, docs/behaviour.md#sessions): one use of
 * each voucher, its gift credits and its points, until the TTL passes (7 days by default), a redemption with
 * the key releases it, or `vouchers.releaseValidationSession` does. Reusing a key overwrites that session's
 * locks. Each lock is a row under (code, key) and a guarded increment of the code's counter
 * (docs/storage.md#session-locks): concurrent locks of one code never pass its quantity or balance,
 * and none rewrites the code. Returns the session only when at least one lock was written: a validation
 * that would redeem no code (invalid in ALL mode, nothing applicable, promotion tiers only) locks nothing,
 * and telling the client a session exists would be a lie.
 */
export function lockSession(
  tx: Tx,
  request: NonNullable<StackableRequest['session']>,
  loaded: {
    input: { subjects: readonly RedeemableSubject[] }
    vouchers: Map<string, Stored<Voucher>>
    locks: LoadedLocks
  },
  decision: PipelineResult,
): SessionResult | undefined {
  const key = request.key ?? tx.id(ID_PREFIX.session)
  const ttl = request.ttl ?? 7
  const ttlUnit: TtlUnit = request.ttl_unit ?? 'DAYS'
  const expiresAt = new Date(tx.now.getTime() + Math.ceil(ttl * UNIT_MS[ttlUnit])).toISOString()
  const bySubject = new Map(loaded.input.subjects.map((s) => [s.index, s]))
  let locked = 0
  for (const outcome of decision.outcomes) {
    if (outcome.status !== 'APPLICABLE' || !decision.redeem.includes(outcome.index)) continue
    const subject = bySubject.get(outcome.index) as RedeemableSubject
    const voucher = subject.voucher && loaded.vouchers.get(subject.voucher.id)
    if (!voucher) continue
    const v = voucher.value
    // An unlimited coupon has nothing to protect: its lock is a row, not counted.
    const counted = !isUnlimitedCoupon(v)
    const previous = request.key === undefined ? undefined : loaded.locks.own.get(v.id)
    const lock: ValidationSession = {
      id: previous?.value.id ?? lockId(v.id, key),
      key,
      voucher_id: v.id,
      promotion_tier_id: null,
      type: 'LOCK',
      ttl,
      ttl_unit: ttlUnit,
      credits: outcome.gift?.credits ?? 0,
      points: outcome.loyalty_card?.points ?? 0,
      expires_at: expiresAt,
      created_at: previous?.value.created_at ?? tx.nowIso,
      released_at: null,
      counted,
    }
    if (previous) tx.update('sessions', previous, lock)
    else tx.insert('sessions', lock)
    // The expired locks of others that the decision left out are released in the same commit.
    const expired = loaded.locks.expired.get(v.id) ?? []
    for (const row of expired) tx.update('sessions', row, { ...row.value, released_at: tx.nowIso })
    const delta = minus(minus(held(lock), previous ? held(previous.value) : NONE), sum(expired.map((r) => r.value)))
    const by = counterBy(delta)
    if (Object.keys(by).length > 0) {
      // Only what grows is guarded: a lock rewritten with fewer credits never fails.
      const grows = (path: string) => (path === 'session_locks.count' ? (by[path] ?? 0) > 0 : (by[path] ?? 0) < 0)
      const guard = Object.fromEntries(Object.entries(lockGuards(v, 'locks')).filter(([path]) => grows(path)))
      tx.increment('vouchers', v.id, by, Object.keys(guard).length > 0 ? { guard } : {})
    }
    locked++
  }
  return locked > 0 ? { key, type: 'LOCK', ttl, ttl_unit: ttlUnit } : undefined
}

/**
 * Releases live lock rows (a redemption with the key, an explicit release) and takes the counted ones
 * out of their codes' counters. Codes in `consumed` had their lock taken out by the redemption's own
 * increment of the code; codes in `gone` were deleted, and their counter with them.
 */
export function releaseLocks(
  tx: Tx,
  rows: readonly Stored<ValidationSession>[],
  consumed: ReadonlySet<string> = new Set(),
  gone: ReadonlySet<string> = new Set(),
): number {
  const live = rows.filter((row) => row.value.released_at === null)
  for (const row of live) tx.update('sessions', row, { ...row.value, released_at: tx.nowIso })
  const held = (id: string | null): id is string => id !== null && !consumed.has(id) && !gone.has(id)
  uncountLocks(
    tx,
    live.flatMap((row) => (held(row.value.voucher_id) ? [row.value] : [])),
  )
  return live.length
}

/** Takes locks out of their codes' counters (one increment per code): what counted ones held. */
export function uncountLocks(tx: Tx, rows: readonly ValidationSession[]): void {
  moveCounts(tx, rows, -1)
}

/** Adds counted locks to their codes' counters (one increment per code; the backfill of older locks). */
export function countLocks(tx: Tx, rows: readonly ValidationSession[]): void {
  moveCounts(tx, rows, 1)
}

function moveCounts(tx: Tx, rows: readonly ValidationSession[], sign: 1 | -1): void {
  const byCode = new Map<string, ValidationSession[]>()
  for (const row of rows) {
    if (row.voucher_id) byCode.set(row.voucher_id, [...(byCode.get(row.voucher_id) ?? []), row])
  }
  for (const [code, held] of byCode) {
    const total = sum(held)
    const by = sign === 1 ? counterBy(total) : releasedBy(total)
    if (Object.keys(by).length > 0) tx.increment('vouchers', code, by)
  }
}

/** Releases every live lock of a session key (or its lock on one code), reading them by key. */
export async function releaseSession(tx: Tx, key: string, voucherId?: string): Promise<number> {
  const rows = await readOwnLocks(tx.store, key)
  return releaseLocks(
    tx,
    rows.filter((s) => voucherId === undefined || s.value.voucher_id === voucherId),
  )
}
