import type { Discount } from '../../model/discount'
import type { CalculatedOrder } from '../../model/order'
import type { ApplicableTo } from '../../model/validation-rule'
import { type Bundle, type CounterBound, evaluateBundle } from '../conditions'
import {
  applyStep,
  type CalculationOptions,
  creditTargets,
  finalizeOrder,
  matchedItemsAmount,
  type Step,
} from '../discounts'
import { type FormulaContext, type FormulaUse, resolveDiscountFormulas } from '../formulas'
import { payWithPoints } from '../reward-costs'
import { appliedResults, calculationModeFor, noEffectDecision, planStack, type StackDecision } from '../stacking'
import {
  hasBudgetFormula,
  unitLimitsOf,
  unitRoomOf,
  unitScopeOf,
  unitsTaken,
  unitUseFromRows,
  withUnits,
} from './budgets'
import {
  availableCredits,
  availablePoints,
  type CheckFailure,
  checkRules,
  checkSubject,
  rewardPoints,
} from './check-subject'
import type {
  AppliedEffect,
  PipelineInput,
  PipelineResult,
  RedeemableSubject,
  SubjectOutcome,
  UnitLimits,
} from './pipeline-types'
import { siblingKeys, sumKey, withSiblings } from './siblings'

/**
 * The validation of a stackable request, as one pure decision (docs/concepts.md#validation-and-redemption):
 * 1. each redeemable's own checks; 2. stacking sorts and selects (limits, exclusivity, ALL/PARTIAL);
 * 3. effects in application order on the running order, each redeemable's validation rules checked
 * on the order as it stands when its turn comes; 4. the no-effect rule.
 * A redeemable that steps 3–4 turn down changes what stacking selects, so selection runs again until
 * nothing changes: at most twice per redeemable, since each round settles one more of them.
 */
export function decideRedeemables(input: PipelineInput): PipelineResult {
  const own = new Map<number, CheckFailure>()
  for (const subject of input.subjects) {
    const failure = checkSubject(subject, input)
    if (failure) own.set(subject.index, failure)
  }
  const turnedDown = new Map<number, Turndown>()
  const noEffect = new Set<number>()
  const bySubject = new Map(input.subjects.map((s) => [s.index, s]))

  for (let round = 0; round <= 2 * input.subjects.length + 1; round++) {
    const decisions = planStack(
      input.subjects.map((s) => ({
        index: s.index,
        categories: s.categories,
        status: own.has(s.index) || turnedDown.has(s.index) ? 'INAPPLICABLE' : 'APPLICABLE',
        no_effect: noEffect.has(s.index),
      })),
      input.rules,
    )
    const run = runSequence(decisions, bySubject, input, noEffect)
    if (run.change === null) return finish(decisions, run.applied, own, turnedDown, input)
    if (run.change.kind === 'no_effect') noEffect.add(run.change.index)
    else turnedDown.set(run.change.index, run.change.turndown)
  }
  // Each round adds one redeemable to `turnedDown` or `noEffect`, neither of which shrinks.
  throw new Error('decideRedeemables: stacking did not settle')
}

interface Turndown extends CheckFailure {
  bundle?: Bundle
}

type Change = { kind: 'no_effect'; index: number } | { kind: 'turned_down'; index: number; turndown: Turndown }

/** Step 3–4 for one selection: the effects in order, stopping at the first redeemable that changes the selection. */
function runSequence(
  decisions: readonly StackDecision[],
  subjects: ReadonlyMap<number, RedeemableSubject>,
  input: PipelineInput,
  noEffect: ReadonlySet<number>,
): { change: Change | null; applied: Map<number, AppliedEffect> } {
  const applied = new Map<number, AppliedEffect>()
  const options: CalculationOptions = {
    rounding: input.rounding,
    productsApplicationMode: input.rules.redeemables_products_application_mode,
    collections: input.collections,
    prices: input.prices,
  }
  let running = input.order
  // Redeemables of one request count together against their campaign's limits: each is checked on
  // the counters plus what the ones applied before it add (docs/storage.md#counters).
  const siblings = new Map<string, number>()
  // The same for unit budgets: the units the ones before took, by counter row (`unitsTaken`).
  const unitsBefore = new Map<string, number>()
  for (const decision of decisions) {
    if (decision.decision !== 'APPLY') continue
    const own = subjects.get(decision.index) as RedeemableSubject
    const subject = withSiblings(own, siblings, input.customer !== null && input.customer !== undefined)
    const effect = effectOf(subject, running, input, unitsBefore)
    if ('turndown' in effect)
      return { change: { kind: 'turned_down', index: subject.index, turndown: effect.turndown }, applied }
    const result = effect.step ? applyStep(running, effect.step, options) : null
    const after = result?.order ?? running
    const bounds: CounterBound[] = []
    const rules = checkRules(subject, input, running, after, result?.applied.total_discount_amount ?? 0, bounds)
    if (rules) {
      const turndown: Turndown = effect.bundle ? { ...rules, bundle: effect.bundle } : rules
      return { change: { kind: 'turned_down', index: subject.index, turndown }, applied }
    }
    if (
      result?.effect === 'no_effect' &&
      !noEffect.has(subject.index) &&
      noEffectDecision(subject.categories, input.rules) === 'SKIP'
    ) {
      return { change: { kind: 'no_effect', index: subject.index }, applied }
    }
    const entry: AppliedEffect = { step: result, order: after }
    if (bounds.length > 0) entry.budget_bounds = bounds
    if (effect.unit_limits && result) {
      // Units this step discounted per line, as the budgets took them (a line's cumulative count is capped by its quantity).
      const units = new Array<number>(after.items.length).fill(0)
      for (const line of result.applied.lines) units[line.index] = (units[line.index] ?? 0) + line.discount_quantity
      entry.unit_budgets = { limits: effect.unit_limits, units }
      const scope = unitScopeOf(subject, input.customer?.id ?? null)
      const included = targetingOf(subject)?.included ?? []
      if (scope) {
        for (const [id, n] of unitsTaken(included, scope, withUnits(after.items, units), input.collections))
          unitsBefore.set(id, (unitsBefore.get(id) ?? 0) + n)
      }
    }
    if (effect.gift) entry.gift = { ...effect.gift, credits: result?.applied.credited_amount ?? 0 }
    if (effect.loyalty_card) entry.loyalty_card = effect.loyalty_card
    if (effect.bundle) entry.bundle = effect.bundle
    if (effect.discount) entry.discount = effect.discount
    const lineUses = result?.applied.formulas
    if (effect.formulas || lineUses) {
      entry.formulas = [...(effect.formulas ?? []), ...(lineUses ?? [])]
      // Values set per line (a price_formula, a formula reading ORDER_ITEM_*) make the discount dynamic too.
      if (!entry.discount && lineUses && effect.step?.kind === 'discount') {
        entry.discount = { ...effect.step.discount, is_dynamic: true }
      }
    }
    applied.set(subject.index, entry)
    running = after
    for (const key of siblingKeys(own)) siblings.set(key, (siblings.get(key) ?? 0) + 1)
    // What it adds to its campaign's sums, as its commit counts them (the order after it, its discount).
    const sums = sumKey(own)
    if (sums !== null) {
      siblings.set(`a:${sums}`, (siblings.get(`a:${sums}`) ?? 0) + (after.amount ?? 0))
      siblings.set(`d:${sums}`, (siblings.get(`d:${sums}`) ?? 0) + (after.total_applied_discount_amount ?? 0))
    }
  }
  return { change: null, applied }
}

type Effect =
  | {
      step: Step | null
      gift?: { credits: number; balance: number }
      loyalty_card?: { points: number }
      bundle?: Bundle
      discount?: Discount
      formulas?: FormulaUse[]
      unit_limits?: (UnitLimits | undefined)[]
    }
  | { turndown: Turndown }

/** What a redeemable does to the order as it stands: a discount, a credit, or (a reward) nothing but points. */
function effectOf(
  subject: RedeemableSubject,
  running: CalculatedOrder,
  input: PipelineInput,
  units: ReadonlyMap<string, number>,
): Effect {
  const voucher = subject.voucher
  if (voucher?.type === 'GIFT_VOUCHER') {
    // Without `gift.credits` the card pays what it can of what is left (docs/behaviour.md#credits).
    const credits = subject.gift?.credits ?? Math.min(availableCredits(subject), running.total_amount)
    const gift = { credits, balance: voucher.gift?.balance ?? 0 }
    if (voucher.gift?.effect !== 'APPLY_TO_ITEMS') {
      return { step: { kind: 'credit', amount: credits, source: 'gift_card' }, gift }
    }
    const applicableTo = targetingOf(subject)
    if (matchedItemsAmount(running, creditTargets(running, applicableTo, input.collections)) === 0) {
      return { turndown: missingItemsAmount(applicableTo) }
    }
    const step: Step = { kind: 'credit', amount: credits, source: 'gift_card', effect: 'APPLY_TO_ITEMS' }
    if (applicableTo) step.applicable_to = applicableTo
    return { step, gift }
  }
  if (voucher?.type === 'LOYALTY_CARD') return loyaltyEffect(subject, running)

  const discount = subject.tier ? subject.tier.action.discount : voucher?.discount
  if (!discount) return { step: null }
  const bundle = bundleOf(subject, running, input)
  if (bundle && bundle.quantity === 0) {
    return {
      turndown: {
        error: {
          code: 400,
          key: 'order_rules_violated',
          message: 'order does not match validation rules',
          details: 'The order does not hold a complete bundle',
          request_id: null,
        },
        explanation: {
          check: 'bundle',
          detail: 'products of the bundle are missing from the order',
          expected: bundle.missing,
        },
        bundle,
      },
    }
  }
  const applicableTo = targetingOf(subject)
  // Formulas cost nothing when absent: the context is built only for a discount or target that has one.
  const formulas = hasAnyFormula(discount, applicableTo) ? formulaContext(subject, running, input) : undefined
  const resolved = formulas ? resolveDiscountFormulas(discount, formulas, input.rounding) : null
  const step: Step = {
    kind: 'discount',
    discount: resolved?.discount ?? discount,
    calculationMode: calculationModeFor(subject.categories, input.rules),
    ...(bundle ? { bundleMultiplier: bundle.quantity } : {}),
  }
  if (applicableTo) step.applicable_to = applicableTo
  if (formulas) step.formulas = formulas
  const out: Effect = bundle ? { step, bundle } : { step }
  if (resolved) {
    out.discount = resolved.discount
    out.formulas = resolved.uses
  }
  const included = applicableTo?.included ?? []
  const scope = subject.unit_counters !== undefined ? unitScopeOf(subject, input.customer?.id ?? null) : null
  if (subject.unit_counters !== undefined && scope !== null && included.length > 0) {
    const budgetFormulas = hasBudgetFormula(included)
      ? (formulas ?? formulaContext(subject, running, input))
      : undefined
    const uses: FormulaUse[] = []
    const limits = unitLimitsOf(included, subject.tier !== undefined, budgetFormulas, uses)
    const used = unitUseFromRows(included, scope, subject.unit_counters, running.items, input.collections, units)
    const room = unitRoomOf(used, limits)
    if (room.some((r) => r !== undefined)) step.unitRoom = room
    if (uses.length > 0) out.formulas = [...(out.formulas ?? []), ...uses]
    if (limits.some((l) => l !== undefined)) out.unit_limits = limits
  }
  return out
}

function hasAnyFormula(discount: Discount, applicableTo: ApplicableTo | undefined): boolean {
  const d = discount as { amount_off_formula?: string; percent_off_formula?: string; fixed_amount_formula?: string }
  if (d.amount_off_formula || d.percent_off_formula || d.fixed_amount_formula) return true
  if (discount.type === 'UNIT') {
    if ('units' in discount ? discount.units.some((u) => u.unit_off_formula) : discount.unit_off_formula) return true
  }
  return applicableTo?.included?.some((e) => e.price_formula) === true
}

/**
 * What the redeemable's formulas read (docs/behaviour.md#formulas): the order as it stands when its turn comes,
 * the customer, the redemption's metadata, and the voucher's or tier's metadata and counters.
 */
function formulaContext(subject: RedeemableSubject, running: CalculatedOrder, input: PipelineInput): FormulaContext {
  const voucher = subject.voucher
  const tier = subject.tier
  const campaign = subject.campaign
  // A code's or tier's own dates, else its campaign's: the window it is valid in.
  const dates = (own: { start_date?: string | null; expiration_date?: string | null }) => ({
    start_date: own.start_date ?? campaign?.start_date ?? null,
    expiration_date: own.expiration_date ?? campaign?.expiration_date ?? null,
  })
  return {
    order: running,
    customer: input.customer,
    redemption: { metadata: input.redemption_metadata },
    redeemable: voucher
      ? {
          metadata: voucher.metadata,
          redemption_quantity: voucher.redemption?.quantity,
          redeemed_quantity: voucher.redemption?.redeemed_quantity,
          publish_count: voucher.publish?.count,
        }
      : { metadata: tier?.metadata },
    voucher: voucher ? dates(voucher) : null,
    promotion_tier: tier ? dates(tier) : null,
    now: input.now,
    timeZone: input.timeZone,
  }
}

/**
 * A gift card that covers items only, and the order has none of them with an amount
 * (docs/errors.md#result-keys, docs/concepts.md#gift-cards).
 */
function missingItemsAmount(applicableTo: ApplicableTo | undefined): Turndown {
  return {
    error: {
      code: 400,
      key: 'missing_order_items_amount',
      message: 'Missing applicable order items',
      details: 'At least one applicable order item with amount is required to redeem this GIFT_VOUCHER',
      request_id: null,
    },
    explanation: {
      check: 'gift.effect',
      detail: 'the gift card covers matched items only (APPLY_TO_ITEMS) and no matched order item has an amount',
      expected: applicableTo ?? 'any order item with an amount',
      actual: 0,
    },
  }
}

function loyaltyEffect(subject: RedeemableSubject, running: CalculatedOrder): Effect {
  const reward = subject.loyalty?.reward
  const coin = reward?.type === 'COIN' ? reward.parameters.coin : undefined
  if (!coin) return { step: null, loyalty_card: { points: rewardPoints(subject) ?? 0 } }
  const paid = payWithPoints(coin, {
    remainingTotal: running.total_amount,
    balance: availablePoints(subject),
    requestedPoints: subject.reward?.points ?? null,
  })
  if (!paid.ok) {
    const code = subject.voucher?.code ?? subject.requested_id
    return {
      turndown: {
        error: {
          code: 400,
          key: 'loyalty_card_points_exceeded',
          message: 'loyalty card points exceeded',
          details: code,
          request_id: null,
        },
        explanation: {
          check: 'loyalty_card.balance',
          detail: paid.reason,
          expected: availablePoints(subject),
          actual: paid.requested,
        },
      },
    }
  }
  return {
    step: { kind: 'credit', amount: paid.discount, source: 'loyalty_points' },
    loyalty_card: { points: paid.points },
  }
}

/** The bundles the redeemable's rules identify in the order; the smallest count decides the multiplier. */
function bundleOf(subject: RedeemableSubject, running: CalculatedOrder, input: PipelineInput): Bundle | undefined {
  let found: Bundle | undefined
  // The profile alone decides: the cart need not hold the bundle.
  if (input.audience_only) return undefined
  for (const rule of subject.validation_rules) {
    if (!rule.bundle_rules) continue
    const bundle = evaluateBundle(rule.bundle_rules, running.items, input.collections)
    if (!found || bundle.quantity < found.quantity) found = bundle
  }
  return found
}

/** The products a discount may touch: the `applicable_to` of every rule assigned to the redeemable. */
export function targetingOf(subject: Pick<RedeemableSubject, 'validation_rules'>): ApplicableTo | undefined {
  const withTargets = subject.validation_rules.filter((r) => r.applicable_to)
  if (withTargets.length === 0) return undefined
  const included = withTargets.flatMap((r) => r.applicable_to?.included ?? [])
  const excluded = withTargets.flatMap((r) => r.applicable_to?.excluded ?? [])
  const includedAll = withTargets.some((r) => r.applicable_to?.included_all === true)
  if (included.length === 0 && excluded.length === 0 && !includedAll) return undefined
  return { included, excluded, included_all: includedAll }
}

function finish(
  decisions: readonly StackDecision[],
  applied: ReadonlyMap<number, AppliedEffect>,
  own: ReadonlyMap<number, CheckFailure>,
  turnedDown: ReadonlyMap<number, Turndown>,
  input: PipelineInput,
): PipelineResult {
  const outcomes: SubjectOutcome[] = decisions.map((d) => {
    switch (d.decision) {
      case 'APPLY': {
        const a = applied.get(d.index) as AppliedEffect
        return { index: d.index, status: 'APPLICABLE', ...a }
      }
      case 'INAPPLICABLE': {
        const f = (own.get(d.index) ?? turnedDown.get(d.index)) as Turndown
        const outcome: SubjectOutcome = {
          index: d.index,
          status: 'INAPPLICABLE',
          error: f.error,
          details: { key: f.error.key, message: f.error.error?.message ?? f.error.message },
          explanation: f.explanation,
        }
        return f.bundle ? { ...outcome, bundle: f.bundle } : outcome
      }
      case 'SKIP': {
        const name = (index: number) => {
          const s = input.subjects.find((x) => x.index === index)
          return s?.voucher?.code ?? s?.tier?.id ?? s?.requested_id ?? String(index)
        }
        const blocked = d.explanation.blocked_by
        const filled = d.explanation.counted
        return {
          index: d.index,
          status: 'SKIPPED',
          details: { key: d.key, message: d.message },
          explanation: {
            check: 'stacking',
            key: d.key,
            limit: d.explanation.limit,
            value: d.explanation.value,
            ...(d.explanation.category_id === undefined ? {} : { category_id: d.explanation.category_id }),
            ...(blocked === undefined ? {} : { blocked_by: name(blocked) }),
            ...(filled && filled.length > 0 ? { filled_by: filled.map(name) } : {}),
          },
        }
      }
      default: {
        const _never: never = d
        return _never
      }
    }
  })
  const redeem = appliedResults(outcomes, input.rules).map((o) => o.index)
  const valid = !outcomes.some((o) => o.status === 'INAPPLICABLE')
  // The order carries only what is redeemed: nothing when an ALL-mode request fails.
  let last = input.order
  for (const o of outcomes) {
    if (o.status === 'APPLICABLE' && redeem.includes(o.index) && o.step) last = o.step.order
  }
  return { outcomes, order: finalizeOrder(input.order, last), valid, redeem }
}
