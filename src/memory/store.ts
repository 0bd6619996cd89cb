import { EngineError } from '../errors'
import type {
  Alternative,
  Change,
  ChangePage,
  Changeset,
  ChangesQuery,
  CollectionName,
  CommitResult,
  Conflict,
  Entity,
  IndexDeclarations,
  IndexType,
  ListQuery,
  Page,
  Repository,
  Store,
  Stored,
  Write,
} from '../ports'
import { chooseAlternative, guardCheck, indexesOf, isMultiValued, naturalKeysOf } from '../ports'
import { currentShape, upgradeShape } from '../shapes'
import { bucketsFor, checkDeclaration, firstWhere, IndexBuckets, SortedEntries } from './indexes'
import { listRows } from './list'
import { chooseIndex, isRange, type Row, slice } from './pages'
import { deepFreeze, readPath, withIncrements } from './paths'

/** A change as committed, with the shape its value was stored in (upgraded when read). */
/** A commit's change as the feed hands it out (frozen), and the shape its value was stored in. */
interface Logged {
  readonly change: Change
  readonly shape: number
}

/** A stored value in the current shape (docs/storage.md#shape-versions): itself when current. */
function current(collection: CollectionName, value: unknown, shape: number): unknown {
  return shape < currentShape(collection) ? upgradeShape(collection, value, shape) : value
}

const EMPTY = new SortedEntries()

export const COLLECTIONS: readonly CollectionName[] = [
  'campaigns',
  'vouchers',
  'promotion_tiers',
  'promotion_stacks',
  'categories',
  'customers',
  'products',
  'skus',
  'product_collections',
  'validation_rules',
  'validation_rule_assignments',
  'orders',
  'order_snapshots',
  'redemptions',
  'redemption_rollbacks',
  'sessions',
  'earning_rules',
  'loyalty_tiers',
  'member_tiers',
  'points_buckets',
  'rewards',
  'reward_assignments',
  'publications',
  'activities',
  'metadata_schemas',
  'exports',
  'files',
  'file_chunks',
  'async_actions',
  'stacking_rules',
  'campaign_templates',
  'redeemable_holders',
  'credentials',
  'access_tokens',
  'locks',
  'counters',
  'idempotency_keys',
]

/** A step of applying a commit, named for fault-injection tests (`MemoryStoreOptions.faults`). */
export interface FaultStep {
  stage: 'freeze' | 'write' | 'index'
  /** The position of the entity in the commit (0-based, in the order the changeset first touches them). */
  position: number
}

export interface MemoryStoreOptions {
  /** Indexes beyond the engine's own (`INDEXES`), for a host's own list queries. */
  indexes?: IndexDeclarations
  /**
   * A testing hook called before each step of applying a commit; throwing from it simulates a fault
   * there (a stack overflow, an out-of-memory). The commit must then leave the store as it was.
   */
  faults?: (step: FaultStep) => void
}

/** What the memory store counts, for tests that assert the cost of an operation without timing it. */
export interface MemoryStoreStats {
  /** Store calls (get, getMany, findBy, findMany, list, commit, changes). */
  calls: number
  /** Stored rows a list read to answer (an index slice, or the bucket it filtered). */
  rowsExamined: number
  commits: number
}

export interface MemoryStore extends Store {
  readonly stats: MemoryStoreStats
}

/** The state of one entity after a changeset: null when deleted. */
interface Staged {
  collection: CollectionName
  id: string
  before: Row | undefined
  after: Row | null
  /** Whether the changeset incremented it (its value is then reported in `values`). */
  incremented: boolean
}

/**
 * The in-memory store: the embedded default and the reference adapter (docs/storage.md). A commit is
 * checked in full before anything is applied, applied synchronously (atomic under any interleaving of
 * async callers), and undone if anything throws while it is applied. Stored values are frozen once,
 * at commit, and handed out without copies: operations derive new versions, never mutate what they read.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const stats: MemoryStoreStats = { calls: 0, rowsExamined: 0, commits: 0 }
  const tables = new Map<CollectionName, Map<string, Row>>()
  /** Natural keys: `collection.key` → key value → id. */
  const keys = new Map<string, Map<string, string>>()
  const indexes = new Map<CollectionName, IndexBuckets[]>()
  /** Each declared field of a collection and its type (the first declaration's). */
  const declaredFields = new Map<CollectionName, Map<string, IndexType>>()
  const log: Logged[] = []
  let seq = 0
  for (const c of COLLECTIONS) {
    tables.set(c, new Map())
    for (const key of naturalKeysOf(c)) keys.set(`${c}.${key.join('+')}`, new Map())
    const declared = indexesOf(c, options.indexes)
    for (const d of declared) checkDeclaration(c, d)
    indexes.set(
      c,
      declared.map((d) => new IndexBuckets(d)),
    )
    const fields: (readonly [string, IndexType])[] = [['id', 'text'], ...declared.flatMap((d) => [...d.on, d.sort])]
    declaredFields.set(c, new Map(fields.reverse()))
  }
  const table = (c: CollectionName): Map<string, Row> => {
    const t = tables.get(c)
    if (!t) throw new Error(`unknown collection ${c}`)
    return t
  }

  function repository<C extends CollectionName>(collection: C): Repository<C> {
    const rows = table(collection)
    const asStored = (row: Row): Stored<Entity<C>> => ({
      value: current(collection, row.value, row.shape) as Entity<C>,
      version: row.version,
    })
    const byKey = (key: string, value: string | readonly string[]): Row | undefined => {
      const index = keys.get(`${collection}.${key}`)
      if (!index) throw new Error(`${collection} has no natural key ${key}`)
      const id = index.get(typeof value === 'string' ? value : keyString(value))
      return id === undefined ? undefined : rows.get(id)
    }
    return {
      async get(id) {
        stats.calls++
        const row = rows.get(id)
        return row ? asStored(row) : undefined
      },
      async getMany(ids) {
        stats.calls++
        const out: Stored<Entity<C>>[] = []
        for (const id of ids) {
          const row = rows.get(id)
          if (row) out.push(asStored(row))
        }
        return out
      },
      async findBy(key, value) {
        stats.calls++
        const row = byKey(key, value)
        return row ? asStored(row) : undefined
      },
      async findMany(key, values) {
        stats.calls++
        const out: Stored<Entity<C>>[] = []
        for (const value of values) {
          const row = byKey(key, value)
          if (row) out.push(asStored(row))
        }
        return out
      },
      async list(query = {}) {
        stats.calls++
        return list(collection, query, asStored)
      },
    }
  }

  function list<C extends CollectionName>(
    collection: C,
    query: ListQuery,
    asStored: (row: Row) => Stored<Entity<C>>,
  ): Page<Entity<C>> {
    const where = query.where ?? {}
    const order = query.order ?? { field: 'created_at', direction: 'asc' }
    const declared = declaredFields.get(collection) as Map<string, IndexType>
    for (const field of [...Object.keys(where), order.field]) {
      if (!declared.has(field)) {
        throw new Error(
          `${collection} is listed by ${field}, which no declared index covers: declare it in INDEXES (docs/storage.md#indexes)`,
        )
      }
    }
    if (isMultiValued(order.field))
      throw new Error(`${collection} cannot be ordered by the multi-valued ${order.field}`)
    for (const [field, cond] of Object.entries(where)) {
      if (isMultiValued(field) && isRange(cond)) {
        throw new Error(`${collection}: the multi-valued ${field} is filtered by equality or in, not by a range`)
      }
    }
    const index = chooseIndex(indexes.get(collection) as IndexBuckets[], where, order.field)
    const rows = table(collection)
    const onFields = new Set(index.declaration.on.map(([p]) => p))
    const rest = Object.entries(where).filter(([f]) => !onFields.has(f))
    const buckets = bucketsFor(index.declaration, where).flatMap((b) => {
      const entries = index.buckets.get(b)
      return entries ? [entries] : []
    })
    const [sortField] = index.declaration.sort
    const single = buckets.length <= 1
    if (single && sortField === order.field && rest.every(([f, c]) => f === sortField && isRange(c))) {
      const page = slice(
        buckets[0] ?? EMPTY,
        rest[0]?.[1],
        index.declaration.sort,
        query,
        order.direction,
        rows,
        asStored,
      )
      // Only the entries the page returns are touched.
      stats.rowsExamined += page.data.length
      return page
    }
    const candidates: Stored<Entity<C>>[] = []
    // An entity with several matching elements of a multi-valued field sits in several buckets: listed once.
    const seen = index.multi && buckets.length > 1 ? new Set<string>() : undefined
    for (const entries of buckets) {
      stats.rowsExamined += entries.length
      for (const e of entries) {
        if (seen) {
          if (seen.has(e.id)) continue
          seen.add(e.id)
        }
        candidates.push(asStored(rows.get(e.id) as Row))
      }
    }
    return listRows(candidates, { ...query, where: Object.fromEntries(rest) }, Object.fromEntries(declared))
  }

  /**
   * Checks a changeset against the store without changing it. With `collectGuards` a failed guard
   * does not stop the check: every failed guard is reported (`failed`, for choosing an alternative),
   * unless a conflict of another kind comes first.
   */
  function check(
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
        const before = table(w.collection).get(id)
        entry = { collection: w.collection, id, before, after: before ?? null, incremented: false }
        staged.set(slot, entry)
      }
      const current = entry.after
      if (w.op === 'increment') {
        let base = current
        if (base === null) {
          if (w.create === undefined) return { conflict: { collection: w.collection, id, reason: 'missing' } }
          base = { value: { ...w.create, id }, version: 0, shape: currentShape(w.collection) }
        }
        const value = withIncrements(base.value, w.by, w.set)
        for (const [path, guard] of Object.entries(w.guard ?? {})) {
          const checked = guardCheck(value, path, guard, readPath)
          if (!checked.ok) {
            const conflict: Conflict = {
              collection: w.collection,
              id,
              reason: 'guard',
              guard: {
                path,
                value: checked.value,
                ...guard,
                ...(checked.max === undefined ? {} : { max: checked.max }),
              },
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
      entry.after =
        w.op === 'put' ? { value: w.value, version: (version ?? 0) + 1, shape: currentShape(w.collection) } : null
    }
    // Natural keys are checked on the final state, so a key may move between entities in one changeset.
    const claimed = new Map<string, string>()
    for (const { collection, id, after } of staged.values()) {
      if (after === null) continue
      for (const fields of naturalKeysOf(collection)) {
        const value = keyValue(after.value, fields)
        if (value === undefined) continue
        const key = fields.join('+')
        const slot = `${collection}.${key}=${value}`
        const rival = claimed.get(slot)
        if (rival !== undefined && rival !== id) return { conflict: { collection, id, reason: 'unique', key } }
        claimed.set(slot, id)
        const holder = keys.get(`${collection}.${key}`)?.get(value)
        if (holder === undefined || holder === id) continue
        // The current holder keeps the key unless this same changeset deletes it or gives it another value.
        const holderAfter = staged.get(`${collection}/${holder}`)
        const keeps =
          holderAfter === undefined ||
          (holderAfter.after !== null && keyValue(holderAfter.after.value, fields) === value)
        if (keeps) return { conflict: { collection, id, reason: 'unique', key } }
      }
    }
    // Nothing of these writes applies: the first failed guard is the conflict, the others come along.
    const [first] = failed
    if (first) return { conflict: first, failed }
    return { staged }
  }

  /** Applies a checked changeset; anything thrown midway undoes what was applied, so the store is unchanged. */
  function apply(staged: Map<string, Staged>): Extract<CommitResult, { ok: true }> {
    const entries = [...staged.values()]
    const undo: (() => void)[] = []
    const logLength = log.length
    try {
      // Everything that can fail on the values themselves (freezing) happens before the store changes.
      entries.forEach((s, position) => {
        options.faults?.({ stage: 'freeze', position })
        if (s.after) deepFreeze(s.after.value)
      })
      entries.forEach((s, position) => {
        const rows = table(s.collection)
        options.faults?.({ stage: 'write', position })
        if (s.after) rows.set(s.id, s.after)
        else rows.delete(s.id)
        undo.push(() => {
          if (s.before) rows.set(s.id, s.before)
          else rows.delete(s.id)
        })
        options.faults?.({ stage: 'index', position })
        reindex(s, undo)
      })
      seq += 1
      undo.push(() => {
        seq -= 1
        log.length = logLength
      })
      const versions: Record<string, number> = {}
      const values: Record<string, unknown> = {}
      for (const s of entries) {
        const slot = `${s.collection}/${s.id}`
        if (s.after) {
          versions[slot] = s.after.version
          if (s.incremented) values[slot] = current(s.collection, s.after.value, s.after.shape)
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
          }),
          shape: s.after?.shape ?? 0,
        })
      }
      return { ok: true, seq, versions, values }
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
  function reindex(s: Staged, undo: (() => void)[]): void {
    const oldValue = s.before?.value
    const newValue = s.after?.value
    for (const fields of naturalKeysOf(s.collection)) {
      const map = keys.get(`${s.collection}.${fields.join('+')}`) as Map<string, string>
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
    for (const index of indexes.get(s.collection) as IndexBuckets[]) {
      if (oldValue !== undefined) {
        index.remove(s.id, oldValue)
        undo.push(() => index.add(s.id, oldValue))
      }
      if (newValue !== undefined) {
        index.add(s.id, newValue)
        undo.push(() => index.remove(s.id, newValue))
      }
    }
  }

  const repositories = Object.fromEntries(COLLECTIONS.map((c) => [c, repository(c)])) as {
    [C in CollectionName]: Repository<C>
  }

  return {
    ...repositories,
    stats,
    async commit(changeset: Changeset): Promise<CommitResult> {
      stats.calls++
      stats.commits++
      const alternatives = changeset.alternatives ?? []
      const checked = check(changeset.writes, alternatives.length > 0)
      if (!('conflict' in checked)) return apply(checked.staged)
      const failed = checked.failed ?? []
      const index = failed.length > 0 ? chooseAlternative(alternatives, failed) : -1
      if (index === -1) return { ok: false, conflict: checked.conflict }
      // The alternative commits instead, checked and applied like any changeset (docs/storage.md#alternatives).
      const alternative = check((alternatives[index] as Alternative).writes)
      if ('conflict' in alternative) return { ok: false, conflict: alternative.conflict }
      return { ...apply(alternative.staged), alternative: { index, failed } }
    },
    async changes(query: ChangesQuery = {}): Promise<ChangePage> {
      stats.calls++
      const after = query.after ?? 0
      const limit = query.limit ?? 100
      const only = query.collections ? new Set(query.collections) : undefined
      const data: Change[] = []
      let i = firstWhere(log, (c) => c.change.seq > after)
      let next = after
      for (; i < log.length; i++) {
        const { change, shape } = log[i] as Logged
        // A page ends on a commit boundary, so a cursor never splits a commit.
        if (data.length >= limit && change.seq !== next) break
        next = change.seq
        if (!only || only.has(change.collection)) {
          // An older shape is upgraded into a copy; a current one is handed out as it is.
          const value = change.op === 'put' ? current(change.collection, change.value, shape) : change.value
          data.push(value === change.value ? change : { ...change, value })
        }
      }
      return { data, has_more: i < log.length, next_after: next }
    },
  }
}

function keyString(values: readonly unknown[]): string {
  return values.length === 1 ? String(values[0]) : JSON.stringify(values)
}

/** A natural key's value in an entity, or undefined when one of its fields is not a string. */
function keyValue(value: unknown, fields: readonly string[]): string | undefined {
  const parts = fields.map((f) => readPath(value, f))
  return parts.every((p) => typeof p === 'string') ? keyString(parts) : undefined
}
