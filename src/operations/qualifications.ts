import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { Customer } from '../model/customer'
import type { CalculatedOrderItem, OrderItemInput } from '../model/order'
import type { PromotionStack, PromotionTier } from '../model/promotion'
import type { QualificationExpand, QualificationScenario, QualificationsResult } from '../model/qualification'
import { QUALIFICATION_FILTER_FIELDS } from '../model/qualification'
import type { ValidationRule } from '../model/validation-rule'
import type { Voucher } from '../model/voucher'
import type { Filters } from '../rules/filters'
import {
  applies,
  type CandidateFacts,
  chooseBestStack,
  couldDiscountCart,
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
} from '../rules/qualifications'
import {
  type PipelineResult,
  type RedeemableSubject,
  type ValidationResult,
  validationResult,
} from '../rules/redeemables'
import { parseListFilters } from '../schema/list-filters'
import {
  type BestStackRequest,
  parseBestStackRequest,
  parseQualificationRequest,
  type QualificationRequest,
} from '../schema/qualifications'
import type { RedeemableRequest, StackableRequest } from '../schema/stackable'
import type { Context } from './context'
import { withCatalogIds } from './stackable/catalogue'
import { findRequestCustomer, type LoadedRequest, loadRequest } from './stackable/load'
import { trackingId } from './stackable/tracking'

/** Who calls: a server application, or a client (browser) one, which may not turn limit checks off. */
export interface QualificationCallOptions {
  side?: 'server' | 'client'
}

/** Our best-stack answer: a ready `validateStackable` body, what it gives, and why the rest is left out. */
export interface BestStackResult {
  object: 'best_stack'
  /** The body to pass to `validateStackable` / `redeemStackable`; null when nothing gives a discount. */
  request: {
    customer?: StackableRequest['customer']
    order: StackableRequest['order']
    redeemables: RedeemableRequest[]
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
    async checkEligibility(body: unknown, call: QualificationCallOptions = {}): Promise<QualificationsResult> {
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
    async bestStack(body: unknown): Promise<BestStackResult> {
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
 * was given (`holder_id`, publications by `customer_id`), the active promotion tiers, or the
 * promotion stacks. Filters that need only the candidate itself are applied before anything else is
 * read, so what the validation loader reads next grows with the candidates that remain.
 */
async function loadCandidates(
  ctx: Context,
  scenario: QualificationScenario,
  customer: Customer | undefined,
  filters: Filters,
  cart: readonly OrderItemInput[],
): Promise<Candidate[]> {
  const { store } = ctx
  const stacksOnly = scenario === 'PROMOTION_STACKS'
  const [held, published, tiers, stacks] = await Promise.all([
    customer && !stacksOnly ? store.vouchers.list({ where: { holder_id: customer.id }, count: false }) : null,
    customer && !stacksOnly ? store.publications.list({ where: { customer_id: customer.id }, count: false }) : null,
    walletOnly(scenario) || stacksOnly ? null : store.promotion_tiers.list({ where: { active: true }, count: false }),
    stacksOnly ? store.promotion_stacks.list({ count: false }) : null,
  ])
  const wallet = new Map<string, Voucher>()
  for (const { value } of held?.data ?? []) wallet.set(value.id, value)
  const given = (published?.data ?? []).map((p) => p.value.voucher_id).filter((id) => !wallet.has(id))
  if (given.length > 0)
    for (const { value } of await store.vouchers.getMany([...new Set(given)])) wallet.set(value.id, value)

  const keep = (facts: CandidateFacts) => matchesQualificationFilters(facts, filters)
  const out: Candidate[] = []
  for (const voucher of wallet.values()) if (keep(voucherFacts(voucher))) out.push({ object: 'voucher', voucher })
  const kept = (tiers?.data ?? []).map((t) => t.value).filter((tier) => keep(tierFacts(tier)))
  for (const tier of await reachingCart(ctx, kept, cart)) out.push({ object: 'promotion_tier', tier })
  const keptStacks = (stacks?.data ?? []).map((s) => s.value).filter((stack) => keep(stackFacts(stack)))
  if (keptStacks.length > 0) {
    const ids = [...new Set(keptStacks.flatMap((s) => s.tiers.ids))]
    const byId = new Map((await store.promotion_tiers.getMany(ids)).map((t) => [t.value.id, t.value]))
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

/**
 * The tiers whose discount could reach the cart: one batched read of their rule assignments and
 * rules, so only these go on to the validation loader's per-redeemable reads (the many tiers that
 * target other products stop here). `cart` holds the request's lines with catalogue ids; empty: no filter.
 */
async function reachingCart(
  ctx: Context,
  tiers: PromotionTier[],
  cart: readonly OrderItemInput[],
): Promise<PromotionTier[]> {
  if (cart.length === 0 || tiers.length === 0) return tiers
  // Every tier's assignments in one bucket of the index: far cheaper than one lookup per tier id.
  const assignments = await ctx.store.validation_rule_assignments.list({
    where: { related_object_type: 'promotion_tier' },
    count: false,
  })
  const wanted = new Set(tiers.map((t) => t.id))
  const mine = assignments.data.map((a) => a.value).filter((a) => wanted.has(a.related_object_id))
  const ruleIds = [...new Set(mine.map((a) => a.rule_id))]
  const rules = new Map((await ctx.store.validation_rules.getMany(ruleIds)).map((r) => [r.value.id, r.value]))
  const byTier = new Map<string, ValidationRule[]>()
  for (const a of mine) {
    const rule = rules.get(a.rule_id)
    if (!rule) continue
    const list = byTier.get(a.related_object_id)
    if (list) list.push(rule)
    else byTier.set(a.related_object_id, [rule])
  }
  // Only the fields targeting matches on are read from the lines.
  const items = cart as unknown as CalculatedOrderItem[]
  const memo = new Map<ValidationRule, boolean>()
  return tiers.filter((t) => couldDiscountCart(byTier.get(t.id) ?? [], items, undefined, memo))
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
  const [customer, cart] = await Promise.all([
    findRequestCustomer(ctx, request.customer),
    cartless ? [] : withCatalogIds(ctx.store, request.order?.items ?? []),
  ])
  const candidates = await loadCandidates(ctx, request.scenario, customer?.value, request.options.filters, cart)
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
  return { ...loaded, groups: groups.filter((g) => g.subjects.length > 0) }
}

/** The best stack's candidates: the ones given, or the single redeemables a scenario's qualification considers. */
async function loadBestStackCandidates(ctx: Context, request: BestStackRequest): Promise<LoadedRequest> {
  const checkLimits = request.options?.check_limits !== false
  if (request.redeemables) return loadSubjects(ctx, asStackable(request, request.redeemables), checkLimits)
  const scenario = request.scenario ?? 'ALL'
  const filters = parseListFilters(request.options?.filters, QUALIFICATION_FILTER_FIELDS, 'options.filters')
  const [customer, cart] = await Promise.all([
    findRequestCustomer(ctx, request.customer),
    withCatalogIds(ctx.store, request.order.items ?? []),
  ])
  const candidates = (await loadCandidates(ctx, scenario, customer?.value, filters, cart)).filter(
    (c) => c.object !== 'promotion_stack',
  )
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
