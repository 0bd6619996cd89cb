import type { CollectionName } from './collections'

/** What operations filter and sort on, per collection (docs/storage.md#indexes). */

/** How a declared index field is typed: a database adapter stores it in a column of that type. */
export type IndexType = 'text' | 'number' | 'timestamp' | 'boolean'
/**
 * A dotted path and its type. A path with `[]` after a segment (`targets[]`, `products[].id`) is
 * **multi-valued**: it reads every element of that array (a value that is not an array counts as
 * one element), and an entity is in the index once per distinct string element it holds, or under
 * `null` when it holds none (docs/storage.md#multi-valued-indexes). Multi-valued fields are `text`,
 * filtered by equality or `in` (an entity matches when one of its elements does), never sorted on.
 */
export type IndexField = readonly [path: string, type: IndexType]

/** Whether an index field path reads every element of an array (`targets[]`, `products[].id`). */
export function isMultiValued(path: string): boolean {
  return path.includes('[]')
}

/**
 * A declared index: equality on the `on` fields (all of them), entries ordered by `sort` then id.
 * A list is answered from the index whose `on` fields its `where` fixes by equality (or by `in`);
 * a range filter and the order then apply to the fields of that index's entries.
 */
export interface IndexDeclaration {
  on: readonly IndexField[]
  sort: IndexField
  /**
   * Holds only the entities that have every `on` field (docs/storage.md#sparse-indexes): one missing
   * any is not in it, so an insert that leaves them absent writes no entry. A list asking for an `on`
   * field to be absent is answered from another index, or refused when only a scan would answer it.
   */
  sparse?: true
}

export type IndexDeclarations = { [C in CollectionName]?: readonly IndexDeclaration[] }

const text = (path: string): IndexField => [path, 'text']
const time = (path: string): IndexField => [path, 'timestamp']
const CREATED = time('created_at')

/**
 * What operations filter and sort on, per collection (docs/storage.md#indexes). Every collection is
 * also listed whole by `id`, and all but a few by `created_at`. Every index here serves a list of an
 * operation (docs/postgres.md#schema lists them for the tables a redemption writes): each is an entry
 * every insert pays. Operations list by nothing else: the memory store
 * refuses a `where` or an `order` on an undeclared field, so a query that would scan is a bug found
 * by the tests, not by production latency.
 */
export const INDEXES: IndexDeclarations = {
  campaigns: [
    { on: [text('campaign_type')], sort: CREATED },
    { on: [text('campaign_type')], sort: time('updated_at') },
    { on: [text('campaign_type')], sort: text('name') },
  ],
  vouchers: [
    { on: [text('campaign_id')], sort: CREATED },
    { on: [text('campaign_id'), text('holder_id')], sort: CREATED },
    // A campaign's free codes from a random key on (docs/storage.md#claims).
    { on: [text('campaign_id'), text('holder_id')], sort: text('id') },
    // A customer's wallet (qualifications).
    { on: [text('holder_id')], sort: CREATED },
  ],
  promotion_tiers: [
    { on: [text('campaign_id')], sort: CREATED },
    // The tiers a qualification considers: active ones by what their rules target
    // (src/rules/qualifications/targets.ts), so it reads only those that could reach the cart.
    { on: [['active', 'boolean'], text('targets[]')], sort: CREATED },
    // Without a cart every active tier is a candidate.
    { on: [['active', 'boolean']], sort: CREATED },
  ],
  promotion_stacks: [
    { on: [], sort: time('updated_at') },
    { on: [], sort: text('name') },
    { on: [text('campaign_id')], sort: CREATED },
    { on: [text('campaign_id')], sort: time('updated_at') },
    { on: [text('campaign_id')], sort: text('name') },
  ],
  // The collections holding any of a cart's products or SKUs (qualifications).
  product_collections: [{ on: [text('products[].id')], sort: CREATED }],
  skus: [
    { on: [text('product_id')], sort: CREATED },
    { on: [text('product_id')], sort: time('updated_at') },
    { on: [text('product_id')], sort: text('sku') },
  ],
  validation_rule_assignments: [
    { on: [text('related_object_id')], sort: CREATED },
    { on: [text('rule_id')], sort: CREATED },
  ],
  redemptions: [
    { on: [text('related_object_id')], sort: time('date') },
    // A campaign's redemptions: the parent of a stackable redemption names no campaign.
    { on: [text('related_object_parent_id')], sort: time('date'), sparse: true },
    { on: [text('customer_id')], sort: time('date') },
    { on: [text('customer_id'), text('channel.channel_type')], sort: time('date') },
  ],
  redemption_rollbacks: [
    { on: [text('redemption')], sort: time('date') },
    // A card's rollbacks by date (its balance history in a transactions export).
    { on: [text('related_object_id')], sort: time('date') },
    // A campaign's rollbacks by date (the transactions export pages through them).
    { on: [text('related_object_parent_id')], sort: time('date') },
    // A customer's rollbacks (the summary backfill, docs/behaviour.md#customer-summary).
    { on: [text('customer_id')], sort: time('date') },
  ],
  orders: [
    // A customer's orders (the summary backfill, docs/behaviour.md#customer-summary).
    { on: [text('customer_id')], sort: CREATED },
    // A customer's newest PAID or FULFILLED order (its summary's last order).
    { on: [text('customer_id'), text('status')], sort: CREATED },
  ],
  sessions: [
    // A session's own locks, released or not: a few rows, whatever the code's live locks (docs/storage.md#session-locks).
    { on: [text('key')], sort: CREATED },
    // A code's unreleased locks by expiry: the expired ones a request releases first (docs/storage.md#session-locks).
    { on: [text('voucher_id'), text('released_at')], sort: time('expires_at') },
    { on: [], sort: time('expires_at') },
  ],
  earning_rules: [{ on: [text('campaign_id')], sort: CREATED }],
  loyalty_tiers: [{ on: [text('campaign_id')], sort: CREATED }],
  member_tiers: [
    { on: [text('voucher_id')], sort: CREATED },
    { on: [text('customer_id')], sort: CREATED },
  ],
  points_buckets: [
    { on: [text('voucher_id')], sort: CREATED },
    // A card's live buckets: what a spend, an expiry or an activation can move.
    { on: [text('voucher_id'), text('status')], sort: CREATED },
    // A card's spending order (docs/storage.md#loyalty-cards-and-their-buckets): the spendable buckets
    // soonest-expiring first, read a page at a time until a spend is covered; also those already past
    // their expiry and not swept yet.
    { on: [text('voucher_id'), text('status')], sort: time('expires_at') },
    // Then the never-expiring ones, oldest first.
    { on: [text('voucher_id'), text('status'), time('expires_at')], sort: CREATED },
  ],
  // A campaign's card transactions by date (its transactions export), and a card's (its balance history).
  card_transactions: [
    { on: [text('campaign_id')], sort: CREATED },
    { on: [text('voucher_id')], sort: CREATED },
  ],
  reward_assignments: [
    { on: [text('related_object_id')], sort: CREATED },
    { on: [text('related_object_id'), text('reward_id')], sort: CREATED },
    { on: [text('related_object_id'), ['parameters.loyalty.auto_redeem', 'boolean']], sort: CREATED },
  ],
  publications: [
    { on: [text('source_id')], sort: CREATED },
    { on: [text('campaign_id'), text('source_id')], sort: CREATED },
    { on: [text('customer_id')], sort: CREATED },
  ],
  activities: [
    { on: [text('customer_id')], sort: CREATED },
    { on: [text('customer_id'), text('type')], sort: CREATED },
    // Sparse: a redemption's or an order's activities name no campaign and no referrer, and every
    // validation and redemption writes some (docs/postgres.md#indexes-of-the-tables-a-redemption-writes).
    { on: [text('customer_id'), text('campaign_id')], sort: CREATED, sparse: true },
    { on: [text('customer_id'), text('campaign_type')], sort: CREATED, sparse: true },
    { on: [text('customer_id'), text('category')], sort: CREATED },
    // The conversions naming a customer as the referrer: a referrer's `loyalty` in one read, whatever
    // its codes and referees (docs/behaviour.md#customer-loyalty-and-referrals).
    { on: [text('type'), text('data.referrer.id')], sort: CREATED, sparse: true },
  ],
  async_actions: [{ on: [text('status')], sort: time('run_at') }],
  file_chunks: [{ on: [text('file_id')], sort: ['index', 'number'] }],
  // What has expired, oldest first (`maintenance.purgeExpired`).
  files: [{ on: [], sort: time('expires_at') }],
  idempotency_keys: [{ on: [], sort: time('expires_at') }],
  access_tokens: [{ on: [], sort: time('expires_at') }],
  campaign_templates: [],
  redeemable_holders: [{ on: [text('redeemable_id')], sort: CREATED }],
}

/**
 * Collections no operation lists whole by `created_at`, so their rows do not pay that index
 * (docs/postgres.md#schema): a customer's activities are read by customer or by referrer, and every
 * validation and redemption writes one; counter rows are read by id, and a redemption updates
 * several (with no derived column, their table needs no row trigger).
 */
const NOT_LISTED_WHOLE: ReadonlySet<CollectionName> = new Set(['activities', 'counters'])

/** Every index of a collection: the declared ones, then listing it whole by `created_at` (most) and by `id`. */
export function indexesOf(collection: CollectionName, extra: IndexDeclarations = {}): IndexDeclaration[] {
  return [
    ...(INDEXES[collection] ?? []),
    ...(extra[collection] ?? []),
    ...(NOT_LISTED_WHOLE.has(collection) ? [] : [{ on: [], sort: CREATED }]),
    { on: [], sort: text('id') },
  ]
}
