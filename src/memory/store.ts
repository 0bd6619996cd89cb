import type {
  Changeset,
  CollectionName,
  CommitResult,
  Entity,
  FieldFilter,
  ListQuery,
  Page,
  Repository,
  Store,
  Stored,
  Write,
} from '../ports'
import { NATURAL_KEYS } from '../ports'
import { deepFreeze, readPath } from './paths'

type Row = { value: unknown; version: number }
type Conflict = Extract<CommitResult, { ok: false }>['conflict']

const COLLECTIONS: readonly CollectionName[] = [
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
  'idempotency_keys',
]

function naturalKeysOf(collection: CollectionName): readonly string[] {
  return (NATURAL_KEYS as Partial<Record<CollectionName, readonly string[]>>)[collection] ?? []
}

/**
 * The in-memory store: the embedded default and the reference adapter. A commit is checked in full
 * before anything is applied, and applied synchronously, so it is atomic under any interleaving of
 * async callers. Stored values are frozen: operations derive new versions (with immer or spreads),
 * never mutate what they read.
 */
export function createMemoryStore(): Store {
  const tables = new Map<CollectionName, Map<string, Row>>()
  const indexes = new Map<string, Map<string, string>>()
  for (const c of COLLECTIONS) {
    tables.set(c, new Map())
    for (const key of naturalKeysOf(c)) indexes.set(`${c}.${key}`, new Map())
  }
  const table = (c: CollectionName): Map<string, Row> => {
    const t = tables.get(c)
    if (!t) throw new Error(`unknown collection ${c}`)
    return t
  }

  function repository<C extends CollectionName>(collection: C): Repository<C> {
    const rows = table(collection)
    const asStored = (row: Row): Stored<Entity<C>> => ({ value: row.value as Entity<C>, version: row.version })
    return {
      async get(id) {
        const row = rows.get(id)
        return row ? asStored(row) : undefined
      },
      async getMany(ids) {
        const out: Stored<Entity<C>>[] = []
        for (const id of ids) {
          const row = rows.get(id)
          if (row) out.push(asStored(row))
        }
        return out
      },
      async findBy(key, value) {
        const id = indexes.get(`${collection}.${String(key)}`)?.get(value)
        const row = id === undefined ? undefined : rows.get(id)
        return row ? asStored(row) : undefined
      },
      async list(query = {}) {
        return listRows(Array.from(rows.values(), asStored), query)
      },
    }
  }

  function check(writes: readonly Write[]): Conflict | undefined {
    // Writes apply in order, so each is checked against the state the earlier writes of this same
    // changeset leave (as sequential conditional statements in one SQL transaction would be).
    // `after` is that state for every entity the changeset touches: its value and version, or null when deleted.
    const after = new Map<string, { collection: CollectionName; id: string; value: unknown; version: number } | null>()
    for (const w of writes) {
      const id = w.op === 'put' ? (w.value as { id: string }).id : w.id
      const slot = `${w.collection}/${id}`
      const current = after.has(slot)
        ? (after.get(slot)?.version ?? null)
        : (table(w.collection).get(id)?.version ?? null)
      if (w.op === 'increment') {
        const base = after.has(slot) ? after.get(slot)?.value : table(w.collection).get(id)?.value
        if (current === null || base === undefined) return { collection: w.collection, id, reason: 'missing' }
        after.set(slot, { collection: w.collection, id, value: incremented(base, w.by), version: current + 1 })
        continue
      }
      if (w.expectedVersion === null) {
        if (current !== null) return { collection: w.collection, id, reason: 'exists' }
      } else if (current === null) {
        return { collection: w.collection, id, reason: 'missing' }
      } else if (current !== w.expectedVersion) {
        return { collection: w.collection, id, reason: 'version' }
      }
      after.set(
        slot,
        w.op === 'put' ? { collection: w.collection, id, value: w.value, version: (current ?? 0) + 1 } : null,
      )
    }
    // Natural keys are checked on the final state, so a key may move between entities in one changeset.
    const claimed = new Map<string, string>()
    for (const entry of after.values()) {
      if (entry === null) continue
      const { collection, id, value: next } = entry
      for (const key of naturalKeysOf(collection)) {
        const value = readPath(next, key)
        if (typeof value !== 'string') continue
        const slot = `${collection}.${key}=${value}`
        const rival = claimed.get(slot)
        if (rival !== undefined && rival !== id) return { collection, id, reason: 'unique', key }
        claimed.set(slot, id)
        const holder = indexes.get(`${collection}.${key}`)?.get(value)
        if (holder === undefined || holder === id) continue
        // The current holder keeps the key unless this same changeset deletes it or gives it another value.
        const holderAfter = after.get(`${collection}/${holder}`)
        const keeps = holderAfter === undefined || (holderAfter !== null && readPath(holderAfter.value, key) === value)
        if (keeps) return { collection, id, reason: 'unique', key }
      }
    }
    return undefined
  }

  function apply(writes: readonly Write[]): Record<string, number> {
    const versions: Record<string, number> = {}
    for (const w of writes) {
      const rows = table(w.collection)
      const id = w.op === 'put' ? (w.value as { id: string }).id : w.id
      const old = rows.get(id)
      for (const key of naturalKeysOf(w.collection)) {
        const index = indexes.get(`${w.collection}.${key}`)
        const oldValue = old ? readPath(old.value, key) : undefined
        if (typeof oldValue === 'string' && index?.get(oldValue) === id) index.delete(oldValue)
      }
      if (w.op === 'delete') {
        rows.delete(id)
        continue
      }
      const value = w.op === 'increment' ? incremented(old?.value, w.by) : w.value
      const version = (old?.version ?? 0) + 1
      rows.set(id, { value: deepFreeze(value), version })
      versions[`${w.collection}/${id}`] = version
      for (const key of naturalKeysOf(w.collection)) {
        const keyValue = readPath(value, key)
        if (typeof keyValue === 'string') indexes.get(`${w.collection}.${key}`)?.set(keyValue, id)
      }
    }
    return versions
  }

  const repositories = Object.fromEntries(COLLECTIONS.map((c) => [c, repository(c)])) as {
    [C in CollectionName]: Repository<C>
  }

  return {
    ...repositories,
    async commit(changeset: Changeset): Promise<CommitResult> {
      const conflict = check(changeset.writes)
      if (conflict) return { ok: false, conflict }
      return { ok: true, versions: apply(changeset.writes) }
    },
  }
}

/** A copy of `value` with `by` added to its numeric fields (dotted paths; a missing field counts as 0). */
function incremented(value: unknown, by: Record<string, number>): unknown {
  const next = structuredClone(value) as Record<string, unknown>
  for (const [path, amount] of Object.entries(by)) {
    const parts = path.split('.')
    const last = parts.pop() as string
    let target = next
    for (const part of parts) {
      const child = target[part]
      if (child === null || typeof child !== 'object') target[part] = {}
      target = target[part] as Record<string, unknown>
    }
    const current = target[last]
    target[last] = (typeof current === 'number' ? current : 0) + amount
  }
  return next
}

/** Filtering, ordering and both kinds of pagination, shared with any adapter that lists in memory. */
export function listRows<T>(rows: Stored<T>[], query: ListQuery): Page<T> {
  const where = Object.entries(query.where ?? {})
  const filtered =
    where.length === 0 ? rows : rows.filter((r) => where.every(([f, cond]) => matches(readPath(r.value, f), cond)))
  const field = query.order?.field ?? 'created_at'
  const sign = query.order?.direction === 'desc' ? -1 : 1
  const sorted = [...filtered].sort((a, b) => {
    const c = compare(readPath(a.value, field), readPath(b.value, field)) * sign
    if (c !== 0) return c
    return compare(readPath(a.value, 'id'), readPath(b.value, 'id')) * sign
  })
  let start = 0
  if (query.starting_after_id !== undefined) {
    const at = sorted.findIndex((r) => readPath(r.value, 'id') === query.starting_after_id)
    start = at === -1 ? sorted.length : at + 1
  }
  const limit = query.limit ?? sorted.length
  if (query.page !== undefined) start += (query.page - 1) * limit
  const data = sorted.slice(start, start + limit)
  const has_more = start + data.length < sorted.length
  const last = data.at(-1)
  return {
    data,
    total: filtered.length,
    has_more,
    more_starting_after: has_more && last ? String(readPath(last.value, 'id')) : null,
  }
}

function matches(value: unknown, cond: FieldFilter): boolean {
  if (cond === null || typeof cond !== 'object') return value === cond || (cond === null && value === undefined)
  if ('in' in cond) return cond.in.includes(value as string | number)
  if ('before' in cond || 'after' in cond) {
    if (typeof value !== 'string') return false
    const t = Date.parse(value)
    const c = cond as { before?: string; after?: string }
    if (c.before !== undefined && !(t < Date.parse(c.before))) return false
    if (c.after !== undefined && !(t > Date.parse(c.after))) return false
    return true
  }
  const r = cond as { gte?: number; lte?: number }
  if (typeof value !== 'number') return false
  return (r.gte === undefined || value >= r.gte) && (r.lte === undefined || value <= r.lte)
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0
  if (a === undefined || a === null) return -1
  if (b === undefined || b === null) return 1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a) < String(b) ? -1 : 1
}
