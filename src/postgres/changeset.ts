import type { Changeset, CollectionName, CommitResult, Conflict, Write } from '../storage/ports'
import { naturalKeysOf } from '../storage/ports'
import { currentShape, upgradeShape } from '../storage/shapes'

/** A changeset as the commit function takes it, and its answer as the store returns it (docs/postgres.md#commit). */

export function outcome(r: unknown): CommitResult {
  const result = r as CommitResult & { shapes?: Record<string, number> }
  // The function reports only what it knows; absent keys are left out, as the memory store does.
  const tidy = (c: Conflict) => {
    for (const k of Object.keys(c) as (keyof Conflict)[]) if (c[k] === null) delete c[k]
  }
  if (!result.ok) {
    tidy(result.conflict)
    return result
  }
  result.alternative?.failed.forEach(tidy)
  // An increment keeps the row's shape: its value after the increment is upgraded like every read.
  const { shapes = {}, ...ok } = result
  for (const [slot, value] of Object.entries(ok.values)) {
    const collection = slot.slice(0, slot.indexOf('/')) as CollectionName
    ok.values[slot] = upgradeShape(collection, value, shapes[slot] ?? currentShape(collection))
  }
  return ok
}

/** Above this many inserted natural keys a commit takes no key locks (a bulk load, not a race). */
export const KEY_LOCKS = 100

/**
 * The natural keys the changeset (or one of its alternatives) inserts, `collection.key=value`: the
 * commit function locks each before writing, so two commits inserting one key queue instead of
 * deadlocking in the deferred unique check (docs/postgres.md#commit).
 */
export function insertedKeys(changeset: Changeset): string[] {
  const keys = new Set<string>()
  for (const writes of [changeset.writes, ...(changeset.alternatives ?? []).map((a) => a.writes)]) {
    for (const w of writes) {
      if (w.op !== 'put' || w.expectedVersion !== null) continue
      for (const fields of naturalKeysOf(w.collection)) {
        const parts = fields.map((f) => (w.value as unknown as Record<string, unknown>)[f])
        if (parts.every((x) => typeof x === 'string'))
          keys.add(`${w.collection}.${fields.join('+')}=${JSON.stringify(parts)}`)
      }
    }
  }
  return keys.size > KEY_LOCKS ? [] : [...keys]
}

/**
 * The writes as the commit function applies them: by (collection, id), entities with a guarded
 * increment last; the writes of one entity keep their order. `pos` is the order in which the
 * changeset first touched each entity, which the change feed keeps.
 */
export function canonical(writes: readonly Write[]): unknown[] {
  const firstTouch = new Map<string, number>()
  const guarded = new Set<string>()
  const rows = writes.map((w, i) => {
    const id = w.op === 'put' ? (w.value as { id: string }).id : w.id
    const slot = `${w.collection}/${id}`
    if (!firstTouch.has(slot)) firstTouch.set(slot, firstTouch.size)
    if (w.op === 'increment' && w.guard && Object.keys(w.guard).length > 0) guarded.add(slot)
    return { w, i, id, slot }
  })
  rows.sort((a, b) => {
    const ga = guarded.has(a.slot) ? 1 : 0
    const gb = guarded.has(b.slot) ? 1 : 0
    if (ga !== gb) return ga - gb
    if (a.w.collection !== b.w.collection) return a.w.collection < b.w.collection ? -1 : 1
    if (a.id !== b.id) return a.id < b.id ? -1 : 1
    return a.i - b.i
  })
  return rows.map(({ w, id, slot }) => {
    const pos = firstTouch.get(slot)
    if (w.op === 'put') {
      return { op: 'put', c: w.collection, id, v: w.value, ev: w.expectedVersion, s: currentShape(w.collection), pos }
    }
    if (w.op === 'delete') return { op: 'delete', c: w.collection, id, ev: w.expectedVersion, pos }
    return {
      op: 'increment',
      c: w.collection,
      id,
      by: w.by,
      ...(w.guard === undefined ? {} : { guard: w.guard }),
      ...(w.create === undefined ? {} : { create: w.create }),
      ...(w.set === undefined ? {} : { set: w.set }),
      s: currentShape(w.collection),
      pos,
    }
  })
}
