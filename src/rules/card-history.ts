import type { CardTransaction } from '../model/card-transaction'
import type { PointsBucket } from '../model/loyalty'

/**
 * A loyalty card's card transactions rebuilt from its points buckets, for the movements made before
 * card transactions were recorded (docs/behaviour.md#card-transactions-made-before-the-ledger).
 *
 * Every movement since the ledger existed has its row, and every one before has none, so the card's
 * first recorded row splits its history: what happened strictly before it is rebuilt, what happened
 * at or after it is left to the rows. What the buckets keep is exact: a bucket's credit (`points` at
 * `created_at`, its activation for pending points), and its `expired` points, which are the points the
 * sweep took at `expires_at` plus the parts rollbacks gave back after that instant (expired at the
 * rollback, read from the rolled back redemption's `points_taken`).
 */

/** A successful rollback of one of the card's redemptions, with the buckets that redemption took from. */
export interface RolledBackPoints {
  id: string
  date: string
  taken: readonly { bucketId: string; points: number }[]
}

export interface CardHistory {
  voucher_id: string
  campaign_id: string | null
  buckets: readonly PointsBucket[]
  rollbacks: readonly RolledBackPoints[]
  /** When the card's first recorded (not rebuilt) card transaction was made; null when it has none. */
  firstRecorded: string | null
}

/** The bucket sources whose credit is an accrual: a card's opening points and a rollback's are not. */
const ACCRUED: ReadonlySet<PointsBucket['source']['type']> = new Set(['earning_rule', 'manual', 'reward', 'referral'])

/** A rebuilt row's id names what it was rebuilt from, so rebuilding twice inserts the same row twice and conflicts. */
export const rebuiltId = (prefix: string, kind: 'a' | 'e' | 'r', from: string): string => `${prefix}${kind}_${from}`

const expiresBy = (bucket: PointsBucket, instant: string): boolean =>
  bucket.expires_at !== null && Date.parse(bucket.expires_at) <= Date.parse(instant)

/** What a bucket's credit came from, in the words of the rows recorded since. */
function creditDetails(source: PointsBucket['source']): Record<string, unknown> {
  switch (source.type) {
    case 'earning_rule':
      return { earning_rule: { id: source.id ?? null } }
    case 'reward':
      return { reward: { id: source.id ?? null } }
    case 'referral':
      return { referral: { campaign_id: source.id ?? null } }
    case 'manual':
    case 'initial':
    case 'rollback':
      return {}
  }
}

/**
 * The rows the card lacks, oldest first: an accrual per credited bucket, an expiration per expiry
 * instant (the sweep of the buckets expiring then) and one per rollback that gave back expired points.
 */
export function rebuildCardTransactions(history: CardHistory, idPrefix: string): CardTransaction[] {
  const before = (instant: string) => history.firstRecorded === null || instant < history.firstRecorded
  const row = (
    id: string,
    type: CardTransaction['type'],
    amount: number,
    created_at: string,
    source: CardTransaction['source'],
    details: Record<string, unknown>,
  ): CardTransaction => ({
    id,
    voucher_id: history.voucher_id,
    campaign_id: history.campaign_id,
    type,
    amount,
    source,
    reason: null,
    details: { ...details, backfilled: true },
    created_at,
  })
  const byId = new Map(history.buckets.map((b) => [b.id, b]))
  const rows: CardTransaction[] = []

  for (const b of history.buckets) {
    if (b.status === 'PENDING' || !ACCRUED.has(b.source.type) || !before(b.created_at)) continue
    // Pending points were credited by the activation job, dated when they activated (`created_at`).
    const source = b.activates_at ? 'AUTOMATION' : 'API'
    rows.push(
      row(rebuiltId(idPrefix, 'a', b.id), 'POINTS_ACCRUAL', b.points, b.created_at, source, {
        ...creditDetails(b.source),
        bucket: { id: b.id },
      }),
    )
  }

  // Points a rollback gave back to a bucket already past its expiry lapsed at the rollback.
  const expiredByRollbacks = new Map<string, number>()
  for (const rb of history.rollbacks) {
    let lapsed = 0
    for (const part of rb.taken) {
      const bucket = byId.get(part.bucketId)
      if (!bucket || !expiresBy(bucket, rb.date)) continue
      expiredByRollbacks.set(bucket.id, (expiredByRollbacks.get(bucket.id) ?? 0) + part.points)
      lapsed += part.points
    }
    if (lapsed > 0 && before(rb.date)) {
      rows.push(
        row(rebuiltId(idPrefix, 'r', rb.id), 'POINTS_EXPIRATION', -lapsed, rb.date, 'API', {
          rollback: { id: rb.id },
        }),
      )
    }
  }

  // The rest of each bucket's expired points went in the sweep due at its expiry, one row per instant.
  const swept = new Map<string, { points: number; first: string }>()
  for (const b of history.buckets) {
    const points = b.expired - (expiredByRollbacks.get(b.id) ?? 0)
    if (points <= 0 || b.expires_at === null || !before(b.expires_at)) continue
    const at = swept.get(b.expires_at)
    swept.set(b.expires_at, {
      points: (at?.points ?? 0) + points,
      first: at === undefined || b.id < at.first ? b.id : at.first,
    })
  }
  for (const [instant, { points, first }] of swept) {
    rows.push(
      row(rebuiltId(idPrefix, 'e', first), 'POINTS_EXPIRATION', -points, instant, 'AUTOMATION', {
        bucket: { id: first },
      }),
    )
  }

  return rows.sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1,
  )
}

/** Whether a stored card transaction is one `rebuildCardTransactions` made. */
export const isRebuilt = (t: CardTransaction): boolean => t.details.backfilled === true
