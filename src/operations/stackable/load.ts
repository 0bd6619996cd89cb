import { EngineError } from '../../errors'
import type { Category } from '../../model/common'
import type { Customer } from '../../model/customer'
import type { CalculatedOrder, Order, OrderInput } from '../../model/order'
import type { PromotionTier } from '../../model/promotion'
import type { StackingRules } from '../../model/stacking'
import type { Voucher } from '../../model/voucher'
import type { Counter, Store, Stored } from '../../ports'
import type { EvalCustomer } from '../../rules/conditions'
import { normalizeOrder } from '../../rules/discounts'
import type { PipelineInput, RedeemableSubject } from '../../rules/redeemables'
import { checkRedeemablesCount } from '../../rules/stacking'
import type { RedeemableRequest, StackableRequest } from '../../schema/stackable'
import type { Context } from '../context'
import { findCustomer } from '../customers'
import { effectiveStackingRules } from '../stacking-rules'
import { rulesAssignedTo } from '../validation-rules'
import { findVoucher } from '../vouchers'
import { loadCatalogue, loadCollections, withCatalogIds, withCatalogueObjects } from './catalogue'
import { loadCounters, unitBudgetsFor } from './counters'

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
  /** The counter rows read for the budget rules, by id: a redemption's guarded increments start from them. */
  counters: Map<string, Counter>
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
    requests.map((r, index) => loadSubject(ctx, r, index, now, options.sessionKey, vouchers, tiers)),
  )

  const [catalogue, collections, counters] = await Promise.all([
    loadCatalogue(store, items, subjects),
    loadCollections(store, subjects),
    loadCounters(store, subjects, customer?.value, now, ctx.config.timezone),
  ])
  const { prices } = catalogue
  // Unit budgets count past redemptions by what their lines are, so they need the collections first.
  await Promise.all(
    subjects.map(async (subject) => {
      const used = await unitBudgetsFor(store, subject, customer?.value, collections)
      if (used !== undefined) subject.unit_budgets_used = used
    }),
  )
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
        birthdate: customer.value.birthdate ?? null,
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
    counters,
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
  return {
    id: '',
    source_id: input.source_id,
    metadata: input.metadata ?? {},
    segments: [],
    loyalty_tiers: [],
    birthdate: input.birthdate ?? null,
  }
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
