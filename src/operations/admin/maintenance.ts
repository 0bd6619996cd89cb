import * as v from 'valibot'
import type { CallOptions } from '../../call-options'
import { opt } from '../../schema/common'
import { parse } from '../../schema/parse'
import { type Context, mutate } from '../kernel/unit-of-work'

const purgeInput = v.object({
  /** Records deleted per call (one commit): 1 to 1,000, 500 by default. */
  limit: opt(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1), v.maxValue(1000))),
})

/** `maintenance.purgeExpired`: how many records one call deletes at most. */
export type MaintenancePurgeExpiredParams = v.InferInput<typeof purgeInput>

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

/** The records that carry their own end: once `expires_at` is past they answer nothing any more. */
const EXPIRING = ['idempotency_keys', 'access_tokens', 'sessions'] as const

/**
 * Housekeeping a host runs on a timer (the reference server does; so may a separate worker, on the
 * same store): see docs/http.md#housekeeping.
 */
export function maintenance(ctx: Context) {
  return {
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
