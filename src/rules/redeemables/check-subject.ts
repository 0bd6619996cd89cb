import type { Validity } from '../../model/common'
import type { CalculatedOrder } from '../../model/order'
import { type CounterBound, type EvaluationContext, evaluateValidationRule, redeemableLabel } from '../conditions'
import { isReferrer } from '../referral-codes'
import { rewardCost, tierRewardMapping } from '../reward-costs'
import {
  campaignValidityError,
  checkValidity,
  promotionTierValidityError,
  type ValidityReason,
  voucherValidityError,
} from '../time-validity'
import { localParts } from '../zoned-time'
import type { Explanation, PipelineInput, RedeemableError, RedeemableSubject } from './pipeline-types'

/** A "no" found by a redeemable's own checks: the hosted error, and which check decided it. */
export interface CheckFailure {
  error: RedeemableError
  explanation: Explanation
}

function failure(
  error: Omit<RedeemableError, 'request_id'>,
  check: string,
  detail: string,
  extra: { expected?: unknown; actual?: unknown } = {},
): CheckFailure {
  return { error: { ...error, request_id: null }, explanation: { check, detail, ...extra } }
}

/**
 * The checks a redeemable passes on its own, before stacking (step 1 of
 * docs/concepts.md#validation-and-redemption): it exists, it and its campaign are active now, it has uses,
 * credits or points left (counting live session locks), its loyalty reward is valid, and a referral code is
 * not redeemed by its referrer. Validation rules are checked separately, on the running order (`checkRules`).
 */
export function checkSubject(subject: RedeemableSubject, input: PipelineInput): CheckFailure | null {
  const { now, timeZone } = input
  if (!subject.voucher && !subject.tier) {
    const type = subject.object === 'voucher' ? 'voucher' : 'promotion_tier'
    const label = subject.object === 'voucher' ? 'voucher' : 'promotion tier'
    return failure(
      {
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: `Cannot find ${label} with id ${subject.requested_id}`,
        resource_id: subject.requested_id,
        resource_type: type,
      },
      'exists',
      `no ${label} has the id or code ${subject.requested_id}`,
    )
  }
  const campaign = subject.campaign
  if (campaign) {
    const verdict = checkValidity({ ...campaign, active: campaign.active ?? true }, now, {
      timeZone,
      timeframeAnchor: campaign.start_date ?? null,
    })
    if (!verdict.ok)
      return failure(
        campaignValidityError(verdict.reason, campaign.id),
        'campaign_validity',
        verdict.detail,
        validityFacts(campaign, verdict.reason, now, timeZone),
      )
  }
  if (subject.tier) {
    const tier = subject.tier
    const verdict = checkValidity(tier, now, {
      timeZone,
      timeframeAnchor: tier.start_date ?? campaign?.start_date ?? null,
    })
    if (!verdict.ok)
      return failure(
        withCustomMessage(promotionTierValidityError(verdict.reason, tier.id), subject),
        'promotion_tier_validity',
        verdict.detail,
        validityFacts(tier, verdict.reason, now, timeZone),
      )
    return null
  }
  const voucher = subject.voucher
  if (!voucher) return null
  const verdict = checkValidity(voucher, now, { timeZone, timeframeAnchor: voucher.start_date ?? null })
  if (!verdict.ok)
    return failure(
      withCustomMessage(voucherValidityError(verdict.reason, voucher.code), subject),
      'voucher_validity',
      verdict.detail,
      validityFacts(voucher, verdict.reason, now, timeZone),
    )

  const quantity = voucher.redemption.quantity
  const locks = locksOf(subject)
  const used = voucher.redemption.redeemed_quantity + locks.count
  if (quantity !== null && used >= quantity) {
    return failure(
      { code: 400, key: 'quantity_exceeded', message: 'quantity exceeded', details: voucher.code },
      'redemption.quantity',
      `${voucher.redemption.redeemed_quantity} redeemed and ${locks.count} locked by sessions of ${quantity} allowed`,
      { expected: quantity, actual: used },
    )
  }
  if (isReferrer(voucher, input.customer?.id)) {
    return failure(
      {
        code: 400,
        key: 'referrer_not_permitted_to_redeem',
        message: 'voucher cannot be redeemed by referrer',
        details: voucher.code,
      },
      'referrer',
      'the customer is the referrer who published this code',
    )
  }
  switch (voucher.type) {
    case 'GIFT_VOUCHER':
      return checkGift(subject, voucher.code, input)
    case 'LOYALTY_CARD':
      return checkLoyalty(subject, voucher.code)
    case 'DISCOUNT_VOUCHER':
      return null
    default: {
      const _never: never = voucher.type
      return _never
    }
  }
}

/**
 * The custom message of the redeemable's validation rule (its `error.message`) also explains the
 * redeemable's own schedule: a merchant who writes "Promotion is inactive this weekend." on the rule of
 * a tier that is off at weekends wants it shown when the tier is off (docs/behaviour.md#custom-error-messages).
 */
function withCustomMessage<E extends Omit<RedeemableError, 'request_id'>>(error: E, subject: RedeemableSubject): E {
  const message = subject.validation_rules.find((r) => r.error?.message)?.error?.message
  return message ? { ...error, error: { message } } : error
}

function checkGift(subject: RedeemableSubject, code: string, input: PipelineInput): CheckFailure | null {
  const gift = subject.voucher?.gift
  if (!input.order_given || input.order.amount === 0) {
    return failure(
      {
        code: 400,
        key: 'missing_amount',
        message: 'Missing amount',
        details: 'Amount is required when redeeming a GIFT_VOUCHER',
      },
      'order.amount',
      'a gift card pays for an order, and the request has no order amount',
    )
  }
  const available = availableCredits(subject)
  const requested = subject.gift?.credits
  if (requested !== undefined && requested > available) {
    return failure(
      { code: 400, key: 'gift_amount_exceeded', message: 'gift amount exceeded', details: code },
      'gift.balance',
      `${requested} credits requested, ${available} available${locksOf(subject).credits > 0 ? ` (${locksOf(subject).credits} locked by sessions)` : ''}`,
      { expected: available, actual: requested },
    )
  }
  if (gift && gift.balance <= 0 && requested === undefined) {
    return failure(
      { code: 400, key: 'gift_amount_exceeded', message: 'gift amount exceeded', details: code },
      'gift.balance',
      'the gift card has no balance left',
      { expected: 1, actual: 0 },
    )
  }
  return null
}

/** What other sessions' live locks hold on the code (its `session_locks` as loaded). */
function locksOf(subject: RedeemableSubject): { count: number; credits: number; points: number } {
  const locks = subject.voucher?.session_locks
  // Stored with the credits and points negated (docs/storage.md#session-locks); absent fields are 0.
  return { count: locks?.count ?? 0, credits: -(locks?.minus_credits ?? 0), points: -(locks?.minus_points ?? 0) }
}

/** Gift credits the request may spend: the balance less what live sessions have locked. */
export function availableCredits(subject: RedeemableSubject): number {
  return Math.max(0, (subject.voucher?.gift?.balance ?? 0) - locksOf(subject).credits)
}

/** Points the request may spend: the card balance less what live sessions have locked. */
export function availablePoints(subject: RedeemableSubject): number {
  return Math.max(0, (subject.voucher?.loyalty_card?.balance ?? 0) - locksOf(subject).points)
}

function checkLoyalty(subject: RedeemableSubject, code: string): CheckFailure | null {
  if (!subject.reward) {
    return failure(
      {
        code: 400,
        key: 'missing_reward',
        message: 'Missing reward',
        details: 'A reward is required when redeeming a LOYALTY_CARD',
      },
      'reward',
      'a loyalty card pays with a reward, and the request names none',
    )
  }
  const loyalty = subject.loyalty
  if (!loyalty?.reward) {
    return failure(
      {
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: `Cannot find reward with id ${subject.reward.id}`,
        resource_id: subject.reward.id,
        resource_type: 'reward',
      },
      'reward',
      `no reward has the id ${subject.reward.id}`,
    )
  }
  if (!loyalty.assignment) {
    return failure(
      {
        code: 400,
        key: 'reward_not_assigned',
        message: 'Reward not assigned',
        details: `Reward ${loyalty.reward.id} is not assigned to the campaign of loyalty card ${code}`,
      },
      'reward.assignment',
      'the reward is not assigned to the card’s loyalty campaign',
    )
  }
  const available = availablePoints(subject)
  const requested = subject.reward.points ?? rewardPoints(subject)
  if (requested !== null && requested > available) {
    return failure(
      { code: 400, key: 'loyalty_card_points_exceeded', message: 'loyalty card points exceeded', details: code },
      'loyalty_card.balance',
      `${requested} points needed, ${available} available${locksOf(subject).points > 0 ? ` (${locksOf(subject).points} locked by sessions)` : ''}`,
      { expected: available, actual: requested },
    )
  }
  return null
}

/** The points a non-coin reward costs this member (the assignment, mapped by the member's tier). */
export function rewardPoints(subject: RedeemableSubject): number | null {
  const loyalty = subject.loyalty
  if (!loyalty?.reward || !loyalty.assignment || loyalty.reward.type === 'COIN') return null
  const mapping = loyalty.tier ? tierRewardMapping(loyalty.tier, loyalty.reward.id) : null
  const cost = rewardCost(loyalty.reward, loyalty.assignment, mapping)
  return cost.ok ? cost.points : null
}

/**
 * The validation rules of a redeemable on the order as it stands when its turn comes: `before` is the
 * running order (after the earlier redeemables), `after` the order with this redeemable applied.
 */
export function checkRules(
  subject: RedeemableSubject,
  input: PipelineInput,
  before: CalculatedOrder,
  after: CalculatedOrder,
  discount: number,
  bounds?: CounterBound[],
): CheckFailure | null {
  if (subject.validation_rules.length === 0) return null
  const context: EvaluationContext = {
    order: {
      amount: before.total_amount,
      total_amount: after.total_amount,
      initial_amount: input.order.amount,
      items: before.items,
      metadata: before.metadata,
    },
    customer: input.customer,
    redemption: {
      metadata: input.redemption_metadata,
      gift_credits: subject.gift?.credits ?? null,
      points_used: subject.reward?.points ?? null,
      discount_amount: discount,
    },
    ...(subject.counters ? { counters: subject.counters } : {}),
    ...(bounds ? { bounds } : {}),
    publication: { holder_id: subject.voucher?.holder_id ?? null, holder_source_id: subject.holder_source_id ?? null },
    now: input.now,
    timeZone: input.timeZone,
    collections: input.collections,
    ...(input.audience_only ? { audienceOnly: true } : {}),
  }
  for (const rule of subject.validation_rules) {
    const verdict = evaluateValidationRule(rule, context, { subject: subjectLabel(subject) })
    if (verdict.passed || !verdict.error) continue
    const { reason: _reason, ...error } = verdict.error
    return {
      error: { ...error, request_id: null },
      explanation: { check: 'validation_rule', rule_id: rule.id, failures: verdict.failures },
    }
  }
  return null
}

function subjectLabel(subject: RedeemableSubject): string {
  if (subject.tier) return redeemableLabel('PROMOTION_TIER')
  const voucher = subject.voucher
  if (!voucher) return redeemableLabel('DISCOUNT_VOUCHER')
  if (voucher.is_referral_code) return redeemableLabel('REFERRAL_CODE')
  return redeemableLabel(voucher.type)
}

/** The expected and actual values behind a validity "no": the setting that decided it, and now. */
function validityFacts(
  validity: Validity,
  reason: ValidityReason,
  now: Date,
  timeZone: string,
): { expected: unknown; actual: unknown } {
  switch (reason) {
    case 'disabled':
      return { expected: true, actual: validity.active ?? null }
    case 'not_started':
      return { expected: { start_date: validity.start_date ?? null }, actual: now.toISOString() }
    case 'expired':
      return { expected: { expiration_date: validity.expiration_date ?? null }, actual: now.toISOString() }
    case 'outside_timeframe':
      return { expected: { validity_timeframe: validity.validity_timeframe ?? null }, actual: now.toISOString() }
    case 'outside_day_of_week':
      return {
        expected: { validity_day_of_week: validity.validity_day_of_week ?? null },
        actual: localParts(now, timeZone).weekday,
      }
    case 'outside_hours':
      return { expected: { validity_hours: validity.validity_hours ?? null }, actual: localTime(now, timeZone) }
    default: {
      const _never: never = reason
      return _never
    }
  }
}

function localTime(now: Date, timeZone: string): string {
  const p = localParts(now, timeZone)
  return `${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')} (day ${p.weekday})`
}
