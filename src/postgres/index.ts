/**
 * `promo-engine/postgres`: the storage contract on PostgreSQL (docs/postgres.md). Needs `pg`
 * (node-postgres), an optional peer dependency of the package; the core never imports this module.
 */

export type { CommitStep } from './commit-call'
export {
  type PoolClientLike,
  type PoolLike,
  planGenerically,
  type Queryable,
  type QueryConfigLike,
  type QueryResultLike,
  SESSION_SETTINGS,
} from './connection'
export { SCHEMA_VERSION } from './migrate'
export { createPostgresStore, type PostgresStore, type PostgresStoreOptions } from './postgres-store'
export type { CacheEvent } from './read-cache'
export type { PostgresStoreStats } from './statements'
export type { WarmOptions, WarmResult } from './warm-connections'
