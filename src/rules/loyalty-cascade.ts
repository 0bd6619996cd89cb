import type { Campaign } from '../model/campaign'
import type {
  EarningRule,
  LoyaltyTier,
  PointsBucket,
  PointsExpirationRules,
  Reward,
  RewardAssignment,
} from '../model/loyalty'
import type { ValidationRule } from '../model/validation-rule'
import { type EvaluationContext, evaluateValidationRule, redeemableLabel } from './conditions'
import { calculateEarnedPoints, type EarningInput, selectEarningRules, tierEarningMapping } from './earned-points'
import { availablePoints, credit } from './ledger'
import { effectiveExpirationRules, pendingActivationDate, pointsExpiryDate } from './points-expiry'
import { autoRedemptions, rewardCost, tierRewardMapping } from './reward-costs'
import { effectiveTierId, type MemberTierStanding, qualifyingPoints, type TierEvent, transitionTier } from './tiers'
import { checkValidity } from './time-validity'

/**
 * The loyalty cascade (docs/concepts.md#earning-rules, docs/concepts.md#tiers): what one trigger does to
 * a member of one program, decided on a loaded snapshot and returned as steps, in the order they
 * happen. A payment, a custom event, a segment entry, a reward redemption, a rollback, an expiry —
 * every change of a card's points — runs this one function; the operation writes its steps, and the
 * points estimate reads them without writing.
 *
 * The order, as the hosted service runs it: each earning rule the event fires credits the card (the
 * member's tier mapping applied); after every credit the program's auto-redeem reward is redeemed as
 * many times as the balance pays for, then the tier is recalculated on what is left, and each tier
 * event fires its own earning rules in turn (each card, event and tier at most once per cascade, so a
 * tier rule cannot loop).
 */

/** A program as the cascade reads it. */
export interface CascadeProgram {
  campaign: Pick<Campaign, 'id' | 'auto_join' | 'loyalty_tiers_expiration' | 'voucher'> &
    Partial<
      Pick<
        Campaign,
        'active' | 'start_date' | 'expiration_date' | 'validity_timeframe' | 'validity_day_of_week' | 'validity_hours'
      >
    >
  /** Earning rules, oldest first (the order they fire in). */
  rules: readonly EarningRule[]
  /** The validation rules the earning rules name, by id. */
  validationRules: Readonly<Record<string, ValidationRule>>
  /** Tiers, lowest range first. */
  tiers: readonly LoyaltyTier[]
  /** The program's auto-redeem reward, what it costs and the validation rules of its assignment. */
  autoRedeem: { assignment: RewardAssignment; reward: Reward; rules: readonly ValidationRule[] } | null
}

/** Who the cascade credits: the conditions read the customer; tier rules earn on the customer alone. */
export interface CascadeCustomer {
  id: string
  source_id: string | null
  metadata: Record<string, unknown>
  segments?: readonly string[] | undefined
  birthdate?: string | null | undefined
}

/** A member's card in the program: the spendable balance, the ledger and the tier standing. */
export interface CascadeCard {
  voucher_id: string
  /** `loyalty_card.balance`: what a BALANCE tier compares. */
  balance: number
  /**
   * The points spendable now, what auto-redeem pays with: the balance less points past their expiry
   * not swept yet. Without it, the spendable points of `buckets` (which must then be the whole ledger).
   */
  spendable?: number
  /** The ledger the cascade reads: buckets credited in the tier period, for POINTS_IN_PERIOD tiers. */
  buckets: readonly PointsBucket[]
  standing: MemberTierStanding | null
  /** The card's holder; without one nothing is auto-redeemed and no tier is held. */
  customer: CascadeCustomer | null
}

/** The day's auto-redemptions of the customer: this transaction's count, and earlier transactions. */
export interface AutoRedeemRun {
  redeemed: number
  runsToday: number
}

export type CascadeTrigger =
  /** An event that fires earning rules (`order.paid`, a segment entered, a custom event). */
  | {
      type: 'event'
      event: string
      earning: EarningInput
      conditions: Partial<Pick<EvaluationContext, 'order' | 'custom_event'>>
      segmentId?: string | null
      customEventSchemaId?: string | null
      /** Rules before this index are skipped: they fired before the card existed (auto-join). */
      fromRule?: number
      /** The card was created for this event: what its creation added is settled first. */
      joined?: boolean
    }
  /** Points were added outside earning rules (a card created with points, a reward, an activation). */
  | { type: 'points_added' }
  /** Points went down or time passed (a spend, a rollback, an expiry, a tier lapse). */
  | { type: 'points_changed' }

export type CascadeStep =
  | {
      type: 'credit'
      rule: EarningRule
      event: string
      points: number
      /** Pending points: activated at `activates_at`, counted nowhere until then. */
      pending: { activates_at: Date; expiration_rules: PointsExpirationRules | null } | null
      expires_at: Date | null
    }
  | { type: 'auto_redeem'; times: number; points: number; tier_id: string | null }
  | { type: 'tier'; standing: MemberTierStanding; events: readonly TierEvent[] }

export interface CascadeResult {
  steps: CascadeStep[]
  /** With no card: the index of the first rule that would credit an `auto_join` program's new member. */
  join: number | null
  balance: number
  standing: MemberTierStanding | null
}

export interface CascadeInput {
  program: CascadeProgram
  card: CascadeCard | null
  /** Whom the conditions of an event read when there is no card yet (auto-join). */
  customer: CascadeCustomer
  trigger: CascadeTrigger
  run: AutoRedeemRun
  now: Date
  timeZone: string
}

export function runCascade(input: CascadeInput): CascadeResult {
  const { program, trigger, now, timeZone } = input
  const result: CascadeResult = {
    steps: [],
    join: null,
    balance: input.card?.balance ?? 0,
    standing: input.card?.standing ?? null,
  }
  if (trigger.type === 'event') {
    if (!checkValidity(program.campaign, now, { timeZone }).ok) return result
    const fired = selectEarningRules(program.rules, {
      event: trigger.event,
      now,
      timeZone,
      segmentId: trigger.segmentId ?? null,
      customEventSchemaId: trigger.customEventSchemaId ?? null,
    })
    if (input.card === null) {
      if (!program.campaign.auto_join) return result
      const at = fired.findIndex(
        (rule) =>
          ruleApplies(input, rule, trigger.conditions, input.customer) &&
          calculateEarnedPoints(rule.loyalty, trigger.earning) > 0,
      )
      result.join = at < 0 ? null : at
      return result
    }
    const member = new Member(input, input.card, result.steps)
    if (trigger.joined) member.afterPointsAdded(new Set())
    fired.forEach((rule, index) => {
      if (index < (trigger.fromRule ?? 0)) return
      if (!ruleApplies(input, rule, trigger.conditions, member.customer ?? input.customer)) return
      if (member.credit(rule, trigger.event, trigger.earning) > 0) member.afterPointsAdded(new Set())
    })
    return member.result(result)
  }
  if (input.card === null) return result
  const member = new Member(input, input.card, result.steps)
  if (trigger.type === 'points_added') member.afterPointsAdded(new Set())
  else member.afterPointsChanged(new Set())
  return member.result(result)
}

/** An earning rule's validation rule on what the trigger says of the order or event, and the customer. */
function ruleApplies(
  input: CascadeInput,
  rule: EarningRule,
  conditions: Partial<Pick<EvaluationContext, 'order' | 'custom_event'>>,
  who: CascadeCustomer,
): boolean {
  if (!rule.validation_rule_id) return true
  const vr = input.program.validationRules[rule.validation_rule_id]
  if (!vr) return false
  return evaluateValidationRule(vr, {
    order: conditions.order ?? {},
    customer: { id: who.id, source_id: who.source_id, metadata: who.metadata, segments: who.segments ?? [] },
    ...(conditions.custom_event ? { custom_event: conditions.custom_event } : {}),
    now: input.now,
    timeZone: input.timeZone,
  }).passed
}

/** The state of one cascade over one card: a copy of the ledger that the steps change as they go. */
class Member {
  balance: number
  /** What auto-redeem can still pay with. */
  spendable: number
  buckets: PointsBucket[]
  standing: MemberTierStanding | null
  readonly customer: CascadeCustomer | null
  private stock: number | null

  constructor(
    private readonly input: CascadeInput,
    private readonly card: CascadeCard,
    private readonly steps: CascadeStep[],
  ) {
    this.balance = card.balance
    this.spendable = card.spendable ?? availablePoints(card.buckets, input.now)
    this.buckets = [...card.buckets]
    this.standing = card.standing
    this.customer = card.customer
    const reward = input.program.autoRedeem?.reward
    this.stock = reward?.type === 'MATERIAL' ? reward.stock : null
  }

  result(into: CascadeResult): CascadeResult {
    into.balance = this.balance
    into.standing = this.standing
    return into
  }

  private tier(): LoyaltyTier | null {
    const { now, timeZone, program } = this.input
    const id = effectiveTierId(this.standing, now, timeZone)
    if (id === null) return null
    const tier = program.tiers.find((t) => t.id === id)
    if (!tier) return null
    const expiration = this.standing?.expiration
    return expiration ? { ...tier, expiration } : tier
  }

  /** Credits what a rule earns (tier mapping applied); returns the points that changed the balance. */
  credit(rule: EarningRule, event: string, earning: EarningInput): number {
    const { now, timeZone, program } = this.input
    const points = calculateEarnedPoints(rule.loyalty, earning, tierEarningMapping(this.tier(), rule.id))
    if (points <= 0) return 0
    const rules = effectiveExpirationRules(
      rule.expiration_rules,
      program.campaign.voucher?.loyalty_card?.expiration_rules,
    )
    if (rule.pending_points) {
      const activates_at = pendingActivationDate(now, rule.pending_points, timeZone)
      const pending = { activates_at, expiration_rules: rules ?? null }
      this.steps.push({ type: 'credit', rule, event, points, pending, expires_at: null })
      return 0
    }
    const expires_at = pointsExpiryDate(now, rules, timeZone)
    this.steps.push({ type: 'credit', rule, event, points, pending: null, expires_at })
    this.balance += points
    this.spendable += points
    this.buckets = credit(this.buckets, {
      id: `~${this.steps.length}`,
      points,
      expiresAt: expires_at,
      createdAt: now,
      voucherId: this.card.voucher_id,
      campaignId: program.campaign.id,
      customerId: this.customer?.id ?? null,
      source: { type: 'earning_rule', id: rule.id },
    })
    return points
  }

  afterPointsAdded(fired: Set<string>): void {
    this.autoRedeem()
    this.afterPointsChanged(fired)
  }

  afterPointsChanged(fired: Set<string>): void {
    for (const event of this.retier()) this.fireTierRules(event, fired)
  }

  private autoRedeem(): void {
    const { now, timeZone, program, run } = this.input
    const offer = program.autoRedeem
    const holder = this.customer
    if (!offer || !holder || offer.reward.type === 'COIN') return
    const tier = this.tier()
    const cost = rewardCost(offer.reward, offer.assignment, tierRewardMapping(tier, offer.reward.id))
    if (!cost.ok) return
    const times = autoRedemptions({
      balance: this.spendable,
      cost: cost.points,
      redeemedInTransaction: run.redeemed,
      runOpen: run.redeemed > 0,
      runsToday: run.runsToday,
      stock: this.stock,
    })
    if (times === 0) return
    const context: EvaluationContext = {
      order: {},
      customer: {
        id: holder.id,
        source_id: holder.source_id,
        metadata: holder.metadata,
        segments: holder.segments ?? [],
        loyalty_tiers: tier === null ? [] : [tier.id],
      },
      redemption: { metadata: {}, points_used: cost.points },
      now,
      timeZone,
    }
    const subject = { subject: redeemableLabel('LOYALTY_CARD') }
    if (offer.rules.some((rule) => !evaluateValidationRule(rule, context, subject).passed)) return
    // Spending does not change what was credited in the period (the buckets), only the balance.
    this.balance -= cost.points * times
    this.spendable -= cost.points * times
    if (this.stock !== null) this.stock -= times
    run.redeemed += times
    this.steps.push({ type: 'auto_redeem', times, points: cost.points, tier_id: tier?.id ?? null })
  }

  private retier(): readonly TierEvent[] {
    const { now, timeZone, program } = this.input
    const holder = this.customer
    if (program.tiers.length === 0 || !holder) return []
    const config = program.campaign.loyalty_tiers_expiration
    const transition = transitionTier({
      tiers: program.tiers,
      config,
      current: this.standing,
      points: qualifyingPoints(config, { balance: this.balance, buckets: this.buckets }, now, timeZone),
      now,
      timeZone,
      customerId: holder.id,
      campaignId: program.campaign.id,
    })
    if (!transition.changed) return []
    this.standing = transition.standing
    this.steps.push({ type: 'tier', standing: transition.standing, events: transition.events })
    return transition.events
  }

  private fireTierRules(event: TierEvent, fired: Set<string>): void {
    const { now, timeZone, program } = this.input
    const key = `${event.type}|${event.tier_id}`
    if (fired.has(key)) return
    fired.add(key)
    const holder = this.customer
    if (!holder) return
    const rules = selectEarningRules(program.rules, { event: event.type, now, timeZone, tierId: event.tier_id })
    const earning: EarningInput = {
      customer: { metadata: holder.metadata, birthdate: holder.birthdate ?? null },
      now,
      timeZone,
    }
    for (const rule of rules) {
      if (!ruleApplies(this.input, rule, {}, holder)) continue
      if (this.credit(rule, event.type, earning) > 0) this.afterPointsAdded(fired)
    }
  }
}
