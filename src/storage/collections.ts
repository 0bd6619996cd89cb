import type { AsyncAction } from '../model/async-action'
import type { AccessToken, Credential } from '../model/auth'
import type { Campaign } from '../model/campaign'
import type { CardTransaction } from '../model/card-transaction'
import type { Category } from '../model/common'
import type { ActivityEvent, Customer } from '../model/customer'
import type { Export } from '../model/export'
import type { FileChunk, StoredFile } from '../model/file'
import type { IdempotencyRecord } from '../model/idempotency'
import type {
  EarningRule,
  LoyaltyTier,
  MemberTierState,
  PointsBucket,
  Reward,
  RewardAssignment,
} from '../model/loyalty'
import type { MetadataSchema } from '../model/metadata-schema'
import type { Order, OrderSnapshot } from '../model/order'
import type { Product, ProductCollection, Sku } from '../model/product'
import type { PromotionStack, PromotionTier } from '../model/promotion'
import type { Publication, RedeemableHolder } from '../model/publication'
import type { StoredRedemption, StoredRollback, ValidationSession } from '../model/redemption'
import type { StackingRules } from '../model/stacking'
import type { CampaignTemplate } from '../model/template'
import type { ValidationRule, ValidationRuleAssignment } from '../model/validation-rule'
import type { Voucher } from '../model/voucher'

/** What the engine stores: its collections, their entities and their natural keys (docs/storage.md). */

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
  order_snapshots: OrderSnapshot
  redemptions: StoredRedemption
  redemption_rollbacks: StoredRollback
  sessions: ValidationSession
  earning_rules: EarningRule
  loyalty_tiers: LoyaltyTier
  member_tiers: MemberTierState
  points_buckets: PointsBucket
  card_transactions: CardTransaction
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
  counters: Counter
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

/**
 * A stored count or sum that rules read and commits bump with guarded increments: redemptions per
 * redeemable, campaign, customer and calendar period, amounts, balances (docs/storage.md#counters).
 * Its id names what it counts; its fields are numbers, absent fields count as 0.
 */
export interface Counter {
  id: string
  [field: string]: number | string | undefined
}

export type CollectionName = keyof Collections
export type Entity<C extends CollectionName> = Collections[C]

/** Every collection, in the order stores create and list them. */
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
  'card_transactions',
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

/**
 * Natural keys: unique per collection, looked up with `findBy` / `findMany`. A key is one field or
 * several (a composite key, looked up with an array of values); an entity whose key fields are not
 * all strings holds no key. A commit that would give two entities the same natural key is rejected
 * with a `unique` conflict.
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
} as const satisfies { [C in CollectionName]?: readonly (string | readonly string[])[] }

/** The natural key fields declared for a collection (`never` when it has none). */
export type KeySpec<C extends CollectionName> = C extends keyof typeof NATURAL_KEYS
  ? (typeof NATURAL_KEYS)[C][number]
  : never
/** A natural key's name: the field, or the fields of a composite key joined with `+`. */
export type NaturalKey<C extends CollectionName> =
  KeySpec<C> extends infer K ? (K extends string ? K : K extends readonly string[] ? JoinKey<K> : never) : never
/** A composite key's fields joined with `+`. */
export type JoinKey<K extends readonly string[]> = K extends readonly [
  infer A extends string,
  ...infer R extends string[],
]
  ? R extends []
    ? A
    : `${A}+${JoinKey<R>}`
  : string

/** The natural keys of a collection as field lists (a single-field key is a list of one). */
export function naturalKeysOf(collection: CollectionName): readonly (readonly string[])[] {
  const keys = (NATURAL_KEYS as Partial<Record<CollectionName, readonly (string | readonly string[])[]>>)[collection]
  return (keys ?? []).map((k) => (typeof k === 'string' ? [k] : k))
}
