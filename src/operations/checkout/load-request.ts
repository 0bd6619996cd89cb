import { EngineError } from '../../errors'
import type { Customer } from '../../model/customer'
import type { MetadataSchema } from '../../model/metadata-schema'
import type { CalculatedOrder, Order, OrderInput } from '../../model/order'
import type { PromotionTier } from '../../model/promotion'
import type { StackingRules } from '../../model/stacking'
import type { Voucher } from '../../model/voucher'
import { type EvalCustomer, readsCounters } from '../../rules/conditions'
import { evalCounters } from '../../rules/counters'
import { normalizeOrder } from '../../rules/discounts'
import type { PipelineInput } from '../../rules/redeemables'
import { checkRedeemablesCount } from '../../rules/stacking'
import type { RedeemableRequest, StackableRequest } from '../../schema/stackable'
import type { Counter, Store, Stored } from '../../storage/ports'
import { effectiveStackingRules } from '../campaigns/effective-stacking-rules'
import type { Context } from '../kernel/unit-of-work'
import { findCustomer } from '../shop/customer-records'
import type { RedemptionVoucherExtras } from '../vouchers/redeemed-voucher'
import { loadCollections, withCatalogIds, withCatalogueObjects } from './catalogue'
import { counterScopeOf, level2Plan, readLevel2, rememberLevel1, samePlans, startFromHints } from './level2-reads'
import { assembleSubjects, type ExpandedRequest, type Found, NONE } from './load-subjects'
import { counterRowIds, loadUnitCounters, readCounters } from './redemption-counters'
import { type LoadedLocks, readOwnLocks } from './session-locks'

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
  /** What a redemption result adds to each code (its rule assignments and holder), by voucher id. */
  extras: Map<string, RedemptionVoucherExtras>
  /** The customers' metadata schema, read when the request may create its customer. */
  customerSchema: Stored<MetadataSchema> | undefined
  /** The session key's own locks, and expired locks the commit releases (docs/storage.md#session-locks). */
  locks: LoadedLocks
}

/**
 * Reads everything a validation or redemption decides on, through the store: the stacking rules, the
 * customer, the stored order, each redeemable with its campaign, categories, validation rules, the
 * request's own session locks, reward and counters, catalogue prices and product collections.
 */
export async function loadRequest(
  ctx: Context,
  request: StackableRequest,
  now: Date,
  options: {
    sessionKey?: string | undefined
    candidates?: boolean
    /**
     * A redemption: the metadata schema of a customer it creates is read with the rest, and each code's
     * extras are shaped for its result. A validation or qualification needs neither.
     */
    redeems?: boolean
    /** Called with the customer's id as soon as it is known, to start reads that depend on it. */
    onCustomer?: ((customerId: string) => void) | undefined
  },
): Promise<LoadedRequest> {
  const { store } = ctx
  // Reads that do not depend on each other are issued together: with a database behind the ports
  // each await is a round trip, so a request costs a few round trips, not one per read
  // (docs/storage.md#load-decide-commit). Level 1: everything the request names.
  const orderInput: OrderInput = request.order ?? {}
  const rulesP = effectiveStackingRules(ctx)
  const stackP = expandStack(store, request.redeemables)
  // Named codes and tiers are read with the rest; a stack's tiers only once the stack is read.
  const named = request.redeemables[0]?.object !== 'promotion_stack'
  const foundP = named
    ? findRedeemables(store, request.redeemables as ExpandedRequest[])
    : stackP.then(({ requests }) => findRedeemables(store, requests))
  const customerP = findRequestCustomer(ctx, request.customer)
  const { onCustomer } = options
  if (onCustomer)
    void customerP.then(
      (c) => c && onCustomer(c.value.id),
      () => undefined,
    )
  const storedOrderP = findStoredOrder(store, request.order)
  // The session's own locks by key: never the live locks of a code (docs/storage.md#session-locks).
  // Only with a key: an await more would let other reads overtake this level (docs/storage.md#load-decide-commit).
  const ownLocksP = options.sessionKey === undefined ? undefined : readOwnLocks(store, options.sessionKey)
  const itemsP = withCatalogIds(store, orderInput.items ?? [])
  // The schema a customer created by this request is checked against, read now rather than later.
  const schemaP =
    options.redeems && request.customer?.source_id && !request.customer.id
      ? store.metadata_schemas.findBy('related_object', 'customer')
      : Promise.resolve(undefined)
  // Level 2 from hints, started in this same turn: a store that batches the reads of a turn sends it
  // with level 1 (docs/postgres.md#loads). Used only when level 1's answers plan the same reads.
  const hinted =
    named && !options.candidates
      ? startFromHints(ctx, request.redeemables as ExpandedRequest[], request.customer, orderInput.items ?? [], now, {
          sessionKey: options.sessionKey,
        })
      : undefined
  // Settled first, then awaited in the order the checks were made one by one, so a request with
  // several faults always reports the same one.
  await Promise.allSettled([rulesP, stackP, foundP, customerP, storedOrderP, itemsP, schemaP, ownLocksP])
  const rules = await rulesP
  const { requests, stackId } = await stackP
  // A qualification loads every candidate at once and decides on each alone: no request limit.
  if (!options.candidates) checkRedeemablesCount(requests.length, rules)
  // Awaited one by one, not destructured: every request runs this, much of it before the JIT warms up.
  const customer = await customerP
  const storedOrder = await storedOrderP
  const items = await itemsP
  const found = await foundP
  const ownLocks = ownLocksP ? await ownLocksP : []
  if (named && !options.candidates && ctx.hints.capacity > 0)
    rememberLevel1(ctx.hints, requests, found, request.customer, customer, orderInput.items ?? [], items)

  // Level 2 (and 3 for the validation rules behind their assignments): each redeemable's details,
  // its counters, the catalogue and the customer's tiers.
  const vouchers = new Map<string, Stored<Voucher>>()
  const tiers = new Map<string, Stored<PromotionTier>>()
  const extras = new Map<string, RedemptionVoucherExtras>()
  const locks: LoadedLocks = {
    own: new Map(ownLocks.flatMap((s) => (s.value.voucher_id ? [[s.value.voucher_id, s] as const] : []))),
    expired: new Map(),
  }
  const customerId = customer?.value.id
  const scopes = found.map((f) => counterScopeOf(f, customerId))
  // A redemption increments every redeemable's counters: they are read with the rest. A
  // qualification's many candidates rarely have budget rules: only theirs are read, once the rules are known.
  const plan = level2Plan(requests, found, customerId, items, locks, options.candidates ? undefined : scopes)
  const level2 = await (hinted && samePlans(hinted.plan, plan)
    ? hinted.answers
    : readLevel2(ctx, plan, now, options.sessionKey))
  const subjects = assembleSubjects(requests, found, plan.subjects, level2.subjects, {
    vouchers,
    tiers,
    extras: options.redeems ? extras : undefined,
    locks,
  })
  const early = level2.counters
  const catalogue = level2.catalogue
  const loyaltyTiers = level2.tiers
  const counted = options.candidates
    ? scopes.map((scope, i) => (subjects[i]?.validation_rules.some(readsCounters) ? scope : null))
    : scopes
  const level3 = await Promise.all([
    early ?? readCounters(store, counterRowIds(counted.filter((scope) => scope !== null))),
    loadCollections(store, subjects),
  ])
  const counters = level3[0]
  const collections = level3[1]
  subjects.forEach((subject, i) => {
    const scope = counted[i]
    // Only budget rules read what the counters say (a redemption's writes start from `counters`).
    if (scope && (options.candidates || subject.validation_rules.some(readsCounters))) {
      subject.counters = evalCounters(scope, counters, now, ctx.config.timezone)
    }
  })
  const { prices } = catalogue
  const order = storedOrder
    ? startFromStored(storedOrder.value)
    : withCatalogueObjects(normalizeOrder({ ...orderInput, items }, { prices }), catalogue)
  // Unit budgets read their counter rows, which depend on the order's lines and collection members.
  await loadUnitCounters(store, subjects, customer?.value, order, collections)
  const evalCustomer: EvalCustomer | null = customer
    ? {
        id: customer.value.id,
        source_id: customer.value.source_id,
        metadata: customer.value.metadata,
        segments: customer.value.segments ?? [],
        loyalty_tiers: loyaltyTiers,
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
    extras,
    customerSchema: await schemaP,
    locks,
  }
}

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

/** Every requested code (by code or id) and tier, in one level of reads. */
async function findRedeemables(store: Store, requests: readonly ExpandedRequest[]): Promise<Found[]> {
  const codes: string[] = []
  const tierIds: string[] = []
  for (const r of requests) (r.object === 'voucher' ? codes : tierIds).push(r.id)
  const none: Stored<never>[] = []
  const read = await Promise.all([
    codes.length ? store.vouchers.findMany('code', codes) : none,
    codes.length ? store.vouchers.getMany(codes) : none,
    tierIds.length ? store.promotion_tiers.getMany(tierIds) : none,
  ])
  // Keyed once, and only what was found (most codes are found by code, none by id).
  const keyed = <T>(rows: readonly Stored<T>[], key: (value: T) => string) =>
    rows.length === 0 ? NONE : new Map(rows.map((row) => [key(row.value), row]))
  const vouchersByCode = keyed(read[0], (v) => v.code)
  const vouchersById = keyed(read[1], (v) => v.id)
  const tiersById = keyed(read[2], (t) => t.id)
  return requests.map((r): Found => {
    if (r.object === 'promotion_tier') {
      const tier = tiersById.get(r.id)
      return tier ? { tier } : {}
    }
    const voucher = vouchersByCode.get(r.id) ?? vouchersById.get(r.id)
    return voucher ? { voucher } : {}
  })
}

export async function findRequestCustomer(
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

/** The stored order the request names by `id` or `source_id`: validation starts from it, not from the request's lines. */
export async function findStoredOrder(store: Store, input: OrderInput | undefined): Promise<Stored<Order> | undefined> {
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
