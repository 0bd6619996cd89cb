import { EngineError } from '../errors'
import type { Change, CollectionName, CommitResult } from '../storage/ports'
import type { Staged } from './check-changeset'
import { type IndexBuckets, type Placement, samePlacement } from './index-buckets'
import type { Row } from './pages'
import { freezeNew } from './paths'
import { keyValue, type MemoryState, type NaturalKey, table } from './state'

/** Applying a checked changeset: freeze, write, reindex, log; undone in full if anything throws midway. */

/** A change of the feed: made by `new`, like everything the store keeps (see `StoredVersion` in pages.ts). */
class LoggedChange implements Change {
  constructor(
    readonly seq: number,
    readonly collection: CollectionName,
    readonly id: string,
    readonly op: 'put' | 'delete',
    readonly version: number,
    readonly value: unknown,
    readonly shape: number | null,
  ) {}
}

/**
 * What undoes one step of a commit, as data rather than a closure per step (a redemption writes some
 * twenty entities into several indexes each): kept in order, replayed backwards if anything throws.
 */
type Undo =
  | { kind: 'row'; rows: Map<string, Row>; id: string; before: Row | undefined }
  | { kind: 'key'; map: Map<string, string>; key: string; id: string | undefined }
  | { kind: 'add'; index: IndexBuckets; placement: Placement }
  | { kind: 'remove'; index: IndexBuckets; placement: Placement }

function undoAll(undo: Undo[]): void {
  for (let i = undo.length - 1; i >= 0; i--) {
    const u = undo[i] as Undo
    switch (u.kind) {
      case 'row':
        if (u.before) u.rows.set(u.id, u.before)
        else u.rows.delete(u.id)
        break
      case 'key':
        if (u.id === undefined) u.map.delete(u.key)
        else u.map.set(u.key, u.id)
        break
      case 'add':
        u.index.add(u.placement)
        break
      case 'remove':
        u.index.remove(u.placement)
        break
    }
  }
}

/** Applies a checked changeset; anything thrown midway undoes what was applied, so the store is unchanged. */
export function apply(state: MemoryState, staged: Map<string, Staged>): Extract<CommitResult, { ok: true }> {
  const { options, log, logTimes } = state
  const entries = [...staged.values()]
  const undo: Undo[] = []
  const logLength = log.length
  const seqBefore = state.seq
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
      undo.push({ kind: 'row', rows, id: s.id, before: s.before })
      options.faults?.({ stage: 'index', position })
      reindex(state, s, undo)
    }
    state.seq += 1
    const seq = state.seq
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
      log.push(
        Object.freeze(
          new LoggedChange(
            seq,
            s.collection,
            s.id,
            s.after ? 'put' : 'delete',
            s.after?.version ?? s.before?.version ?? 0,
            s.after?.value ?? null,
            s.after?.shape ?? null,
          ),
        ),
      )
    }
    const at = options.clock?.now().getTime() ?? Date.now()
    for (let i = logTimes.length; i < log.length; i++) logTimes.push(at)
    return { ok: true, seq, versions, values, shapes }
  } catch (error) {
    undoAll(undo)
    state.seq = seqBefore
    log.length = logLength
    logTimes.length = logLength
    throw new EngineError({
      code: 500,
      key: 'commit_failed',
      message: 'The store could not apply the commit; nothing was written',
      details: error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 200) : 'unknown error',
    })
  }
}

/** Moves an entity's natural keys and index entries from its old value to its new one. */
function reindex(state: MemoryState, s: Staged, undo: Undo[]): void {
  const oldValue = s.before?.value
  const newValue = s.after?.value
  for (const { fields, ids: map } of state.naturalKeys.get(s.collection) as NaturalKey[]) {
    const oldKey = oldValue === undefined ? undefined : keyValue(oldValue, fields)
    const newKey = newValue === undefined ? undefined : keyValue(newValue, fields)
    if (oldKey === newKey) continue
    if (oldKey !== undefined && map.get(oldKey) === s.id) {
      map.delete(oldKey)
      undo.push({ kind: 'key', map, key: oldKey, id: s.id })
    }
    if (newKey !== undefined) {
      const previous = map.get(newKey)
      map.set(newKey, s.id)
      undo.push({ kind: 'key', map, key: newKey, id: previous })
    }
  }
  for (const index of state.indexes.get(s.collection) as IndexBuckets[]) {
    if (oldValue !== undefined && newValue !== undefined && !index.mayMove(oldValue, newValue)) continue
    const was = oldValue === undefined ? undefined : index.entriesOf(s.id, oldValue)
    const now = newValue === undefined ? undefined : index.entriesOf(s.id, newValue)
    if (was && now && samePlacement(was, now)) continue
    if (was) {
      index.remove(was)
      undo.push({ kind: 'add', index, placement: was })
    }
    if (now) {
      index.add(now)
      undo.push({ kind: 'remove', index, placement: now })
    }
  }
}
