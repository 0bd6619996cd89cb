import { COLLECTIONS } from '../../storage/collections'
import type {
  Change,
  ChangePage,
  ChangesQuery,
  CollectionName,
  CommitResult,
  Entity,
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
 * returns after its increments, the change feed). Collections that never changed shape are the
 * store's own repositories, untouched.
 */
export function upgradedStore(store: Store): Store {
  const repositories = Object.fromEntries(
    COLLECTIONS.map((c) => [c, UPGRADES[c] ? upgradedRepository(c, store[c]) : store[c]]),
  ) as Repositories
  // The store's methods are called on the store itself: an adapter may be a class instance.
  return {
    ...repositories,
    ...(store.hostTransaction === undefined ? {} : { hostTransaction: store.hostTransaction }),
    ...(store.inProcess === undefined ? {} : { inProcess: store.inProcess }),
    commit: (changeset) => store.commit(changeset).then(upgradeCommit),
    changes: (query) => store.changes(query).then(upgradePage),
    trimChanges: (query) => store.trimChanges(query),
  }
}

function upgradedRepository<C extends CollectionName>(collection: C, inner: Repository<C>): Repository<C> {
  type Row = StoredRow<Entity<C>>
  const one = (row: Row | undefined) => (row === undefined ? row : upgradeRow(collection, row))
  const many = (rows: Row[]) =>
    rows.some((r) => r.shape <= (UPGRADES[collection]?.length ?? 0)) ? (rows.map(one) as Row[]) : rows
  return {
    get: (id) => inner.get(id).then(one),
    getMany: (ids) => inner.getMany(ids).then(many),
    findBy: (key, value) => inner.findBy(key, value).then(one),
    findMany: (key, values) => inner.findMany(key, values).then(many),
    list: (query) =>
      inner.list(query).then((page: Page<Entity<C>>) => {
        const data = many(page.data)
        return data === page.data ? page : { ...page, data }
      }),
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
