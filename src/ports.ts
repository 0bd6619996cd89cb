import type { Campaign } from './model/campaign'
import type { Category } from './model/common'
import type { ActivityEvent, Customer } from './model/customer'
import type { IdempotencyRecord } from './model/idempotency'
import type { EarningRule, LoyaltyTier, MemberTierState, PointsBucket, Reward, RewardAssignment } from './model/loyalty'
import type {
  AccessToken,
  AsyncAction,
  CampaignTemplate,
  Credential,
  Export,
  FileChunk,
  MetadataSchema,
  Publication,
  RedeemableHolder,
  StoredFile,
} from './model/misc'
import type { Order } from './model/order'
import type { Product, ProductCollection, Sku } from './model/product'
import type { PromotionStack, PromotionTier } from './model/promotion'
import type { Redemption, RedemptionRollback, ValidationSession } from './model/redemption'
import type { StackingRules } from './model/stacking'
import type { ValidationRule, ValidationRuleAssignment } from './model/validation-rule'
import type { Voucher } from './model/voucher'

/**
 * The storage contract. Operations read through repositories and write only through one
 * `commit(changeset)`: the store applies every write or none, checking each entity's version
 * (optimistic concurrency). A database adapter implements the same with one transaction and
 * conditional writes (`UPDATE … WHERE id = $1 AND version = $2`), plus unique indexes on the
 * natural keys below.
 */

/** Every resource the engine stores, by collection name. */
export interface Collections {
  campaigns: Campaign
  vouchers: Voucher
  promotion_tiers: PromotionTier
  promotion_stacks: PromotionStack
  categories: Category
  customers: Customer
  products: Product
  skus: Sku
  product_collections: ProductCollection
  validation_rules: ValidationRule
  validation_rule_assignments: ValidationRuleAssignment
  orders: Order
  redemptions: Redemption
  redemption_rollbacks: RedemptionRollback
  sessions: ValidationSession
  earning_rules: EarningRule
  loyalty_tiers: LoyaltyTier
  member_tiers: MemberTierState
  points_buckets: PointsBucket
  rewards: Reward
  reward_assignments: RewardAssignment
  publications: Publication
  activities: ActivityEvent
  metadata_schemas: MetadataSchema
  exports: Export
  files: StoredFile
  file_chunks: FileChunk
  async_actions: AsyncAction
  stacking_rules: StackingRules & { id: string }
  campaign_templates: CampaignTemplate
  redeemable_holders: RedeemableHolder
  credentials: Credential
  access_tokens: AccessToken
  locks: Lock
  idempotency_keys: IdempotencyRecord
}

/**
 * A row whose only job is its version: operations whose check spans many entities (a project-wide
 * limit) write the same lock, so concurrent ones serialise like writes of one entity.
 */
export interface Lock {
  id: string
  updated_at: string
}

export type CollectionName = keyof Collections
export type Entity<C extends CollectionName> = Collections[C]

/**
 * Natural keys: unique per collection, looked up with `findBy`. A commit that would give two
 * entities the same natural key is rejected like a version conflict.
 */
export const NATURAL_KEYS = {
  campaigns: ['name'],
  vouchers: ['code'],
  customers: ['source_id'],
  products: ['source_id'],
  skus: ['source_id'],
  orders: ['source_id'],
  metadata_schemas: ['related_object'],
  credentials: ['app_id'],
  access_tokens: ['token_hash'],
  categories: ['name'],
} as const satisfies { [C in CollectionName]?: readonly (keyof Entity<C> & string)[] }

export type NaturalKey<C extends CollectionName> = C extends keyof typeof NATURAL_KEYS
  ? (typeof NATURAL_KEYS)[C][number]
  : never

/** What a repository returns: the entity as stored and the version the next write must name. */
export interface Stored<T> {
  readonly value: T
  readonly version: number
}

export type OrderDirection = 'asc' | 'desc'

/**
 * A scalar equality filter (`null` also matches an absent field), a set, or a range on an ISO date
 * (`before`/`after`: exclusive) or number field (`gte`/`lte`: inclusive).
 */
export type FieldFilter =
  | string
  | number
  | boolean
  | null
  | { in: readonly (string | number)[] }
  | { before?: string; after?: string }
  | { gte?: number; lte?: number }

export interface ListQuery {
  /** Equality / range filters by top-level field name (dotted paths reach nested fields). */
  where?: Record<string, FieldFilter>
  /** Sort field (dotted paths allowed) and direction; ties break by id in the same direction. Default `created_at` asc. */
  order?: { field: string; direction: OrderDirection }
  limit?: number
  /** 1-based page of `limit` items. */
  page?: number
  /** Cursor: the list continues after the entity with this id (in the requested order). */
  starting_after_id?: string
  /** Skip computing `total` when the caller does not need it. */
  count?: boolean
}

export interface Page<T> {
  data: Stored<T>[]
  total: number
  has_more: boolean
  /** The id to pass as `starting_after_id` for the next page, or null at the end. */
  more_starting_after: string | null
}

export interface Repository<C extends CollectionName> {
  get(id: string): Promise<Stored<Entity<C>> | undefined>
  getMany(ids: readonly string[]): Promise<Stored<Entity<C>>[]>
  findBy(key: NaturalKey<C>, value: string): Promise<Stored<Entity<C>> | undefined>
  list(query?: ListQuery): Promise<Page<Entity<C>>>
}

/**
 * One write. `expectedVersion` is the version that was read: the commit fails if the stored
 * version differs. `null` means "must not exist yet" (an insert).
 */
export type Write =
  | {
      [C in CollectionName]: { op: 'put'; collection: C; value: Entity<C>; expectedVersion: number | null }
    }[CollectionName]
  | { op: 'delete'; collection: CollectionName; id: string; expectedVersion: number }
  /**
   * Adds to numeric fields of an existing entity (dotted paths) without naming a version: counters
   * many requests bump at once (a promotion tier's summary, the uses of an unlimited code) commute,
   * so they need no version check and never conflict. The entity's version still moves, so a `put`
   * from an older read conflicts. SQL: `UPDATE … SET n = n + $1, version = version + 1 WHERE id = $2`.
   */
  | { op: 'increment'; collection: CollectionName; id: string; by: Record<string, number> }

/**
 * Writes apply in order: a second write to the same entity names the version the first one leaves
 * (an insert gives a version, each put adds one). Natural keys are checked on the final state.
 */
export interface Changeset {
  writes: Write[]
}

export type CommitResult =
  /** `versions`: the new version of every entity put, keyed `collection/id`. */
  | { ok: true; versions: Record<string, number> }
  | {
      ok: false
      conflict: {
        collection: CollectionName
        id: string
        reason: 'version' | 'exists' | 'missing' | 'unique'
        key?: string
      }
    }

export type Repositories = { [C in CollectionName]: Repository<C> }

export interface Store extends Repositories {
  /** Applies every write or none. Never throws for a conflict: it reports it. */
  commit(changeset: Changeset): Promise<CommitResult>
}

export interface Clock {
  now(): Date
}

/** Makes a new id with the given prefix (`camp_`, `v_`, …). */
export type IdGenerator = (prefix: string) => string

/** A uniform random number in [0, 1). Injected so codes and ids are reproducible in tests. */
export type RandomSource = () => number
