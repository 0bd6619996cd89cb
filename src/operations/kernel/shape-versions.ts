import { COLLECTIONS } from '../../storage/collections'
import type {
  Change,
  ChangePage,
  Changeset,
  ChangesQuery,
  CollectionName,
  CommitResult,
  Entity,
  ListQuery,
  NaturalKey,
  Page,
  Repositories,
  Repository,
  Store,
  StoredRow,
} from '../../storage/ports'
import {
  dropNullOptionals,
  keepOrderCopy,
  upgradeAsyncAction,
  upgradeGiftVoucher,
  upgradeRedemption,
} from './shape-upgrades'

/*
 * Stored shape versions (docs/storage.md#shape-versions). Every write names the shape version its
 * value is in; a store keeps that number with the value and returns it with every read, and never
 * interprets it. The engine upgrades a value of an older shape here, as it reads it (every read of
 * `ctx.store` goes through `upgradedStore`), in one table per collection, so operations only ever
 * see the current shape. A change to what a collection stores adds the step from the previous shape
 * to the table below; the table is fixed when the module loads.
 */

type Upgrade = (value: Record<string, unknown>) => Record<string, unknown>

const as = (f: (value: never) => unknown): Upgrade => f as unknown as Upgrade

/**
 * Per collection: the step from shape n to n + 1, at index n - 1. Collections not listed are at shape 1.
 * Shape 2 (docs/behaviour.md#matching-the-hosted-service): hosted async action types and `progress`;
 * a redemption's related redemptions as `{id, date}`; optional objects omitted rather than `null`.
 * Files gained `status` and `expires_at` (a file of shape 1 was written whole: `READY`, kept).
 * (A member's tier dates became calendar dates too; that upgrade needs the engine's time zone and is
 * applied where standings are read, `src/operations/loyalty/member-tiers.ts`.)
 * Redemptions shape 3, rollbacks shape 2 (docs/storage.md#what-a-redemption-stores): a record refers
 * to its stored order instead of copying it; older records keep their copies.
 */
const UPGRADES: { readonly [C in CollectionName]?: readonly Upgrade[] } = Object.freeze({
  async_actions: [as(upgradeAsyncAction)],
  redemptions: [as(upgradeRedemption), keepOrderCopy],
  redemption_rollbacks: [keepOrderCopy],
  campaigns: [(v) => dropNullOptionals('campaigns', v)],
  earning_rules: [(v) => dropNullOptionals('earning_rules', v)],
  loyalty_tiers: [(v) => dropNullOptionals('loyalty_tiers', v)],
  validation_rules: [(v) => dropNullOptionals('validation_rules', v)],
  // Shape 2: files written over several commits have a status, and may expire (docs/http.md).
  files: [(v) => ({ status: 'READY', expires_at: null, ...v })],
  // Shape 2: a gift card's spent credits leave `subtracted_amount` (docs/behaviour.md#gift-card-balance).
  vouchers: [as(upgradeGiftVoucher)],
})

/** The shape version a collection's entities are written in today. */
export function currentShape(collection: CollectionName): number {
  return (UPGRADES[collection]?.length ?? 0) + 1
}

/** The value in the current shape: `value` itself when it is current (no copy). */
export function upgradeShape(collection: CollectionName, value: unknown, shape: number): unknown {
  const steps = UPGRADES[collection]
  if (!steps || shape > steps.length) return value
  let next = value as Record<string, unknown>
  for (let i = shape - 1; i < steps.length; i++) next = (steps[i] as Upgrade)(next)
  return next
}

/** A row read from the store, in the current shape: the row itself when it is current (no copy). */
function upgradeRow<T>(collection: CollectionName, row: StoredRow<T>): StoredRow<T> {
  const steps = UPGRADES[collection]
  if (!steps || row.shape > steps.length) return row
  return { value: upgradeShape(collection, row.value, row.shape) as T, version: row.version, shape: steps.length + 1 }
}

/** A change of the feed, its value in the current shape: the change itself when it is current. */
function upgradeChange(change: Change): Change {
  const steps = UPGRADES[change.collection]
  if (!steps || change.op !== 'put' || change.shape === null || change.shape > steps.length) return change
  return { ...change, value: upgradeShape(change.collection, change.value, change.shape), shape: steps.length + 1 }
}

/**
 * The store as the engine reads it: every value in its current shape (reads, the values a commit
 * returns after its increments, the change feed). Collections that never changed shape read the
 * store's own repositories as they answer.
 */
export function upgradedStore(store: Store): Store {
  const repositories = Object.fromEntries(
    COLLECTIONS.map((c) => [c, new EngineRepository(c, store[c])]),
  ) as unknown as Repositories
  // A literal spread from the repositories keeps fast properties (forty assigned one by one to an
  // instance make a dictionary of it). `commit` and `changes` are the same two functions for every
  // engine of a process, and call the store's own methods on the store itself (an adapter may be a
  // class instance, a host may replace a method after the engine is made).
  const upgraded: Upgraded = {
    ...repositories,
    ...(store.hostTransaction === undefined ? {} : { hostTransaction: store.hostTransaction }),
    [INNER]: store,
    commit: upgradedCommit,
    changes: upgradedChanges,
  }
  return upgraded
}

const INNER = Symbol('the store upgraded')

type Upgraded = Store & { readonly [INNER]: Store }

function upgradedCommit(this: Upgraded, changeset: Changeset): Promise<CommitResult> {
  return this[INNER].commit(changeset).then(upgradeCommit)
}

function upgradedChanges(this: Upgraded, query?: ChangesQuery): Promise<ChangePage> {
  return this[INNER].changes(query).then(upgradePage)
}

/**
 * Every collection's reads as the engine's operations call them: one class, so every engine of a
 * process calls the same five functions at each of its read sites, and the code optimised while
 * the first engine ran stays valid for the next one (docs/design.md#one-function-per-process); the
 * store's own repository is called as it is (a host's plain object, spread copy or class instance).
 */
class EngineRepository<C extends CollectionName> implements Repository<C> {
  /** How many upgrade steps the collection has: 0 returns the store's answers untouched. */
  private readonly steps: number
  constructor(
    private readonly collection: C,
    private readonly inner: Repository<C>,
  ) {
    this.steps = UPGRADES[collection]?.length ?? 0
  }

  get(id: string): Promise<StoredRow<Entity<C>> | undefined> {
    const read = this.inner.get(id)
    return this.steps === 0 ? read : read.then(this.one)
  }

  getMany(ids: readonly string[]): Promise<StoredRow<Entity<C>>[]> {
    const read = this.inner.getMany(ids)
    return this.steps === 0 ? read : read.then(this.many)
  }

  findBy(key: NaturalKey<C>, value: string | readonly string[]): Promise<StoredRow<Entity<C>> | undefined> {
    const read = this.inner.findBy(key, value)
    return this.steps === 0 ? read : read.then(this.one)
  }

  findMany(key: NaturalKey<C>, values: readonly (string | readonly string[])[]): Promise<StoredRow<Entity<C>>[]> {
    const read = this.inner.findMany(key, values)
    return this.steps === 0 ? read : read.then(this.many)
  }

  list(query?: ListQuery): Promise<Page<Entity<C>>> {
    const read = this.inner.list(query)
    if (this.steps === 0) return read
    return read.then((page) => {
      const data = this.many(page.data)
      return data === page.data ? page : { ...page, data }
    })
  }

  // Made once per repository, not per read: what each read's promise continues with.
  private readonly one = (row: StoredRow<Entity<C>> | undefined): StoredRow<Entity<C>> | undefined =>
    row === undefined ? row : upgradeRow(this.collection, row)

  private readonly many = (rows: StoredRow<Entity<C>>[]): StoredRow<Entity<C>>[] => {
    for (const row of rows) {
      if (row.shape <= this.steps) return rows.map(this.one) as StoredRow<Entity<C>>[]
    }
    return rows
  }
}

/** An increment keeps its entity's shape: the values a commit returns are upgraded like every read. */
function upgradeCommit(result: CommitResult): CommitResult {
  if (!result.ok) return result
  let values: Record<string, unknown> | undefined
  for (const [slot, value] of Object.entries(result.values)) {
    const collection = slot.slice(0, slot.indexOf('/')) as CollectionName
    const shape = result.shapes[slot] ?? currentShape(collection)
    if (shape >= currentShape(collection)) continue
    values ??= { ...result.values }
    values[slot] = upgradeShape(collection, value, shape)
  }
  if (!values) return result
  const shapes = Object.fromEntries(
    Object.keys(values).map((slot) => [slot, currentShape(slot.slice(0, slot.indexOf('/')) as CollectionName)]),
  )
  return { ...result, values, shapes }
}

function upgradePage(page: ChangePage): ChangePage {
  const data = page.data.map(upgradeChange)
  return data.every((c, i) => c === page.data[i]) ? page : { ...page, data }
}

/**
 * The change feed with every value in its current shape (docs/storage.md#change-feed): what a host
 * reads instead of `store.changes()`, so rows written by earlier versions of the engine read as the
 * engine itself sees them.
 */
export function readChangeFeed(store: Store, query?: ChangesQuery): Promise<ChangePage> {
  return store.changes(query).then(upgradePage)
}
