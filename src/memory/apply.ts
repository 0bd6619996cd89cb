import { EngineError } from '../errors'
import type { CommitResult } from '../storage/ports'
import type { Staged } from './check-changeset'
import { type IndexBuckets, samePlacement } from './index-buckets'
import { freezeNew } from './paths'
import { keyValue, type MemoryState, type NaturalKey, table } from './state'

/** Applying a checked changeset: freeze, write, reindex, log; undone in full if anything throws midway. */

/** Applies a checked changeset; anything thrown midway undoes what was applied, so the store is unchanged. */
export function apply(state: MemoryState, staged: Map<string, Staged>): Extract<CommitResult, { ok: true }> {
  const { options, log } = state
  const entries = [...staged.values()]
  const undo: (() => void)[] = []
  const logLength = log.length
  try {
    // Everything that can fail on the values themselves (freezing) happens before the store changes.
    const walked = new Set<object>()
    for (let position = 0; position < entries.length; position++) {
      const s = entries[position] as Staged
      options.faults?.({ stage: 'freeze', position })
      if (s.after) freezeNew(s.after.value, s.before?.value, walked)
    }
    for (let position = 0; position < entries.length; position++) {
      const s = entries[position] as Staged
      const rows = table(state, s.collection)
      options.faults?.({ stage: 'write', position })
      if (s.after) rows.set(s.id, s.after)
      else rows.delete(s.id)
      undo.push(() => {
        if (s.before) rows.set(s.id, s.before)
        else rows.delete(s.id)
      })
      options.faults?.({ stage: 'index', position })
      reindex(state, s, undo)
    }
    state.seq += 1
    const seq = state.seq
    undo.push(() => {
      state.seq -= 1
      log.length = logLength
    })
    const versions: Record<string, number> = {}
    const values: Record<string, unknown> = {}
    const shapes: Record<string, number> = {}
    for (const s of entries) {
      const slot = `${s.collection}/${s.id}`
      if (s.after) {
        versions[slot] = s.after.version
        if (s.incremented) {
          values[slot] = s.after.value
          shapes[slot] = s.after.shape
        }
      }
      // Frozen like the values: the feed hands its records out as they are.
      log.push({
        change: Object.freeze({
          seq,
          collection: s.collection,
          id: s.id,
          op: s.after ? 'put' : 'delete',
          version: s.after?.version ?? s.before?.version ?? 0,
          value: s.after?.value ?? null,
          shape: s.after?.shape ?? null,
        }),
      })
    }
    return { ok: true, seq, versions, values, shapes }
  } catch (error) {
    for (let i = undo.length - 1; i >= 0; i--) (undo[i] as () => void)()
    throw new EngineError({
      code: 500,
      key: 'commit_failed',
      message: 'The store could not apply the commit; nothing was written',
      details: error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 200) : 'unknown error',
    })
  }
}

/** Moves an entity's natural keys and index entries from its old value to its new one. */
function reindex(state: MemoryState, s: Staged, undo: (() => void)[]): void {
  const oldValue = s.before?.value
  const newValue = s.after?.value
  for (const { fields, ids: map } of state.naturalKeys.get(s.collection) as NaturalKey[]) {
    const oldKey = oldValue === undefined ? undefined : keyValue(oldValue, fields)
    const newKey = newValue === undefined ? undefined : keyValue(newValue, fields)
    if (oldKey === newKey) continue
    if (oldKey !== undefined && map.get(oldKey) === s.id) {
      map.delete(oldKey)
      undo.push(() => map.set(oldKey, s.id))
    }
    if (newKey !== undefined) {
      const previous = map.get(newKey)
      map.set(newKey, s.id)
      undo.push(() => (previous === undefined ? map.delete(newKey) : map.set(newKey, previous)))
    }
  }
  for (const index of state.indexes.get(s.collection) as IndexBuckets[]) {
    if (oldValue !== undefined && newValue !== undefined && !index.mayMove(oldValue, newValue)) continue
    const was = oldValue === undefined ? undefined : index.entriesOf(s.id, oldValue)
    const now = newValue === undefined ? undefined : index.entriesOf(s.id, newValue)
    if (was && now && samePlacement(was, now)) continue
    if (was) {
      index.remove(was)
      undo.push(() => index.add(was))
    }
    if (now) {
      index.add(now)
      undo.push(() => index.remove(now))
    }
  }
}
