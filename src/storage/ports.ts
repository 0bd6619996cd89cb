import { EngineError } from '../errors'
import { parseInstant } from '../rules/zoned-calendar'
import type { CollectionName, Entity, NaturalKey } from './collections'

export * from './collections'
export * from './indexes'

/**
 * The storage contract. Operations read through repositories and write only through one
 * `commit(changeset)`: the store applies every write or none, checking each entity's version
 * (optimistic concurrency). A database adapter implements the same with one transaction and
 * conditional writes (`UPDATE … WHERE id = $1 AND version = $2`), plus unique indexes on the
 * natural keys (`src/storage/collections.ts`).
 */

/** An entity as operations hold it: its value and the version the next write must name. */
export interface Stored<T> {
  readonly value: T
  readonly version: number
}

/**
 * What a repository returns: the value as it was stored, its version, and the shape version the
 * write that stored it named (docs/storage.md#shape-versions). A store keeps the shape as it is given
 * and hands it back; it never interprets it. The engine upgrades a value of an older shape when it
 * reads it, so `value` is typed as the current shape the engine sees.
 */
export interface StoredRow<T> extends Stored<T> {
  readonly shape: number
}

export type OrderDirection = 'asc' | 'desc'

/**
 * A scalar equality filter (`null` also matches an absent field), a set, or a range on an ISO date
 * or text field (`before`/`after`: exclusive; text compares by code point) or number field
 * (`gte`/`lte`: inclusive).
 */
export type FieldFilter =
  | string
  | number
  | boolean
  | null
  | { in: readonly (string | number | null)[] }
  | { before?: string; after?: string }
  | { gte?: number; lte?: number }

export interface ListQuery {
  /**
   * Equality / range filters by declared index field (dotted paths reach nested fields). A
   * multi-valued field (`targets[]`) takes equality or `in`: an entity matches when one of its
   * elements does (`null`: when it has none), and is listed once however many match.
   */
  where?: Record<string, FieldFilter>
  /** Sort field (a declared index field) and direction; ties break by id in the same direction. Default `created_at` asc. */
  order?: { field: string; direction: OrderDirection }
  limit?: number
  /** 1-based page of `limit` items. */
  page?: number
  /**
   * Cursor: the list continues after the entity with this id, at its place in the requested order as
   * stored now, even when it no longer matches `where`; in `id` order even when it was deleted
   * (docs/storage.md#cursors). Otherwise an id the store does not hold gives an empty page.
   */
  starting_after_id?: string
  /** `false`: the caller does not need `total`; a store may then skip counting (and report what it has). */
  count?: boolean
}

export interface Page<T> {
  data: StoredRow<T>[]
  /** The number of matches (with `count: false`, a store may report a lower bound). */
  total: number
  has_more: boolean
  /** The id to pass as `starting_after_id` for the next page, or null at the end. */
  more_starting_after: string | null
}

export interface Repository<C extends CollectionName> {
  get(id: string): Promise<StoredRow<Entity<C>> | undefined>
  /** The entities found, in the order of `ids`; unknown ids are skipped. */
  getMany(ids: readonly string[]): Promise<StoredRow<Entity<C>>[]>
  /** By natural key: a single-field key takes a string, a composite key one string per field. */
  findBy(key: NaturalKey<C>, value: string | readonly string[]): Promise<StoredRow<Entity<C>> | undefined>
  /** Several look-ups of one natural key at once: the entities found, in the order of `values`. */
  findMany(key: NaturalKey<C>, values: readonly (string | readonly string[])[]): Promise<StoredRow<Entity<C>>[]>
  list(query?: ListQuery): Promise<Page<Entity<C>>>
}

/**
 * A bound an incremented field must respect after the increment (`min`, `max`: inclusive). If it
 * would not, the commit writes nothing and reports a `guard` conflict with the values it found.
 * Bounds stored in the entity itself are read at commit, never as the decision read them
 * (docs/storage.md#counters): a quantity lowered meanwhile is never overrun.
 */
export interface Guard {
  min?: number
  max?: number
  /**
   * An upper bound read from a dotted field of the same entity as stored at commit (after the
   * increment's own `set`): `redemption.quantity`. A missing or null field means no bound.
   */
  maxOf?: string
  /**
   * Other dotted fields of the same entity (after the increment) added to the guarded field before
   * it is compared with `min`, `max` and `maxOf`: uses plus live session locks within a quantity.
   */
  plus?: readonly string[]
}

/**
 * What a guard compares, on an entity's value after the increment: the guarded field plus its `plus`
 * fields (absent ones count 0), and the upper bound (the lower of `max` and the stored `maxOf`). The
 * rule every store applies; the memory store calls it, PostgreSQL's commit function does the same in SQL.
 */
export function guardCheck(
  value: unknown,
  path: string,
  guard: Guard,
  read: (value: unknown, path: string) => unknown,
): { value: number; max: number | undefined; ok: boolean } {
  const num = (x: unknown) => (typeof x === 'number' ? x : 0)
  let n = num(read(value, path))
  for (const p of guard.plus ?? []) n += num(read(value, p))
  let max = guard.max
  if (guard.maxOf !== undefined) {
    const stored = read(value, guard.maxOf)
    if (typeof stored === 'number') max = max === undefined ? stored : Math.min(max, stored)
  }
  const ok = !(guard.min !== undefined && n < guard.min) && !(max !== undefined && n > max)
  return { value: n, max, ok }
}

/**
 * One write. `expectedVersion` is the version that was read: the commit fails if the stored
 * version differs. `null` means "must not exist yet" (an insert). `shape` is the shape version the
 * value is written in: the store keeps it with the value and returns it with every read
 * (docs/storage.md#shape-versions).
 */
export type Write =
  | {
      [C in CollectionName]: {
        op: 'put'
        collection: C
        value: Entity<C>
        expectedVersion: number | null
        shape: number
      }
    }[CollectionName]
  | { op: 'delete'; collection: CollectionName; id: string; expectedVersion: number }
  /**
   * Adds to numeric fields of an entity (dotted paths; a missing field counts as 0) without naming a
   * version: counters many requests bump at once commute, so they need no version check. `guard`
   * bounds fields after the increment (`redeemed + 1 ≤ quantity`, `balance − x ≥ 0`): checked against
   * the newest stored value, so concurrent commits can never together pass a limit. `create` makes the
   * entity when it does not exist yet (an upsert; counter rows are created by their first increment);
   * without it a missing entity is a `missing` conflict. `set` assigns plain fields alongside (an
   * `updated_at`). The entity's version moves, so a `put` from an
   * older read conflicts. SQL: `UPDATE … SET n = n + $1, version = version + 1 WHERE id = $2 AND n + $1 <= $3`.
   */
  | {
      op: 'increment'
      collection: CollectionName
      id: string
      by: Record<string, number>
      guard?: Record<string, Guard>
      create?: Record<string, unknown>
      /** Fields set to these values (dotted paths) with the increment: `updated_at`, last commit wins. */
      set?: Record<string, unknown>
      /**
       * Top-level fields removed after the additions and assignments (one already absent stays absent,
       * so concurrent removals of one field all land): a counter's stale period fields
       * (docs/storage.md#counters). Guards check the value without them.
       */
      unset?: readonly string[]
      /**
       * The shape version of the entity `create` makes (1 when absent; the engine always names it).
       * An increment of an existing entity leaves its shape as it was: it changes numbers only.
       */
      shape?: number
    }
  /**
   * Takes `amount` points from a loyalty card's spendable buckets at commit, in spending order
   * (docs/storage.md#taking-points): `points_buckets` of `voucher_id` = `id`, ACTIVE, with points
   * `remaining`, not expired at `now` (`expires_at` null or after it), soonest `expires_at` first
   * (never-expiring last), then by `created_at`, then by id. Each bucket taken from loses the part
   * from `remaining` (SPENT at zero) and gets a new version. It applies after every other write of
   * the changeset (takes in their order), on the state they leave, so it sees what the previous
   * commit took: a guarded decrement of the card's balance in the same changeset locks the card
   * first and serialises the spends of one card. Too few points: a `guard` conflict on the card's id
   * (`remaining`, the shortfall as a negative value, `min: 0`). `record` names an entity this
   * changeset puts and a dotted field that receives what was taken, `[{ bucketId, points }]`.
   */
  | {
      op: 'take'
      collection: 'points_buckets'
      /** The card (`voucher_id`) whose buckets give. */
      id: string
      amount: number
      /** ISO instant: buckets expiring at or before it are not spent. */
      now: string
      record?: { collection: CollectionName; id: string; path: string }
    }

/** What a `take` took from one bucket. */
export interface TakenPart {
  bucketId: string
  points: number
}

/**
 * The spending order of a take (docs/storage.md#taking-points): soonest expiry first, never-expiring
 * last, then by creation (an absent one first), then by id: the order of the declared index
 * `(voucher_id, status, expires_at)` sorted by `created_at`, which every store walks, stopping once
 * the amount is taken. A date that does not parse reads as absent, as the indexes read it.
 */
export function takeOrder(
  a: { id: string; expires_at?: unknown; created_at?: unknown },
  b: { id: string; expires_at?: unknown; created_at?: unknown },
): number {
  const ms = (x: unknown, absent: number) => {
    const t = typeof x === 'string' ? parseInstant(x) : Number.NaN
    return Number.isNaN(t) ? absent : t
  }
  const ea = ms(a.expires_at, Number.POSITIVE_INFINITY)
  const eb = ms(b.expires_at, Number.POSITIVE_INFINITY)
  if (ea !== eb) return ea < eb ? -1 : 1
  const ca = ms(a.created_at, Number.NEGATIVE_INFINITY)
  const cb = ms(b.created_at, Number.NEGATIVE_INFINITY)
  if (ca !== cb) return ca < cb ? -1 : 1
  return a.id === b.id ? 0 : a.id < b.id ? -1 : 1
}

/**
 * Writes apply in order: a second write to the same entity names the version the first one leaves
 * (an insert gives a version, each put adds one). Natural keys are checked on the final state.
 */
export interface Changeset {
  writes: Write[]
  /**
   * What to commit instead of `writes` when guards fail (docs/storage.md#alternatives): the store
   * applies the first alternative `chooseAlternative` picks, in the same commit, or reports the
   * failed guard as usual when none fits.
   */
  alternatives?: Alternative[]
}

/** One guard of a changeset: the incremented entity and the field it bounds. */
export interface GuardRef {
  collection: CollectionName
  id: string
  path: string
}

/**
 * Writes that answer a failed guard (docs/storage.md#alternatives): what the operation would commit
 * had it decided on the value the guard found, such as a failed redemption. It fits when its guard
 * `when` failed with a value (after the increment, as the guard checks it) within `min`..`max`, and
 * every other failed guard is one of `tolerate`; a conflict of any other kind never lets it apply.
 */
export interface Alternative {
  when: GuardRef & Guard
  /** Guards that may fail too without changing the answer. */
  tolerate?: readonly GuardRef[]
  writes: Write[]
}

export type ConflictReason = 'version' | 'exists' | 'missing' | 'unique' | 'guard'

export interface Conflict {
  collection: CollectionName
  id: string
  reason: ConflictReason
  /** The natural key, for `unique`. */
  key?: string
  /**
   * For `guard`: the field, the value the increment would have given (with its `plus` fields), and
   * the guard it broke; `max` is the bound in force at commit (the lower of `max` and `maxOf`'s field).
   */
  guard?: { path: string; value: number } & Guard
}

export type CommitResult =
  | {
      ok: true
      /**
       * The commit's position in the change feed, one per commit: a reader past a position never
       * meets a commit below it later (docs/storage.md#change-feed).
       */
      seq: number
      /** The new version of every entity written, keyed `collection/id`. */
      versions: Record<string, number>
      /** The value after the commit of every incremented entity, keyed `collection/id`. */
      values: Record<string, unknown>
      /** The shape version of each value in `values` (an increment keeps the entity's shape), same keys. */
      shapes: Record<string, number>
      /**
       * Set when an alternative was committed instead of the writes: its position in `alternatives`
       * and every guard of the writes that failed (each a `guard` conflict with the value it found).
       */
      alternative?: { index: number; failed: Conflict[] }
    }
  | { ok: false; conflict: Conflict }

/**
 * The alternative a commit applies when the guards `failed` (in the order the store checked them)
 * failed and no conflict of another kind occurred: the first whose guard is among them with a value
 * in its range and that tolerates every other one; -1 when none fits (docs/storage.md#alternatives).
 */
export function chooseAlternative(alternatives: readonly Alternative[], failed: readonly Conflict[]): number {
  const same = (a: GuardRef, c: Conflict) => a.collection === c.collection && a.id === c.id && a.path === c.guard?.path
  const within = (when: Guard, value: number | undefined) =>
    value !== undefined &&
    !(when.min !== undefined && value < when.min) &&
    !(when.max !== undefined && value > when.max)
  return alternatives.findIndex(({ when, tolerate = [] }) => {
    const own = failed.filter((c) => same(when, c))
    return (
      own.length > 0 &&
      own.every((c) => within(when, c.guard?.value)) &&
      failed.every((c) => same(when, c) || tolerate.some((t) => same(t, c)))
    )
  })
}

/** One entity written by a commit, as the change feed reports it. */
export interface Change {
  seq: number
  collection: CollectionName
  id: string
  op: 'put' | 'delete'
  /** The version the commit left (for a delete: the version deleted). */
  version: number
  /** The value the commit wrote (null for a delete). */
  value: unknown
  /**
   * The shape version `value` was stored in; null for a delete, or when the store does not know it
   * (the engine then takes the value as it is).
   */
  shape: number | null
}

export interface ChangesQuery {
  /** Changes of commits after this sequence number (default 0: from the start). */
  after?: number
  limit?: number
  collections?: readonly CollectionName[]
}

export interface ChangePage {
  data: Change[]
  has_more: boolean
  /** The sequence number to pass as `after` for the next page (the last commit read). */
  next_after: number
}

/** What `trimChanges` deletes: the oldest commits made long enough ago (docs/storage.md#trimming-the-feed). */
export interface TrimChangesQuery {
  /**
   * Changes of commits made at least this many seconds ago (by the store's clock) go; 0: every
   * commit made so far. A store may keep a change longer (PostgreSQL dates commits by the marks its
   * trims leave), never shorter.
   */
  olderThanSeconds: number
  /** At most this many changes read per call, oldest first (1 to 10,000; 1,000 by default). */
  limit?: number
}

/**
 * A `trimChanges` query as every store applies it: `limit` defaulted to 1,000; a negative or
 * non-finite age, or a limit that is not a whole number from 1 to 10,000, is a 400 naming the field,
 * before anything is read or deleted.
 */
export function trimBounds(query: TrimChangesQuery): { olderThanSeconds: number; limit: number } {
  const { olderThanSeconds, limit = 1000 } = query
  const bad = (path: string, rule: string) =>
    new EngineError({ code: 400, key: 'invalid_payload', message: 'Invalid payload', details: `${path} ${rule}`, path })
  if (typeof olderThanSeconds !== 'number' || !Number.isFinite(olderThanSeconds) || olderThanSeconds < 0)
    throw bad('olderThanSeconds', 'must be a number of seconds, 0 or more')
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw bad('limit', 'must be a whole number from 1 to 10,000')
  return { olderThanSeconds, limit }
}

/** What one call of `trimChanges` deleted, and whether to call again. */
export interface TrimChangesResult {
  /** Changes deleted: whole commits only, so a reader never meets part of one. */
  deleted: number
  /** The call took as many as `limit` allows and all of them were old enough: call again. */
  has_more: boolean
}

export type Repositories = { [C in CollectionName]: Repository<C> }

export interface Store extends Repositories {
  /**
   * True when the store works inside a transaction its host opened (docs/postgres.md#host-transaction):
   * the engine then makes one attempt and reports a conflict or a failed guard as a 409, for the host
   * to retry its whole transaction, instead of deciding again on its own.
   */
  readonly hostTransaction?: boolean
  /**
   * True when the store answers reads in this process, without a round trip (the memory store): the
   * engine then keeps no load hints unless its `loadHints` asks (docs/postgres.md#loads), since they
   * save round trips and would only plan a request's second level of reads twice.
   */
  readonly inProcess?: boolean
  /** Applies every write or none, whatever throws. Never throws for a conflict: it reports it. */
  commit(changeset: Changeset): Promise<CommitResult>
  /** What commits wrote, in commit order, after a cursor: the change feed (docs/storage.md#change-feed). */
  changes(query?: ChangesQuery): Promise<ChangePage>
  /**
   * Deletes the oldest commits' changes from the feed, those made `olderThanSeconds` ago or earlier,
   * whole commits at a time: retention for a feed nothing reads past a point (docs/storage.md#trimming-the-feed).
   */
  trimChanges(query: TrimChangesQuery): Promise<TrimChangesResult>
}

export interface Clock {
  now(): Date
}

/** Makes a new id with the given prefix (`camp_`, `v_`, …). */
export type IdGenerator = (prefix: string) => string

/** A uniform random number in [0, 1). Injected so codes and ids are reproducible in tests. */
export type RandomSource = () => number
