import type { ValidationSession } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import type { Store, Stored } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'

/*
 * What session locks hold on a code, as its counter stores them (docs/storage.md#session-locks):
 * the counts a redemption or a lock reads and moves, and the release of expired locks. Checkout's
 * locks (`src/operations/checkout/session-locks.ts`) and a reward redemption's guard share them.
 */

/** How many expired locks of one code a request releases at most before it decides. */
export const EXPIRED_BATCH = 100

/** What locks hold: uses, gift credits, points (stored on the code with the credits and points negated). */
export interface Held {
  count: number
  credits: number
  points: number
}

export const NONE: Held = { count: 0, credits: 0, points: 0 }

/** What a code's counted locks hold. */
export function lockCounts(voucher: Voucher): Held {
  const stored = voucher.session_locks
  if (!stored) return NONE
  return { count: stored.count ?? 0, credits: -(stored.minus_credits ?? 0), points: -(stored.minus_points ?? 0) }
}

/** What a lock row holds in its code's counter: nothing once released, or when it was never counted. */
export function held(row: ValidationSession): Held {
  if (row.released_at !== null || row.counted !== true) return NONE
  return { count: 1, credits: row.credits, points: row.points }
}

export function minus(a: Held, b: Held): Held {
  return { count: a.count - b.count, credits: a.credits - b.credits, points: a.points - b.points }
}

export function sum(rows: readonly ValidationSession[]): Held {
  return rows.reduce((acc, r) => {
    const h = held(r)
    return { count: acc.count + h.count, credits: acc.credits + h.credits, points: acc.points + h.points }
  }, NONE)
}

/** A code's expired, unreleased locks, oldest first, a bounded batch through the expiry index. */
export async function readExpiredLocks(
  store: Store,
  voucherId: string,
  now: Date,
  ownKey: string | undefined,
): Promise<Stored<ValidationSession>[]> {
  const page = await store.sessions.list({
    // A lock has expired at its `expires_at` itself (before is strict: one millisecond on).
    where: {
      voucher_id: voucherId,
      released_at: null,
      expires_at: { before: new Date(now.getTime() + 1).toISOString() },
    },
    order: { field: 'expires_at', direction: 'asc' },
    limit: EXPIRED_BATCH,
    count: false,
  })
  return page.data.filter((s) => s.value.key !== ownKey && s.value.counted === true)
}

/** Releases lock rows in this commit; returns what they held, for the caller's increment of the code. */
export function releaseLockRows(tx: Tx, rows: readonly Stored<ValidationSession>[]): Held {
  for (const row of rows) tx.update('sessions', row, { ...row.value, released_at: tx.nowIso })
  return sum(rows.map((r) => r.value))
}

/** The increment of a code's counter by `by` (its fields that are not 0). */
export function counterBy(by: Held): Record<string, number> {
  const out: Record<string, number> = {}
  if (by.count !== 0) out['session_locks.count'] = by.count
  if (by.credits !== 0) out['session_locks.minus_credits'] = -by.credits
  if (by.points !== 0) out['session_locks.minus_points'] = -by.points
  return out
}

/** The increment that takes released locks out of a code's counter. */
export function releasedBy(released: Held): Record<string, number> {
  return counterBy(minus(NONE, released))
}
