import type { CollectionName, Conflict, Write } from '../storage/ports'
import { guardCheck } from '../storage/ports'
import type { Row } from './pages'
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
  for (const w of writes) {
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
        base = { value: { ...w.create, id }, version: 0, shape: w.shape ?? 1 }
      }
      const value = withIncrements(base.value, w.by, w.set)
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
      entry.after = { value, version: base.version + 1, shape: base.shape }
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
    entry.after = w.op === 'put' ? { value: w.value, version: (version ?? 0) + 1, shape: w.shape } : null
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
