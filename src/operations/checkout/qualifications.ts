import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Customer } from '../../model/customer'
import type { OrderInput } from '../../model/order'
import type { PromotionStack, PromotionTier } from '../../model/promotion'
import type { QualificationExpand, QualificationScenario, QualificationsResult } from '../../model/qualification'
import { QUALIFICATION_FILTER_FIELDS } from '../../model/qualification'
import type { Voucher } from '../../model/voucher'
import type { Filters } from '../../rules/match-filters'
import {
  applies,
  type CandidateFacts,
  type CartLine,
  cartIds,
  cartTargets,
  chooseBestStack,
  decideAlone,
  discountValue,
  inScenario,
  matchesQualificationFilters,
  qualificationEntry,
  type Ranked,
  rankAndPage,
  stackFacts,
  tierFacts,
  voucherFacts,
  walletOnly,
  withoutCart,
} from '../../rules/qualifications'
import {
  type PipelineResult,
  type RedeemableSubject,
  type ValidationResult,
  validationResult,
} from '../../rules/redeemables'
import { parseListFilters } from '../../schema/list-filters'
import {
  type BestStackRequest,
  parseBestStackRequest,
  parseQualificationRequest,
  type QualificationRequest,
} from '../../schema/qualification'
import type {
  QualificationsBestStackParams,
  QualificationsCheckEligibilityParams,
  ValidationsValidateStackableParams,
} from '../../schema/requests'
import type { RedeemableRequest, StackableRequest } from '../../schema/stackable'
import type { Store } from '../../storage/ports'
import type { Context } from '../kernel/unit-of-work'
import { trackingId } from '../shop/tracking-id'
import { withCatalogIds } from './catalogue'
import { findRequestCustomer, findStoredOrder, type LoadedRequest, loadRequest } from './load-request'

/** Who calls: a server application, or a client (browser) one, which may not turn limit checks off. */
/** `CallOptions`, and which API family the call comes from (the client one may not skip the limits). */
export interface QualificationCallOptions extends CallOptions {
  side?: 'server' | 'client'
}

/** Our best-stack answer: a ready `validateStackable` body, what it gives, and why the rest is left out. */
export interface BestStackResult {
  object: 'best_stack'
  /** The body to pass to `validateStackable` / `redeemStackable`; null when nothing gives a discount. */
  request: {
    customer?: ValidationsValidateStackableParams['customer']
    order: ValidationsValidateStackableParams['order']
    redeemables: ValidationsValidateStackableParams['redeemables']
  } | null
  /** The validation of `request`, as `validateStackable` answers it (nothing stored). */
  validation: ValidationResult | null
  /** Total discount of the stack, minor units; gift credits and loyalty points are never spent. */
  total_discount: number
  /** False when more candidates were given than the exact search takes (see docs). */
  exact: boolean
  left_out: {
    id: string
    object: 'voucher' | 'promotion_tier'
    reason: { key: string; message: string; explanation?: unknown }
  }[]
}

/**
 * `POST /v1/qualifications` and `POST /client/v1/qualifications`, and our own best stack. Both read
 * only: no activity, no session, no write of any kind. Every candidate is decided by the validation
 * pipeline on what the validation loader reads, so a listed redeemable is one `validateStackable`
 * applies (limits included unless `options.check_limits` is false).
 */
export function qualifications(ctx: Context) {
  return {
    async checkEligibility(
      body: QualificationsCheckEligibilityParams,
      call: QualificationCallOptions = {},
    ): Promise<QualificationsResult> {
      const request = parseQualificationRequest(body)
      if (call.side === 'client' && request.options.check_limits === false) {
        throw invalidClientOption()
      }
      const loaded = await loadQualification(ctx, request)
      const expand = new Set<QualificationExpand>(request.options.expand ?? [])
      // Decided and ranked first; only the page asked for is shaped.
      const listed: (Ranked & { group: CandidateGroup; decision: PipelineResult })[] = []
      for (const group of loaded.groups) {
        if (!group.subjects.every((s) => inScenario(request.scenario, s, loaded.input.order, loaded.input.collections)))
          continue
        const decision = decideAlone(loaded.input, group.subjects)
        if (!applies(decision)) continue
        const first = group.subjects[0] as RedeemableSubject
        listed.push({
          group,
          decision,
          value: discountValue(decision),
          id: group.stack?.id ?? first.voucher?.code ?? first.requested_id,
          created_at: group.stack?.created_at ?? first.voucher?.created_at ?? first.tier?.created_at ?? '',
        })
      }
      const page = rankAndPage(
        listed,
        request.options.sorting_rule ?? 'DEFAULT',
        request.options.limit,
        request.options.starting_after,
      )
      const data = page.data.map(({ group, decision }) =>
        qualificationEntry({
          decision,
          subjects: group.subjects,
          rules: loaded.rules,
          expand,
          ...(group.stack
            ? {
                stack: {
                  id: group.stack.id,
                  name: group.stack.name,
                  created_at: group.stack.created_at,
                  categories: group.stack.categories,
                },
              }
            : {}),
        }),
      )
      return {
        redeemables: {
          object: 'list',
          data_ref: 'data',
          data,
          total: page.total,
          has_more: page.has_more,
          more_starting_after: page.more_starting_after,
        },
        tracking_id: trackingId(loaded.customer?.value, asStackable(request)),
        order: { ...loaded.input.order, status: loaded.input.order.status ?? 'CREATED' },
        stacking_rules: loaded.rules,
      }
    },

    /**
     * Ours (no hosted counterpart): the combination of the candidates that takes the most off this
     * cart, as a ready `validateStackable` request with its result, and why each other one is left out.
     */
    async bestStack(body: QualificationsBestStackParams, _options?: CallOptions): Promise<BestStackResult> {
      const request = parseBestStackRequest(body)
      const loaded = await loadBestStackCandidates(ctx, request)
      const best = chooseBestStack(loaded.input)
      const stackable: StackableRequest = {
        redeemables: best.chosen.map((s) => ({ object: s.object, id: s.voucher?.code ?? s.requested_id })),
        order: request.order,
        ...(request.customer ? { customer: request.customer } : {}),
        ...(request.metadata ? { metadata: request.metadata } : {}),
      }
      const empty = best.chosen.length === 0
      return {
        object: 'best_stack',
        request: empty
          ? null
          : {
              ...(request.customer ? { customer: request.customer } : {}),
              order: request.order,
              redeemables: stackable.redeemables,
            },
        validation: empty
          ? null
          : validationResult({
              id: ctx.ids(ID_PREFIX.validation),
              decision: best.decision,
              subjects: best.chosen,
              rules: loaded.rules,
              expand: new Set(),
              trackingId: trackingId(loaded.customer?.value, stackable),
            }),
        total_discount: best.total_discount,
        exact: best.exact,
        left_out: best.left_out.map(({ subject, reason }) => ({
          id: subject.voucher?.code ?? subject.requested_id,
          object: subject.object,
          reason,
        })),
      }
    },
  }
}

function invalidClientOption(): EngineError {
  return EngineError.invalid(
    'options.check_limits',
    'cannot be false on the client side (a browser is shown only offers validation accepts)',
  )
}

/** The request as the validation loader takes it: the qualification's customer and (unless the scenario ignores it) cart. */
function asStackable(
  request: {
    customer?: StackableRequest['customer']
    order?: StackableRequest['order']
    metadata?: StackableRequest['metadata']
    tracking_id?: string
  },
  redeemables: RedeemableRequest[] = [],
): StackableRequest {
  return {
    redeemables,
    ...(request.customer ? { customer: request.customer } : {}),
    ...(request.order ? { order: request.order } : {}),
    ...(request.metadata ? { metadata: request.metadata } : {}),
    ...(request.tracking_id ? { tracking_id: request.tracking_id } : {}),
  }
}

/** A candidate of a qualification: one redeemable, or a promotion stack validated as its tiers. */
type Candidate =
  | { object: 'voucher'; voucher: Voucher }
  | { object: 'promotion_tier'; tier: PromotionTier }
  | { object: 'promotion_stack'; stack: PromotionStack; tiers: PromotionTier[] }

interface CandidateGroup {
  subjects: RedeemableSubject[]
  stack?: PromotionStack
}

interface LoadedQualification extends LoadedRequest {
  groups: CandidateGroup[]
}

/**
 * The candidates of a scenario, read by equality on indexed fields: the codes the customer holds or
 * was given (`holder_id`, publications by `customer_id`), the active promotion tiers whose rules
 * target what the cart holds or nothing in particular (`targets[]`, docs/qualifications.md#candidates),
 * or the promotion stacks. Filters that need only the candidate itself are applied before anything
 * else is read, so what the validation loader reads next grows with the candidates that remain.
 * The wallet and the tiers are read side by side.
 */
async function loadCandidates(
  ctx: Context,
  scenario: QualificationScenario,
  customer: Promise<Customer | undefined>,
  filters: Filters,
  cart: Promise<readonly CartLine[]>,
): Promise<Candidate[]> {
  const stacksOnly = scenario === 'PROMOTION_STACKS'
  const keep = (facts: CandidateFacts) => matchesQualificationFilters(facts, filters)
  const walletP = stacksOnly ? Promise.resolve([]) : customer.then((c) => (c ? loadWallet(ctx.store, c.id) : []))
  const tiersP =
    walletOnly(scenario) || stacksOnly ? Promise.resolve([]) : cart.then((lines) => tiersReaching(ctx.store, lines))
  const stacksP = stacksOnly ? ctx.store.promotion_stacks.list({ count: false }) : Promise.resolve(null)
  // Settled first, then awaited in a fixed order, so a request with several faults always reports the same one.
  await Promise.allSettled([customer, cart, walletP, tiersP, stacksP])
  const [wallet, tiers, stacks] = [await walletP, await tiersP, await stacksP]
  const out: Candidate[] = []
  for (const voucher of wallet) if (keep(voucherFacts(voucher))) out.push({ object: 'voucher', voucher })
  for (const tier of tiers) if (keep(tierFacts(tier))) out.push({ object: 'promotion_tier', tier })
  const keptStacks = (stacks?.data ?? []).map((s) => s.value).filter((stack) => keep(stackFacts(stack)))
  if (keptStacks.length > 0) {
    const ids = [...new Set(keptStacks.flatMap((s) => s.tiers.ids))]
    const byId = new Map((await ctx.store.promotion_tiers.getMany(ids)).map((t) => [t.value.id, t.value]))
    for (const stack of keptStacks) {
      const stackTiers = stack.tiers.ids.flatMap((id) => {
        const tier = byId.get(id)
        return tier ? [tier] : []
      })
      out.push({ object: 'promotion_stack', stack, tiers: stackTiers })
    }
  }
  return out
}

/** The codes a customer holds or was published, each once. */
async function loadWallet(store: Store, customerId: string): Promise<Voucher[]> {
  const [held, published] = await Promise.all([
    store.vouchers.list({ where: { holder_id: customerId }, count: false }),
    store.publications.list({ where: { customer_id: customerId }, count: false }),
  ])
  const wallet = new Map<string, Voucher>()
  for (const { value } of held.data) wallet.set(value.id, value)
  const given = published.data.map((p) => p.value.voucher_id).filter((id) => !wallet.has(id))
  if (given.length > 0)
    for (const { value } of await store.vouchers.getMany([...new Set(given)])) wallet.set(value.id, value)
  return [...wallet.values()]
}

/**
 * The active tiers whose discount could reach these lines: those whose target keys name one of the
 * cart's keys, and those that target nothing in particular (docs/qualifications.md#candidates).
 * The cart's keys need its catalogue entries (source ids) and the collections holding its products,
 * read together. Without lines, every active tier.
 */
async function tiersReaching(store: Store, lines: readonly CartLine[]): Promise<PromotionTier[]> {
  if (lines.length === 0) {
    return (await store.promotion_tiers.list({ where: { active: true }, count: false })).data.map((t) => t.value)
  }
  const ids = cartIds(lines)
  const members = [...ids.products, ...ids.skus]
  const [products, skus, collections] = await Promise.all([
    ids.products.length > 0 ? store.products.getMany(ids.products) : [],
    ids.skus.length > 0 ? store.skus.getMany(ids.skus) : [],
    members.length > 0
      ? store.product_collections.list({ where: { 'products[].id': { in: members } }, count: false })
      : null,
  ])
  const keys = cartTargets(
    lines,
    {
      products: new Map(products.map((p) => [p.value.id, p.value])),
      skus: new Map(skus.map((k) => [k.value.id, k.value])),
    },
    (collections?.data ?? []).map((c) => c.value.id),
  )
  // `null`: tiers stored before target keys existed, candidates of every cart.
  const page = await store.promotion_tiers.list({
    where: { active: true, 'targets[]': { in: [...keys, null] } },
    count: false,
  })
  return page.data.map((t) => t.value)
}

/**
 * The lines validation decides on: the stored order's when the request names one (validation starts
 * from it), else the request's, with catalogue ids for lines named by `source_id`.
 */
async function cartLines(ctx: Context, order: OrderInput | undefined): Promise<readonly CartLine[]> {
  const [stored, lines] = await Promise.all([
    findStoredOrder(ctx.store, order),
    withCatalogIds(ctx.store, order?.items ?? []),
  ])
  return stored ? stored.value.items : lines
}

function requestsOf(candidate: Candidate): RedeemableRequest[] {
  switch (candidate.object) {
    case 'voucher':
      return [{ object: 'voucher', id: candidate.voucher.code }]
    case 'promotion_tier':
      return [{ object: 'promotion_tier', id: candidate.tier.id }]
    case 'promotion_stack':
      return candidate.tiers.map((t) => ({ object: 'promotion_tier' as const, id: t.id }))
    default: {
      const _never: never = candidate
      return _never
    }
  }
}

/** Every candidate of the request, loaded in one pass of the validation loader, grouped as validated. */
async function loadQualification(ctx: Context, request: QualificationRequest): Promise<LoadedQualification> {
  const cartless = withoutCart(request.scenario)
  const candidates = await loadCandidates(
    ctx,
    request.scenario,
    findRequestCustomer(ctx, request.customer).then((c) => c?.value),
    request.options.filters,
    cartless ? Promise.resolve([]) : cartLines(ctx, request.order),
  )
  const requests = candidates.map(requestsOf)
  const stackable = asStackable(cartless ? { ...request, order: undefined } : request, requests.flat())
  const loaded = await loadSubjects(ctx, stackable, request.options.check_limits !== false)
  let at = 0
  const groups = candidates.map((candidate, i) => {
    const size = (requests[i] as RedeemableRequest[]).length
    const subjects = loaded.input.subjects.slice(at, at + size)
    at += size
    return candidate.object === 'promotion_stack' ? { subjects, stack: candidate.stack } : { subjects }
  })
  const input = cartless ? { ...loaded.input, audience_only: true } : loaded.input
  return { ...loaded, input, groups: groups.filter((g) => g.subjects.length > 0) }
}

/** The best stack's candidates: the ones given, or the single redeemables a scenario's qualification considers. */
async function loadBestStackCandidates(ctx: Context, request: BestStackRequest): Promise<LoadedRequest> {
  const checkLimits = request.options?.check_limits !== false
  if (request.redeemables) return loadSubjects(ctx, asStackable(request, request.redeemables), checkLimits)
  const scenario = request.scenario ?? 'ALL'
  const filters = parseListFilters(request.options?.filters, QUALIFICATION_FILTER_FIELDS, 'options.filters')
  const candidates = (
    await loadCandidates(
      ctx,
      scenario,
      findRequestCustomer(ctx, request.customer).then((c) => c?.value),
      filters,
      cartLines(ctx, request.order),
    )
  ).filter((c) => c.object !== 'promotion_stack')
  const loaded = await loadSubjects(ctx, asStackable(request, candidates.flatMap(requestsOf)), checkLimits)
  const { order, collections } = loaded.input
  const subjects = loaded.input.subjects.filter((s) => inScenario(scenario, s, order, collections))
  return { ...loaded, input: { ...loaded.input, subjects } }
}

/** The validation loader on all candidates at once; without limit checks, the counters are left out. */
async function loadSubjects(ctx: Context, request: StackableRequest, checkLimits: boolean): Promise<LoadedRequest> {
  const loaded = await loadRequest(ctx, request, ctx.clock.now(), { candidates: true })
  if (checkLimits) return loaded
  const subjects = loaded.input.subjects.map(({ counters: _counters, ...subject }) => subject)
  return { ...loaded, input: { ...loaded.input, subjects } }
}
