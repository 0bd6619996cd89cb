import type { CallOptions } from '../../call-options'
import type { ValidationSession } from '../../model/redemption'
import { opt } from '../../schema/common'
import { parse } from '../../schema/parse'
import type { MaintenancePurgeExpiredParams, MaintenanceTrimChangeFeedParams } from '../../schema/requests'
import * as v from '../../schema/valibot'
import type { Stored } from '../../storage/ports'
import { uncountLocks } from '../checkout/session-locks'
import { type Context, mutate, type Tx } from '../kernel/unit-of-work'

/*
 * What a host deletes on a timer (docs/http.md#housekeeping): records past their `expires_at`, and
 * the change feed's commits past its retention.
 */

export const purgeInput = v.object({
  /** Records deleted per call (one commit): 1 to 1,000, 500 by default. */
  limit: opt(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1), v.maxValue(1000))),
})

export const trimInput = v.object({
  /** Commits made this many seconds ago or earlier go (0: every commit made so far). */
  older_than_seconds: v.pipe(v.number(), v.integer('must be an integer'), v.minValue(0), v.maxValue(3_153_600_000)),
  /** Changes read per call, oldest first: 1 to 10,000, 1,000 by default. */
  limit: opt(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1), v.maxValue(10_000))),
})

/** What one call of `maintenance.purgeExpired` deleted, and whether expired records remain. */
export interface PurgeSummary {
  idempotency_keys: number
  access_tokens: number
  sessions: number
  files: number
  file_chunks: number
  /** More expired records than `limit`: call again. */
  has_more: boolean
}

/** What one call of `maintenance.trimChangeFeed` deleted, and whether old changes remain. */
export interface TrimSummary {
  /** Changes deleted from the feed: whole commits only. */
  changes: number
  /** The call reached its `limit` and the next change is old enough too: call again. */
  has_more: boolean
}

/** The records that carry their own end: once `expires_at` is past they answer nothing any more. */
const EXPIRING = ['idempotency_keys', 'access_tokens', 'sessions'] as const

/** The timed deletions of `maintenance`: a bounded batch per call. */
export function housekeeping(ctx: Context) {
  return {
    /**
     * Retention for the change feed (docs/storage.md#trimming-the-feed): deletes the oldest commits'
     * changes, those made `older_than_seconds` ago or earlier by the store's clock, whole commits,
     * about `limit` changes per call. Readers whose cursor is behind them never see those commits:
     * keep the feed longer than your slowest reader lags.
     */
    async trimChangeFeed(input: MaintenanceTrimChangeFeedParams, _options?: CallOptions): Promise<TrimSummary> {
      const q = parse(trimInput, input)
      const trimmed = await ctx.store.trimChanges({
        olderThanSeconds: q.older_than_seconds,
        ...(q.limit === undefined ? {} : { limit: q.limit }),
      })
      return { changes: trimmed.deleted, has_more: trimmed.has_more }
    },

    /**
     * Deletes what has expired, a bounded batch per call (`limit` records, one commit): idempotency
     * records past `idempotencyTtlSeconds`, access tokens past their expiry, validation session locks
     * past theirs, and export files past `fileRetentionSeconds` (or abandoned part-way), their chunks
     * first. Each kind is read from its `expires_at` index, oldest first, so a call reads what it
     * deletes and never scans what is live. Every delete names the version it read: a record written
     * again meanwhile (an expired idempotency key reused) makes the commit conflict, and the retry reads
     * it as live and leaves it.
     */
    async purgeExpired(input: MaintenancePurgeExpiredParams = {}, _options?: CallOptions): Promise<PurgeSummary> {
      const limit = parse(purgeInput, input).limit ?? 500
      return mutate(ctx, async (tx) => {
        const query = {
          where: { expires_at: { before: tx.nowIso } },
          order: { field: 'expires_at', direction: 'asc' },
          limit,
          count: false,
        } as const
        const pages = await Promise.all(EXPIRING.map((c) => tx.store[c].list(query)))
        const summary: PurgeSummary = {
          idempotency_keys: 0,
          access_tokens: 0,
          sessions: 0,
          files: 0,
          file_chunks: 0,
          has_more: false,
        }
        let room = limit
        for (const [i, collection] of EXPIRING.entries()) {
          const page = pages[i] ?? { data: [], has_more: false }
          const taken = page.data.slice(0, room)
          for (const stored of taken) tx.delete(collection, stored)
          if (collection === 'sessions') await uncountExpiredLocks(tx, taken as Stored<ValidationSession>[])
          summary[collection] = taken.length
          room -= taken.length
          if (page.has_more || taken.length < page.data.length) summary.has_more = true
        }
        if (room === 0) return { ...summary, has_more: true }
        // A file goes chunk by chunk; its entry last, with its last chunks.
        const files = await tx.store.files.list({ ...query, limit: room })
        let done = 0
        for (const file of files.data) {
          if (room === 0) break
          const chunks = await tx.store.file_chunks.list({
            where: { file_id: file.value.id },
            order: { field: 'index', direction: 'asc' },
            limit: room,
            count: false,
          })
          for (const chunk of chunks.data) tx.delete('file_chunks', chunk)
          summary.file_chunks += chunks.data.length
          room -= chunks.data.length
          if (chunks.has_more || room === 0) {
            summary.has_more = true
            break
          }
          tx.delete('files', file)
          summary.files++
          room--
          done++
        }
        if (files.has_more || done < files.data.length) summary.has_more = true
        return summary
      })
    },
  }
}

/**
 * A lock purged before anything released it still counts in its code's `session_locks`
 * (docs/storage.md#session-locks): the purge takes it out, for codes that still exist.
 */
async function uncountExpiredLocks(tx: Tx, rows: readonly Stored<ValidationSession>[]): Promise<void> {
  const counted = rows.filter((r) => r.value.counted === true && r.value.released_at === null && r.value.voucher_id)
  if (counted.length === 0) return
  const codes = new Set(
    (await tx.store.vouchers.getMany([...new Set(counted.map((r) => r.value.voucher_id as string))])).map(
      (v) => v.value.id,
    ),
  )
  uncountLocks(
    tx,
    counted.filter((r) => codes.has(r.value.voucher_id as string)).map((r) => r.value),
  )
}
