import type { Changeset, CollectionName, CommitResult, Conflict, Write } from '../storage/ports'
import { naturalKeysOf } from '../storage/ports'

/** A changeset as the commit function takes it, and its answer as the store returns it (docs/postgres.md#commit). */

/** What the adapter sent to the commit function: the steps, and each alternative's. */
export interface Sent {
  steps: Step[]
  alternatives?: { steps: Step[] }[]
}

export function outcome(r: unknown, sent: Sent): CommitResult {
  const result = r as CommitResult & { wrote?: Record<string, number | null> }
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
  const wrote = result.wrote
  if (wrote !== undefined) {
    delete result.wrote
    const steps = result.alternative ? (sent.alternatives?.[result.alternative.index]?.steps ?? []) : sent.steps
    // Built when first read (the engine's hot path reads none): keyed by fresh ids, they cost the
    // parse of the answer more than anything else in it.
    let versions: Record<string, number> | undefined
    Object.defineProperty(result, 'versions', {
      enumerable: true,
      configurable: true,
      get: () => {
        versions ??= versionsOf(steps, wrote)
        return versions
      },
    })
  }
  return result
}

/**
 * The answer's versions when the function reports only what the steps wrote other than inserts
 * (docs/postgres.md#commit): per entity its last write, in the order the steps apply them; an insert
 * is at version 1, an update or increment at the version the function reported, and an entity whose
 * last write deleted it is left out.
 */
function versionsOf(steps: readonly Step[], wrote: Record<string, number | null>): Record<string, number> {
  const versions: Record<string, number> = {}
  for (const step of steps) {
    for (const row of step.rows as { op: string; id: string }[]) {
      const slot = `${step.c}/${row.id}`
      if (row.op === 'ins') versions[slot] = 1
      else if (row.op === 'del') delete versions[slot]
      else versions[slot] = wrote[slot] as number
    }
  }
  return versions
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

type Increment = Extract<Write, { op: 'increment' }>

/** Whether one dotted path is the other or inside it. */
const related = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`)

/**
 * Whether `second`, applied right after `first` to the same entity, can be applied with it as one
 * row write: additions then assignments of both give what the two in turn give when the second adds
 * nothing where the first assigns, and the first has no guard (a guard checks the state it leaves).
 */
function mergeable(first: Increment, second: Increment): boolean {
  if (first.guard && Object.keys(first.guard).length > 0) return false
  const sets = Object.keys(first.set ?? {})
  // Removals apply after both writes' additions and assignments: the second must not write what the first removes.
  const unset = first.unset ?? []
  const written = [...Object.keys(second.by), ...Object.keys(second.set ?? {})]
  return (
    !Object.keys(second.by).some((path) => sets.some((set) => related(path, set))) &&
    !written.some((path) => unset.some((field) => related(path, field)))
  )
}

/** The field at a dotted path of a value, as the key column reads it. */
function fieldAt(value: unknown, path: string): unknown {
  let v = value
  for (const part of path.split('.'))
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined
  return v
}

/**
 * The collections whose natural keys the writes may change (docs/postgres.md#commit): puts of a
 * value that holds a key (every field of it a string: the key column is NULL otherwise, and NULLs
 * never collide, so an order without a `source_id` needs no check), and increments that add to,
 * assign or create a key field. Only their unique checks run at the end.
 */
export function keyedCollections(writes: readonly Write[]): CollectionName[] {
  const out = new Set<CollectionName>()
  for (const w of writes) {
    if (w.op === 'delete' || w.op === 'take') continue
    const keys = naturalKeysOf(w.collection)
    if (keys.length === 0) continue
    const fields = keys.flat()
    const touches =
      w.op === 'put'
        ? keys.some((key) => key.every((f) => typeof fieldAt(w.value, f) === 'string'))
        : [...Object.keys(w.by), ...Object.keys(w.set ?? {}), ...Object.keys(w.create ?? {})].some((path) =>
            fields.includes(path.split('.')[0] as string),
          )
    if (touches) out.add(w.collection)
  }
  return [...out]
}

/**
 * The writes as the commit function applies them (docs/postgres.md#commit; `collected`: the writes
 * of a changeset with alternatives, whose failed guards are collected): grouped into steps, each
 * the writes of one collection applied as one statement per kind. Entities only inserted, updated or
 * deleted come first, then those incremented, then those with a guarded increment: counter rows are
 * what many requests share, so they are locked last and held shortest; a card's points buckets after
 * them all, so that a card is always locked before its buckets (a `take` locks them after the card);
 * then by round, the n-th write
 * of each entity in round n (so several writes to one entity apply in the changeset's order, and a
 * later round only touches rows an earlier one locked); then by collection; rows by id. Two commits
 * therefore lock shared rows in the same order. An increment that follows another of the same entity
 * joins it when that gives the same result (`mergeable`): one row write that adds `n` to the version,
 * not a second round. `pos` is the order in which the changeset first touched each entity, which the
 * change feed keeps.
 */
export function commitSteps(writes: readonly Write[], collected = false): Step[] {
  const firstTouch = new Map<string, number>()
  const rounds = new Map<string, number>()
  const guarded = new Set<string>()
  const incremented = new Set<string>()
  const rows: { w: Exclude<Write, { op: 'take' }>; id: string; slot: string; round: number; merged: Increment[] }[] = []
  const last = new Map<string, (typeof rows)[number]>()
  const takes: Step[] = []
  for (const w of writes) {
    if (w.op === 'take') {
      // After every other step, the card's guarded decrement among them (docs/storage.md#taking-points).
      takes.push({ c: w.collection, rows: [], ins: 0, upd: 0, del: 0, inc: 0, cr: 0, take: w })
      continue
    }
    const id = w.op === 'put' ? (w.value as { id: string }).id : w.id
    const slot = `${w.collection}/${id}`
    if (!firstTouch.has(slot)) firstTouch.set(slot, firstTouch.size)
    if (w.op === 'increment') {
      incremented.add(slot)
      if (w.guard && Object.keys(w.guard).length > 0) guarded.add(slot)
      const before = last.get(slot)
      const tail = before?.merged.at(-1)
      if (before && tail && mergeable(tail, w)) {
        before.merged.push(w)
        continue
      }
    }
    const round = (rounds.get(slot) ?? 0) + 1
    rounds.set(slot, round)
    const row = { w, id, slot, round, merged: w.op === 'increment' ? [w] : [] }
    rows.push(row)
    last.set(slot, row)
  }
  const byStep = new Map<string, { c: CollectionName; rows: typeof rows }>()
  for (const r of rows) {
    // A card's buckets come after everything else, the card among it: spends whose buckets the store
    // takes lock the card and then its buckets (docs/storage.md#taking-points), so every commit does.
    const phase = r.w.collection === 'points_buckets' ? 3 : guarded.has(r.slot) ? 2 : incremented.has(r.slot) ? 1 : 0
    const key = `${phase}\u0000${String(r.round).padStart(6, '0')}\u0000${r.w.collection}`
    const step = byStep.get(key) ?? { c: r.w.collection, rows: [] }
    step.rows.push(r)
    byStep.set(key, step)
  }
  const steps = [...byStep.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, step]): Step => {
      step.rows.sort((a, b) => byteOrder(a.id, b.id))
      const n = { ins: 0, upd: 0, del: 0, inc: 0, cr: 0 }
      const out = step.rows.map(({ w, id, slot, merged }) => {
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
        // Additions and assignments as parallel arrays, applied in order (pe_apply: no query per field).
        // Built field by field, without object spreads: this runs for every counter of every commit.
        const ap: string[] = []
        const av: unknown[] = []
        const sp: string[] = []
        const sv: unknown[] = []
        const up: string[] = []
        for (const m of merged) {
          if (m.unset !== undefined) for (const path of m.unset) up.push(path)
          for (const path in m.by) {
            ap.push(path)
            av.push(m.by[path])
          }
          if (m.set === undefined) continue
          for (const path in m.set) {
            const x = m.set[path]
            if (x === undefined) continue
            sp.push(path)
            sv.push(x)
          }
        }
        const guard = merged.at(-1)?.guard
        const row: Record<string, unknown> = { op: 'inc', id, n: merged.length, ap, av }
        if (sp.length > 0) {
          row.sp = sp
          row.sv = sv
        }
        if (up.length > 0) row.up = up
        if (guard !== undefined && Object.keys(guard).length > 0) {
          row.g = guard
          // Its paths as an array, which pe_commit's check of one row's guards walks without a query.
          row.gk = Object.keys(guard)
        }
        if (create) row.cr = w.create
        row.s = w.shape ?? 1
        row.pos = pos
        return row
      })
      const kind = stepKind(out.length, n, out, collected)
      const sent: Step = { c: step.c, rows: out, ins: n.ins, upd: n.upd, del: n.del, inc: n.inc, cr: n.cr }
      if (kind && OWN.has(`${kind} ${step.c}`)) sent.k = `${kind} ${step.c}`
      return sent
    })
    .concat(takes)
  // An entity written in a later round: the feed picks each entity's last write (docs/postgres.md#commit).
  const first = steps[0]
  if (first && rounds.size < rows.length) first.dd = 1
  return steps
}

/**
 * The kinds of step `pe_commit` applies itself (`stepKind`), in the order its CASE tests them: those
 * of a checkout's commits, the most frequent first (a redemption's inserts, counters and the code's
 * guarded increment; a new member's card; a validation's session; loyalty, promotion and reward
 * stock). Any other step goes to its collection's writer, which applies every kind: an arm for each
 * kind of each collection made the function's source 240 kB, which PostgreSQL compiles in every new
 * session (docs/postgres.md#tuning).
 */
export const OWN_STEPS: readonly string[] = [
  'i activities',
  'i orders',
  'i redemptions',
  'u counters',
  'g vouchers',
  'i customers',
  'u customers',
  'i vouchers',
  'i publications',
  'i points_buckets',
  'i card_transactions',
  'i sessions',
  'i locks',
  'i redeemable_holders',
  'i redemption_rollbacks',
  'i order_snapshots',
  'i idempotency_keys',
  'u member_tiers',
  'g promotion_tiers',
  'g rewards',
  'g counters',
]
const OWN = new Set(OWN_STEPS)

/**
 * The steps `pe_commit` applies itself rather than through the collection's writer
 * (docs/postgres.md#commit): new entities only (`i`); increments only, each creating its row when
 * missing and none guarded (`u`, a redemption's counters), or one such row under its guard (`u`, the
 * shard of a campaign's count of generated codes a new member's card is counted in); one existing
 * row's increment (`g`, the code's guarded quantity). A guarded row stays with its writer when its
 * guard fails into a list rather than a conflict (`collected`: the writes of a changeset with
 * alternatives). Any other step goes to its writer.
 */
function stepKind(
  size: number,
  n: { ins: number; upd: number; del: number; inc: number; cr: number },
  rows: unknown[],
  collected: boolean,
) {
  if (n.ins === size) return 'i'
  if (n.inc !== size) return undefined
  const guarded = rows.some((r) => (r as { g?: unknown }).g !== undefined)
  // One guarded row: pe_inc checks its guards, and a failure names the step's only row.
  if (n.cr === size && (!guarded || (size === 1 && !collected))) return 'u'
  if (size === 1 && n.cr === 0 && !(guarded && collected)) return 'g'
  return undefined
}

/** One step of a commit: the writes of one collection in one round, with how many of each kind. */
export interface Step {
  c: CollectionName
  /** How `pe_commit` applies the step itself, with the collection (`stepKind`); absent: by its writer. */
  k?: string
  /** On the first step: some entity is written in more than one step. */
  dd?: 1
  rows: unknown[]
  ins: number
  upd: number
  del: number
  inc: number
  cr: number
  /** A `take`, applied by `pe_take` after the other steps. */
  take?: Extract<Write, { op: 'take' }>
}

/**
 * Ids in the order the database sorts them (`COLLATE "C"`: UTF-8 bytes, that is code points), the
 * order every statement of a commit locks rows in (docs/postgres.md#commit), so that a step's rows
 * and the writers' `ORDER BY id` agree. JavaScript's `<` compares UTF-16 units, which puts a code
 * point above U+FFFF (a surrogate pair) before U+E000–U+FFFF.
 */
export function byteOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    const surrogateX = x >= 0xd800 && x <= 0xdfff
    const surrogateY = y >= 0xd800 && y <= 0xdfff
    if (surrogateX !== surrogateY) return surrogateX ? 1 : -1
    return x - y
  }
  return a.length - b.length
}
