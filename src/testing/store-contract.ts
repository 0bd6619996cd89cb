import type { IndexDeclarations, Store } from 'promo-engine/storage'
import {
  alternativeApplied,
  alternativeConflicts,
  alternativeNotApplied,
  alternativesByValue,
  alternativeTolerates,
  concurrentAlternatives,
} from './alternatives'
import {
  concurrentCounter,
  concurrentDisjoint,
  concurrentIncrements,
  concurrentSameId,
  concurrentSameKey,
  concurrentSameVersion,
  concurrentTwoEntities,
} from './concurrency'
import { elementsFollowWrites, listByElements } from './elements'
import { changeFeed, findManyByKey, shapeVersions, trimmedFeed, undeclaredListsRefused } from './feed'
import { campaign, customer, product, voucher } from './fixtures'
import { concurrentGuards, counterUpserts, fieldRemovals, guardedIncrements, storedBounds } from './guards'
import { isolationOfInput, isolationOfReads } from './isolation'
import {
  LISTING_INDEXES,
  listCursors,
  listCursorsAfterChange,
  listDefaultOrder,
  listEqualityFilters,
  listOrder,
  listPages,
  listRangeFilters,
  listUnreadableDates,
} from './listing'
import { keysPerCollection, missingNaturalKeys, roundTrip, unknownReads } from './reads'
import { sparseIndexes } from './sparse'
import { concurrentTakes, takesInSpendingOrder } from './takes'
import {
  deleteWithVersion,
  incrementCounters,
  insertExisting,
  moveNaturalKey,
  sequentialWrites,
  uniqueAcrossEntities,
  uniqueWithinChangeset,
  updateBumpsVersion,
  writeMissing,
  wrongVersionWritesNothing,
} from './writes'

/**
 * The storage contract as runnable cases, so any adapter (SQL, KV, the memory store) proves it
 * honours what operations rely on: atomic versioned commits, natural-key uniqueness, listing and
 * both kinds of pagination, isolation of stored values, and correctness under concurrent commits.
 *
 * Framework-agnostic on purpose (assertions are `node:assert/strict`): a host runs
 * `for (const c of storeContract(({ indexes }) => make({ indexes }))) it(c.name, c.run)` in vitest, jest, mocha or `node:test`.
 * Every case calls `makeStore` for a fresh, empty store.
 */
export interface ContractCase {
  name: string
  run: () => Promise<void>
}

export interface StoreContractOptions {
  /** How many commits the concurrency cases launch at once (default 50). */
  concurrency?: number
}

/**
 * What the suite asks of the store it makes: the indexes to declare beyond the engine's own (the
 * listing cases filter and sort customers by fields of their own).
 */
export interface StoreSetup {
  indexes: IndexDeclarations
}

export function storeContract(
  makeStore: (setup: StoreSetup) => Store | Promise<Store>,
  options: StoreContractOptions = {},
): ContractCase[] {
  const n = options.concurrency ?? 50
  const cases: [string, (store: Store) => Promise<void>][] = [
    // Reads
    [
      'insert then get, getMany and findBy a voucher by code',
      (s) => roundTrip(s, 'vouchers', voucher('v_1', 'SUMMER')),
    ],
    [
      'insert then get, getMany and findBy a customer by source_id',
      (s) => roundTrip(s, 'customers', customer('cust_1', 'alice')),
    ],
    [
      'insert then get, getMany and findBy a product by source_id',
      (s) => roundTrip(s, 'products', product('prod_1', 'sku-shoe')),
    ],
    [
      'insert then get, getMany and findBy a campaign by name',
      (s) => roundTrip(s, 'campaigns', campaign('camp_1', 'Black Friday')),
    ],
    ['unknown ids and keys read as undefined; getMany skips them', unknownReads],
    ['entities without a natural key value do not collide', missingNaturalKeys],
    ['natural keys are unique per collection, not across collections', keysPerCollection],
    // Versioned writes
    ['an update naming the read version bumps the version by one and replaces the value', updateBumpsVersion],
    ['a wrong version is a version conflict and the whole changeset writes nothing', wrongVersionWritesNothing],
    ['inserting an existing id is an exists conflict and writes nothing', insertExisting],
    ['updating or deleting a missing entity is a missing conflict', writeMissing],
    ['delete checks the version, removes the entity and frees its natural key', deleteWithVersion],
    ['a natural key held by another entity is a unique conflict and writes nothing', uniqueAcrossEntities],
    ['two writes claiming one natural key in one changeset are a unique conflict', uniqueWithinChangeset],
    ['a changeset may move a natural key from one entity to another', moveNaturalKey],
    ['several writes to one entity in one changeset apply in order', sequentialWrites],
    ['an increment adds to counters, moves the version, and needs the entity to exist', incrementCounters],
    ['a guarded increment commits within its bound and reports a guard conflict past it', guardedIncrements],
    ['an increment with create makes a counter row on first use', counterUpserts],
    ['an increment removes top-level fields (unset), idempotent under concurrency', fieldRemovals],
    ['a guard reads its bound from the entity at commit (maxOf) and adds other fields to its own (plus)', storedBounds],
    ['findMany looks up several natural keys at once', findManyByKey],
    [
      "a take spends a card's points in spending order at commit, records them, or reports the shortfall",
      takesInSpendingOrder,
    ],
    // Alternatives
    ['a failed guard commits the alternative that answers it instead of the writes', alternativeApplied],
    [
      'no alternative applies when the writes pass, the value is out of its range, another guard or conflict fails',
      alternativeNotApplied,
    ],
    ['the first alternative that fits applies; it may tolerate other failed guards', alternativeTolerates],
    ["an alternative's own conflict is reported and it writes nothing", alternativeConflicts],
    // Change feed and shapes
    ['every commit gets a sequence number; changes are read after a cursor in commit order', changeFeed],
    ['the feed is trimmed oldest first, whole commits, only what is old enough', trimmedFeed],
    ['every read returns the shape version the write named', shapeVersions],
    // Listing
    ['a list by an undeclared field or order is refused', undeclaredListsRefused],
    ['list defaults to created_at ascending and reports total', listDefaultOrder],
    ['list filters by equality, null, in and dotted paths', listEqualityFilters],
    ['list filters dates by before/after (exclusive) and numbers by gte/lte (inclusive)', listRangeFilters],
    ['list orders asc/desc by a field, ties broken by id in the same direction', listOrder],
    ['a timestamp that is not an instant (30 February, a word) lists as absent', listUnreadableDates],
    ['list pages with limit and page', listPages],
    ['cursor pagination walks every item once, ascending and descending', listCursors],
    ['a cursor keeps its place when its row leaves the filter, or in id order is deleted', listCursorsAfterChange],
    ['a multi-valued index lists an entity by any element of an array field, once', listByElements],
    ['a multi-valued index follows updates, deletes and failed commits', elementsFollowWrites],
    [
      'a sparse index holds only entities with its fields; a list asking them absent uses another index or is refused',
      sparseIndexes,
    ],
    // Isolation
    ['the caller cannot change a stored value through what it passed in', isolationOfInput],
    ['the caller cannot change a stored value through what it read', isolationOfReads],
    // Concurrency
    [`${n} concurrent commits from one read version: exactly one wins`, (s) => concurrentSameVersion(s, n)],
    [`${n} concurrent two-entity commits: one winner writes both entities`, (s) => concurrentTwoEntities(s, n)],
    [`${n} concurrent inserts of one natural key: exactly one wins`, (s) => concurrentSameKey(s, n)],
    [`${n} concurrent inserts of one id: exactly one wins`, (s) => concurrentSameId(s, n)],
    [`${n} concurrent non-overlapping commits all succeed`, (s) => concurrentDisjoint(s, n)],
    [`${n} concurrent read-modify-write loops lose no update`, (s) => concurrentCounter(s, n)],
    [`${n} concurrent increments of one counter all land`, (s) => concurrentIncrements(s, n)],
    [`${n} concurrent guarded increments: exactly what fits commits`, (s) => concurrentGuards(s, n)],
    [
      `${n} concurrent spends of one card's points with takes: what fits commits, each in one round`,
      (s) => concurrentTakes(s, n),
    ],
    [
      `${n} concurrent guarded increments with alternatives: what fits commits, the rest their alternatives`,
      (s) => concurrentAlternatives(s, n),
    ],
    [
      `${n} concurrent takes of several units, with one alternative per value found: the limit fills exactly`,
      (s) => alternativesByValue(s, n),
    ],
  ]
  return cases.map(([name, body]) => ({
    name,
    run: async () => body(await makeStore({ indexes: LISTING_INDEXES })),
  }))
}
