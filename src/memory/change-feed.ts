import {
  type Change,
  type ChangePage,
  type ChangesQuery,
  type TrimChangesQuery,
  type TrimChangesResult,
  trimBounds,
} from '../storage/ports'
import { firstWhere } from './index-buckets'
import type { MemoryState } from './state'

/** The change feed: the commits after a cursor, a page ending on a commit boundary (docs/storage.md). */
export function changes(state: MemoryState, query: ChangesQuery = {}): ChangePage {
  const { log } = state
  const after = query.after ?? 0
  const limit = query.limit ?? 100
  const only = query.collections ? new Set(query.collections) : undefined
  const data: Change[] = []
  let i = firstWhere(log, (c) => c.seq > after)
  let next = after
  for (; i < log.length; i++) {
    const change = log[i] as Change
    // A page ends on a commit boundary, so a cursor never splits a commit.
    if (data.length >= limit && change.seq !== next) break
    next = change.seq
    // Handed out as stored, with its shape: the engine upgrades an older one.
    if (!only || only.has(change.collection)) data.push(change)
  }
  return { data, has_more: i < log.length, next_after: next }
}

/**
 * Retention (docs/storage.md#trimming-the-feed): the oldest changes, those committed `olderThanSeconds`
 * ago or earlier, whole commits, about `limit` at most (the last commit taken is taken whole).
 */
export function trimChanges(state: MemoryState, query: TrimChangesQuery): TrimChangesResult {
  const { log, logTimes, options } = state
  const { olderThanSeconds, limit } = trimBounds(query)
  const cutoff = (options.clock?.now().getTime() ?? Date.now()) - olderThanSeconds * 1000
  const old = (i: number) => i < log.length && (logTimes[i] as number) <= cutoff
  let n = 0
  // A commit's changes are logged together, with one time: past the limit, only the commit being taken finishes.
  while (old(n) && (n < limit || log[n]?.seq === log[n - 1]?.seq)) n++
  const more = n >= limit && old(n)
  log.splice(0, n)
  logTimes.splice(0, n)
  return { deleted: n, has_more: more }
}
