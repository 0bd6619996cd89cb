/**
 * `promo-engine/storage`: the storage contract for adapter authors (docs/storage.md). What a store
 * implements (`Store`: one repository per collection, `commit`, `changes`, `trimChanges`), what it stores (the
 * collections, their entities, natural keys and declared indexes, the shape version each value is
 * stored and returned with), `chooseAlternative`, the rule every store applies to a changeset's alternatives, and `takeOrder`, the
 * order in which a `take` spends a card's buckets.
 * `promo-engine/testing` proves an adapter against it. `etc/promo-engine-storage.api.md` records it.
 */
export type * from '../model'
export type { JsonDiff } from '../rules/json-diff'
export type {
  CollectionName,
  Collections,
  Counter,
  Entity,
  JoinKey,
  KeySpec,
  Lock,
  NaturalKey,
} from './collections'
export { COLLECTIONS, NATURAL_KEYS, naturalKeysOf } from './collections'
export type { IndexDeclaration, IndexDeclarations, IndexField, IndexType } from './indexes'
export { INDEXES, indexesOf, isMultiValued } from './indexes'
export type {
  Alternative,
  Change,
  ChangePage,
  Changeset,
  ChangesQuery,
  Clock,
  CommitResult,
  Conflict,
  ConflictReason,
  FieldFilter,
  Guard,
  GuardRef,
  IdGenerator,
  ListQuery,
  OrderDirection,
  Page,
  RandomSource,
  Repositories,
  Repository,
  Store,
  Stored,
  StoredRow,
  TakenPart,
  TrimChangesQuery,
  TrimChangesResult,
  Write,
} from './ports'
export { chooseAlternative, takeOrder, trimBounds } from './ports'
