import type { Changeset, CollectionName, CommitResult, Conflict, Write } from '../storage/ports'
import { naturalKeysOf } from '../storage/ports'

/** A changeset as the commit function takes it, and its answer as the store returns it (docs/postgres.md#commit). */

export function outcome(r: unknown): CommitResult {
  const result = r as CommitResult
  // The function reports only what it knows; absent keys are left out, as the memory store does.
  const tidy = (c: Conflict) => {
    for (const k of Object.keys(c) as (keyof Conflict)[]) if (c[k] === null) delete c[k]
  }
  if (!result.ok) {
    tidy(result.conflict)
    return result
  }
  result.alternative?.failed.forEach(tidy)
  // An increment keeps the row's shape: the commit returns it with the value, for the engine to upgrade.
  result.shapes ??= {}
  return result
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
 * The writes as the commit function applies them (docs/postgres.md#commit): grouped into steps, each
 * the writes of one collection applied as one statement per kind. Entities only inserted, updated or
 * deleted come first, then those incremented, then those with a guarded increment: counter rows are
 * what many requests share, so they are locked last and held shortest; then by round, the n-th write
 * of each entity in round n (so several writes to one entity apply in the changeset's order, and a
 * later round only touches rows an earlier one locked); then by collection; rows by id. Two commits
 * therefore lock shared rows in the same order. `pos` is the order in which the changeset first
 * touched each entity, which the change feed keeps; `inc` names the entities incremented, whose
 * values the commit returns.
 */
export function commitSteps(writes: readonly Write[]): { steps: Step[]; inc: string[] } {
  const firstTouch = new Map<string, number>()
  const rounds = new Map<string, number>()
  const guarded = new Set<string>()
  const inc = new Set<string>()
  const rows = writes.map((w) => {
    const id = w.op === 'put' ? (w.value as { id: string }).id : w.id
    const slot = `${w.collection}/${id}`
    if (!firstTouch.has(slot)) firstTouch.set(slot, firstTouch.size)
    const round = (rounds.get(slot) ?? 0) + 1
    rounds.set(slot, round)
    if (w.op === 'increment') {
      inc.add(slot)
      if (w.guard && Object.keys(w.guard).length > 0) guarded.add(slot)
    }
    return { w, id, slot, round }
  })
  const byStep = new Map<string, { phase: number; round: number; c: CollectionName; rows: typeof rows }>()
  for (const r of rows) {
    const phase = guarded.has(r.slot) ? 2 : inc.has(r.slot) ? 1 : 0
    const key = `${phase}\u0000${String(r.round).padStart(6, '0')}\u0000${r.w.collection}`
    const step = byStep.get(key) ?? { phase, round: r.round, c: r.w.collection, rows: [] }
    step.rows.push(r)
    byStep.set(key, step)
  }
  const steps = [...byStep.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, step]) => {
      step.rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      const n = { ins: 0, upd: 0, del: 0, inc: 0, cr: 0 }
      const out = step.rows.map(({ w, id, slot }) => {
        const pos = firstTouch.get(slot) as number
        if (w.op === 'put') {
          const op = w.expectedVersion === null ? 'ins' : 'upd'
          n[op]++
          return { op, id, v: w.value, ev: w.expectedVersion, s: w.shape, pos }
        }
        if (w.op === 'delete') {
          n.del++
          return { op: 'del', id, ev: w.expectedVersion, pos }
        }
        n.inc++
        const create = w.create !== undefined && w.create !== null && typeof w.create === 'object'
        if (create) n.cr++
        return {
          op: 'inc',
          id,
          by: w.by,
          ...(w.guard === undefined || Object.keys(w.guard).length === 0 ? {} : { g: w.guard }),
          ...(create ? { cr: w.create } : {}),
          ...(w.set === undefined ? {} : { st: w.set }),
          s: w.shape ?? 1,
          pos,
        }
      })
      return { c: step.c, rows: out, ...n }
    })
  return { steps, inc: [...inc] }
}

/** One step of a commit: the writes of one collection in one round, with how many of each kind. */
export interface Step {
  c: CollectionName
  rows: unknown[]
  ins: number
  upd: number
  del: number
  inc: number
  cr: number
}
