import { COLLECTIONS } from '../storage/collections'
import type { Alternative, Changeset, CollectionName, CommitResult, Repository, Store } from '../storage/ports'
import { chooseAlternative } from '../storage/ports'
import { apply } from './apply'
import { changes, trimChanges } from './change-feed'
import { check } from './check-changeset'
import { repository } from './repository-reads'
import { createState, type MemoryStoreOptions, type MemoryStoreStats } from './state'

export type { FaultStep, MemoryStoreOptions, MemoryStoreStats } from './state'

export interface MemoryStore extends Store {
  readonly stats: MemoryStoreStats
}

/**
 * The in-memory store: the embedded default and the reference adapter (docs/storage.md). A commit is
 * checked in full before anything is applied (check.ts), applied synchronously (atomic under any
 * interleaving of async callers), and undone if anything throws while it is applied (apply.ts). Stored
 * values are frozen once, at commit, and handed out without copies (reads.ts): operations derive new
 * versions, never mutate what they read.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const state = createState(options)
  const { stats } = state
  const repositories = Object.fromEntries(COLLECTIONS.map((c) => [c, repository(state, c)])) as {
    [C in CollectionName]: Repository<C>
  }
  return {
    ...repositories,
    stats,
    inProcess: true,
    async commit(changeset: Changeset): Promise<CommitResult> {
      stats.calls++
      stats.commits++
      const alternatives = changeset.alternatives ?? []
      const checked = check(state, changeset.writes, alternatives.length > 0)
      if (!('conflict' in checked)) return apply(state, checked.staged)
      const failed = checked.failed ?? []
      const index = failed.length > 0 ? chooseAlternative(alternatives, failed) : -1
      if (index === -1) return { ok: false, conflict: checked.conflict }
      // The alternative commits instead, checked and applied like any changeset (docs/storage.md#alternatives).
      const alternative = check(state, (alternatives[index] as Alternative).writes)
      if ('conflict' in alternative) return { ok: false, conflict: alternative.conflict }
      return { ...apply(state, alternative.staged), alternative: { index, failed } }
    },
    async changes(query) {
      stats.calls++
      return changes(state, query)
    },
    async trimChanges(query) {
      stats.calls++
      return trimChanges(state, query)
    },
  }
}
