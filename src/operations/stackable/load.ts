import { EngineError } from '../../errors'
import type { Campaign } from '../../model/campaign'
import type { Category } from '../../model/common'
import type { Customer } from '../../model/customer'
import type { CalculatedOrder, Order, OrderInput, OrderItemInput } from '../../model/order'
import type { Product, Sku } from '../../model/product'
import type { PromotionTier } from '../../model/promotion'
import type { Redemption } from '../../model/redemption'
import type { StackingRules } from '../../model/stacking'
import type { ValidationRule } from '../../model/validation-rule'
import type { Voucher } from '../../model/voucher'
import type { Store, Stored } from '../../ports'
import type { EvalCollection, EvalCounters, EvalCustomer, PeriodCounts } from '../../rules/conditions'
import { type CatalogPrices, normalizeOrder } from '../../rules/discounts'
import type { PipelineInput, RedeemableSubject } from '../../rules/redeemables'
import { checkRedeemablesCount } from '../../rules/stacking'
import { localParts } from '../../rules/zoned-time'
import type { RedeemableRequest, StackableRequest } from '../../schema/stackable'
import type { Context } from '../context'
import { findCustomer } from '../customers'
import { effectiveStackingRules } from '../stacking-rules'
import { rulesAssignedTo } from '../validation-rules'
import { findVoucher } from '../vouchers'

/** What the pipeline decides on, plus what the operation writes back afterwards. */
export interface LoadedRequest {
  input: PipelineInput
  rules: StackingRules
  customer: Stored<Customer> | undefined
  /** The stored order the request names by `id` or `source_id`, when there is one. */
  storedOrder: Stored<Order> | undefined
  /** The stack the request named, when it sent one promotion stack. */
  stackId: string | undefined
  /** Stored versions of what a redemption changes: vouchers and tiers by id. */
  vouchers: Map<string, Stored<Voucher>>
  tiers: Map<string, Stored<PromotionTier>>
}

/**
 * Reads everything a validation or redemption decides on, through the store: the stacking rules, the
 * customer, the stored order, each redeemable with its campaign, categories, validation rules, live
 * session locks, reward and counters, catalogue prices and product collections.
 */
export async function loadRequest(
  ctx: Context,
  request: StackableRequest,
  now: Date,
  options: { sessionKey?: string | undefined },
): Promise<LoadedRequest> {
  const { store } = ctx
  // Reads that do not depend on each other are issued together: with a database behind the ports
  // each await is a round trip, so the request costs a few round trips, not one per read.
  const orderInput: OrderInput = request.order ?? {}
  const rulesP = effectiveStackingRules(ctx)
  const stackP = expandStack(store, request.redeemables)
  const customerP = findRequestCustomer(ctx, request.customer)
  const storedOrderP = findStoredOrder(store, request.order)
  const itemsP = withCatalogIds(store, orderInput.items ?? [])
  // Settled first, then awaited in the order the checks were made one by one, so a request with
  // several faults always reports the same one.
  await Promise.allSettled([rulesP, stackP, customerP, storedOrderP, itemsP])
  const rules = await rulesP
  const { requests, stackId } = await stackP
  checkRedeemablesCount(requests.length, rules)
  const [customer, storedOrder, items] = [await customerP, await storedOrderP, await itemsP]

  const vouchers = new Map<string, Stored<Voucher>>()
  const tiers = new Map<string, Stored<PromotionTier>>()
  const subjects = await Promise.all(
    requests.map((r, index) => loadSubject(ctx, r, index, now, customer?.value, options.sessionKey, vouchers, tiers)),
  )

  const [catalogue, collections] = await Promise.all([
    loadCatalogue(store, items, subjects),
    loadCollections(store, subjects),
  ])
  const { prices } = catalogue
  const order = storedOrder
    ? startFromStored(storedOrder.value)
    : withCatalogueObjects(normalizeOrder({ ...orderInput, items }, { prices }), catalogue)

  const evalCustomer: EvalCustomer | null = customer
    ? {
        id: customer.value.id,
        source_id: customer.value.source_id,
        metadata: customer.value.metadata,
        segments: customer.value.segments ?? [],
        loyalty_tiers: await customerTiers(store, customer.value.id, now),
      }
    : unknownCustomer(request.customer)

  return {
    input: {
      subjects,
      order,
      order_given: request.order !== undefined || storedOrder !== undefined,
      customer: evalCustomer,
      redemption_metadata: request.metadata ?? {},
      rules,
      now,
      timeZone: ctx.config.timezone,
      rounding: ctx.config.rounding,
      collections,
      prices,
    },
    rules,
    customer,
    storedOrder,
    stackId,
    vouchers,
    tiers,
  }
}

type ExpandedRequest = Exclude<RedeemableRequest, { object: 'promotion_stack' }>

async function expandStack(
  store: Store,
  redeemables: readonly RedeemableRequest[],
): Promise<{ requests: ExpandedRequest[]; stackId: string | undefined }> {
  const first = redeemables[0]
  if (first?.object !== 'promotion_stack') return { requests: redeemables as ExpandedRequest[], stackId: undefined }
  const stack = await store.promotion_stacks.get(first.id)
  if (!stack) throw EngineError.notFound('promotion_stack', first.id)
  return {
    requests: stack.value.tiers.ids.map((id) => ({ object: 'promotion_tier', id })),
    stackId: stack.value.id,
  }
}

async function findRequestCustomer(
  ctx: Context,
  input: StackableRequest['customer'],
): Promise<Stored<Customer> | undefined> {
  if (!input) return undefined
  if (input.id) {
    const found = await findCustomer(ctx, input.id)
    if (!found) throw EngineError.notFound('customer', input.id)
    return found
  }
  return input.source_id ? ctx.store.customers.findBy('source_id', input.source_id) : undefined
}

/**
 * A customer the request describes but the store does not know yet (a redemption creates it): rules
 * see what the request says of it, so it is not `missing_customer`. It has no id yet (the empty id
 * matches no holder, referrer or counter), is in no segment and holds no tier.
 */
function unknownCustomer(input: StackableRequest['customer']): EvalCustomer | null {
  if (!input?.source_id) return null
  return { id: '', source_id: input.source_id, metadata: input.metadata ?? {}, segments: [], loyalty_tiers: [] }
}

async function findStoredOrder(store: Store, input: OrderInput | undefined): Promise<Stored<Order> | undefined> {
  if (!input) return undefined
  if (input.id) return (await store.orders.get(input.id)) ?? undefined
  if (input.source_id) return store.orders.findBy('source_id', input.source_id)
  return undefined
}

/** A stored order continues where it stopped: its discounts stand, this request applies nothing yet. */
function startFromStored(order: Order): CalculatedOrder {
  return {
    ...order,
    applied_discount_amount: 0,
    items_applied_discount_amount: 0,
    total_applied_discount_amount: 0,
    items: order.items.map((item) => ({
      ...item,
      applied_discount_amount: 0,
      applied_discount_quantity: 0,
      applied_quantity: 0,
      applied_quantity_amount: 0,
    })),
  }
}

async function loadSubject(
  ctx: Context,
  request: ExpandedRequest,
  index: number,
  now: Date,
  customer: Customer | undefined,
  sessionKey: string | undefined,
  vouchers: Map<string, Stored<Voucher>>,
  tiers: LoadedRequest['tiers'],
): Promise<RedeemableSubject> {
  const { store } = ctx
  const subject: RedeemableSubject = {
    index,
    object: request.object,
    requested_id: request.id,
    categories: [],
    validation_rules: [],
    locks: { count: 0, credits: 0, points: 0 },
  }
  if (request.object === 'voucher') {
    if (request.gift) subject.gift = request.gift.credits === undefined ? {} : { credits: request.gift.credits }
    if (request.reward) {
      subject.reward =
        request.reward.points === undefined
          ? { id: request.reward.id }
          : { id: request.reward.id, points: request.reward.points }
    }
    const voucher = await findVoucher(store, request.id)
    if (!voucher) return subject
    vouchers.set(voucher.value.id, voucher)
    const v = voucher.value
    subject.voucher = v
    const reward = v.type === 'LOYALTY_CARD' && request.reward ? request.reward : undefined
    const [campaign, categories, loyalty, ownRules, locks, holder] = await Promise.all([
      v.campaign_id ? store.campaigns.get(v.campaign_id) : null,
      categoriesOf(store, v.categories, v.category_id),
      reward ? loadReward(store, reward.id, v) : undefined,
      rulesAssignedTo(store, [v.id, v.campaign_id]),
      liveLocks(store, v.id, now, sessionKey),
      v.holder_id ? store.customers.get(v.holder_id) : undefined,
    ])
    subject.campaign = campaign?.value ?? null
    subject.categories = categories
    if (loyalty) subject.loyalty = loyalty
    // A pay-with-points reward assignment may carry rules of its own (reference §6.1): they hold
    // for this redeemable like the card's and its campaign's.
    const assignmentId = loyalty?.assignment?.id
    subject.validation_rules = assignmentId
      ? [...ownRules, ...(await rulesAssignedTo(store, [assignmentId]))]
      : ownRules
    subject.locks = locks
    if (v.holder_id) subject.holder_source_id = holder?.value.source_id ?? null
    if (needsCounters(subject.validation_rules)) {
      subject.counters = await countersFor(
        store,
        voucher.value.id,
        subject.campaign,
        customer,
        now,
        ctx.config.timezone,
      )
    }
    return subject
  }
  const tier = await store.promotion_tiers.get(request.id)
  if (!tier) return subject
  tiers.set(tier.value.id, tier)
  subject.tier = tier.value
  const [campaign, categories, rules] = await Promise.all([
    store.campaigns.get(tier.value.campaign_id),
    categoriesOf(store, tier.value.categories, tier.value.category_id),
    rulesAssignedTo(store, [tier.value.id]),
  ])
  subject.campaign = campaign?.value ?? null
  subject.categories = categories
  subject.validation_rules = rules
  if (needsCounters(subject.validation_rules)) {
    subject.counters = await countersFor(store, tier.value.id, subject.campaign, customer, now, ctx.config.timezone)
  }
  return subject
}

/** Categories as stored now (their hierarchy may have changed since the redeemable was created). */
async function categoriesOf(
  store: Store,
  embedded: readonly Category[],
  categoryId: string | null,
): Promise<Category[]> {
  const ids = new Set(embedded.map((c) => c.id))
  if (categoryId) ids.add(categoryId)
  const found = await store.categories.getMany([...ids])
  return found.map((c) => c.value)
}

/** What live session locks of other sessions hold on a voucher (reference §7.4). */
async function liveLocks(
  store: Store,
  voucherId: string,
  now: Date,
  ownKey: string | undefined,
): Promise<RedeemableSubject['locks']> {
  const sessions = await store.sessions.list({ where: { voucher_id: voucherId, released_at: null } })
  const locks = { count: 0, credits: 0, points: 0 }
  for (const { value } of sessions.data) {
    if (value.key === ownKey || Date.parse(value.expires_at) <= now.getTime()) continue
    locks.count += 1
    locks.credits += value.credits
    locks.points += value.points
  }
  return locks
}

async function loadReward(
  store: Store,
  rewardId: string,
  card: Voucher,
): Promise<NonNullable<RedeemableSubject['loyalty']>> {
  const reward = (await store.rewards.get(rewardId))?.value ?? null
  if (!reward || !card.campaign_id) return { reward, assignment: null, tier: null }
  const assignments = await store.reward_assignments.list({
    where: { reward_id: reward.id, related_object_id: card.campaign_id },
  })
  const standing = (await store.member_tiers.list({ where: { voucher_id: card.id } })).data[0]?.value
  const tier = standing?.tier_id ? ((await store.loyalty_tiers.get(standing.tier_id))?.value ?? null) : null
  return { reward, assignment: assignments.data[0]?.value ?? null, tier }
}

async function customerTiers(store: Store, customerId: string, _now: Date): Promise<string[]> {
  const standings = await store.member_tiers.list({ where: { customer_id: customerId } })
  return standings.data.flatMap((s) => (s.value.tier_id ? [s.value.tier_id] : []))
}

const COUNTER_RULE = /"name":"(redemption\.count|campaign\.)/

function needsCounters(rules: readonly ValidationRule[]): boolean {
  return rules.some((r) => COUNTER_RULE.test(JSON.stringify(r.rules)))
}

/** The engine's counters a budget rule reads: successful, not rolled back redemptions, by calendar period. */
async function countersFor(
  store: Store,
  redeemableId: string,
  campaign: Campaign | null | undefined,
  customer: Customer | undefined,
  now: Date,
  timeZone: string,
): Promise<EvalCounters> {
  const live = (r: Redemption) => r.result === 'SUCCESS' && r.status !== 'ROLLED_BACK' && r.redemption !== null
  const own = (await store.redemptions.list({ where: { related_object_id: redeemableId } })).data
    .map((s) => s.value)
    .filter(live)
  const inCampaign = campaign
    ? (await store.redemptions.list({ where: { related_object_parent_id: campaign.id } })).data
        .map((s) => s.value)
        .filter(live)
    : []
  const periods = periodStarts(now, timeZone)
  const count = (rs: readonly Redemption[]): PeriodCounts => ({
    total: rs.length,
    daily: rs.filter((r) => r.date >= periods.day).length,
    weekly: rs.filter((r) => r.date >= periods.week).length,
    monthly: rs.filter((r) => r.date >= periods.month).length,
  })
  const distinct = (rs: readonly Redemption[]): PeriodCounts => {
    const within = (since: string) => new Set(rs.filter((r) => r.date >= since).map((r) => r.customer_id)).size
    return {
      total: within(''),
      daily: within(periods.day),
      weekly: within(periods.week),
      monthly: within(periods.month),
    }
  }
  const mine = (rs: readonly Redemption[]) => rs.filter((r) => customer && r.customer_id === customer.id)
  return {
    campaign_orders_amount: inCampaign.reduce((n, r) => n + (r.order?.amount ?? 0), 0),
    campaign_orders_amount_discounted: inCampaign.reduce(
      (n, r) => n + (r.order?.total_applied_discount_amount ?? 0),
      0,
    ),
    campaign_redemptions: count(inCampaign),
    campaign_customers: distinct(inCampaign),
    customer_campaign_redemptions: count(mine(inCampaign)),
    redemptions: count(own),
    customer_redemptions: count(mine(own)),
  }
}

/** ISO instants at which today, this week (Monday) and this month began, in the engine's time zone. */
function periodStarts(now: Date, timeZone: string): { day: string; week: string; month: string } {
  const p = localParts(now, timeZone)
  const msIntoDay = ((p.hour * 60 + p.minute) * 60 + p.second) * 1000 + p.millisecond
  const dayStart = now.getTime() - msIntoDay
  const daysSinceMonday = (p.weekday + 6) % 7
  const day = 86_400_000
  return {
    day: new Date(dayStart).toISOString(),
    week: new Date(dayStart - daysSinceMonday * day).toISOString(),
    month: new Date(dayStart - (p.day - 1) * day).toISOString(),
  }
}

/** Items that name a product or SKU by `source_id` get its id, and a SKU its product, so targeting can match them. */
async function withCatalogIds(store: Store, items: readonly OrderItemInput[]): Promise<OrderItemInput[]> {
  // Most lines name their product by id already and need no read at all.
  if (!items.some((item) => item.source_id || (item.sku_id && !item.product_id))) return [...items]
  return Promise.all(items.map((item) => withCatalogId(store, item)))
}

async function withCatalogId(store: Store, item: OrderItemInput): Promise<OrderItemInput> {
  let next = item
  if (!item.sku_id && item.related_object === 'sku' && item.source_id) {
    const sku = await store.skus.findBy('source_id', item.source_id)
    if (sku) next = { ...next, sku_id: sku.value.id }
  }
  if (!item.product_id && item.related_object !== 'sku' && item.source_id) {
    const product = await store.products.findBy('source_id', item.source_id)
    if (product) next = { ...next, product_id: product.value.id }
  }
  if (next.sku_id && !next.product_id) {
    const sku = await store.skus.get(next.sku_id)
    if (sku) next = { ...next, product_id: sku.value.product_id }
  }
  return next
}

/** The stored products and SKUs the order and the UNIT discounts name, and their prices. */
interface Catalogue {
  prices: CatalogPrices
  /** Products and SKUs the order's lines name, by id (UNIT targets are priced only). */
  products: Map<string, Product>
  skus: Map<string, Sku>
}

async function loadCatalogue(
  store: Store,
  items: readonly OrderItemInput[],
  subjects: readonly RedeemableSubject[],
): Promise<Catalogue> {
  const productIds = new Set<string>()
  const skuIds = new Set<string>()
  for (const item of items) {
    if (item.product_id) productIds.add(item.product_id)
    if (item.sku_id) skuIds.add(item.sku_id)
  }
  const lineProducts = new Set(productIds)
  const lineSkus = new Set(skuIds)
  for (const s of subjects) {
    const discount = s.tier?.action.discount ?? s.voucher?.discount
    if (discount?.type !== 'UNIT') continue
    const units = 'units' in discount ? discount.units : [discount]
    for (const u of units) {
      productIds.add(u.unit_type)
      skuIds.add(u.unit_type)
    }
  }
  const product: Record<string, number> = {}
  const sku: Record<string, number> = {}
  const products = new Map<string, Product>()
  const skus = new Map<string, Sku>()
  const [foundProducts, foundSkus] = await Promise.all([
    store.products.getMany([...productIds]),
    store.skus.getMany([...skuIds]),
  ])
  for (const { value } of foundProducts) {
    if (value.price !== null) product[value.id] = value.price
    if (lineProducts.has(value.id)) products.set(value.id, value)
  }
  for (const { value } of foundSkus) {
    if (value.price !== null) sku[value.id] = value.price
    if (lineSkus.has(value.id)) skus.set(value.id, value)
  }
  return { prices: { product, sku }, products, skus }
}

/**
 * Lines naming a stored product or SKU carry its `product` / `sku` object as the calculated order
 * shows it (spec: `product {id, source_id, override, name, metadata, price}`, `sku {id, source_id,
 * override, sku, price, metadata}`). What the request embedded wins field by field (it also won the
 * price), the catalogue fills the rest; `override` is the request's, else false. Lines are fresh
 * objects from `normalizeOrder`, so they are completed in place; nothing is done when no line resolved.
 */
function withCatalogueObjects(order: CalculatedOrder, catalogue: Catalogue): CalculatedOrder {
  if (catalogue.products.size === 0 && catalogue.skus.size === 0) return order
  for (const item of order.items) {
    const product = item.product_id ? catalogue.products.get(item.product_id) : undefined
    if (product) {
      item.product = {
        id: product.id,
        source_id: product.source_id,
        override: false,
        name: product.name,
        metadata: product.metadata,
        price: product.price,
        ...item.product,
      }
    }
    const sku = item.sku_id ? catalogue.skus.get(item.sku_id) : undefined
    if (sku) {
      item.sku = {
        id: sku.id,
        source_id: sku.source_id,
        override: false,
        sku: sku.sku,
        price: sku.price,
        metadata: sku.metadata,
        ...item.sku,
      }
    }
  }
  return order
}

/** Members of every product collection the redeemables' rules refer to. */
async function loadCollections(
  store: Store,
  subjects: readonly RedeemableSubject[],
): Promise<Record<string, EvalCollection>> {
  if (!subjects.some((s) => s.validation_rules.some((r) => JSON.stringify(r).includes('products_collection'))))
    return {}
  const out: Record<string, EvalCollection> = {}
  for (const { value } of (await store.product_collections.list()).data) {
    out[value.id] = {
      products: value.products.filter((p) => p.object === 'product').map((p) => p.id),
      skus: value.products.filter((p) => p.object === 'sku').map((p) => p.id),
    }
  }
  return out
}
