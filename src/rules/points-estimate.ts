import type { EarningRule } from '../model/loyalty'
import type { PointsEstimation } from '../model/qualification'
import { type EvaluationContext, evaluateValidationRule } from './conditions'
import { calculateEarnedPoints, type EarningInput, selectEarningRules } from './earned-points'
import {
  type AutoRedeemRun,
  type CascadeCard,
  type CascadeCustomer,
  type CascadeProgram,
  runCascade,
} from './loyalty-cascade'
import { effectiveTierId } from './tiers'

/**
 * What an order would earn in one loyalty program, decided on a loaded snapshot and written nowhere:
 * the hosted estimate (the order-paid rules, tiers ignored) and the cascade a payment really runs
 * (`runCascade`, the same function the payment uses) — the member's tier mapping on each order-paid
 * rule, the program's auto-redeem reward, the tier the new points reach, and the tier rules that
 * move fires.
 */
export interface PointsEstimateInput {
  program: CascadeProgram & { campaign: { name: string } }
  /** What the earning rules read: the order, the customer. */
  earning: EarningInput
  /** What their validation rules read. */
  conditions: Pick<EvaluationContext, 'order' | 'customer'>
  /** Whom the conditions of an auto-join read. */
  customer: CascadeCustomer
  /** The customer's card in the program, or null when not a member (nothing is credited). */
  card: CascadeCard | null
  /** The customer's auto-redemptions today. */
  run: AutoRedeemRun
  now: Date
  timeZone: string
}

export function estimatePoints(input: PointsEstimateInput): PointsEstimation {
  const { now, timeZone, program } = input
  const passes = (rule: EarningRule) => {
    if (!rule.validation_rule_id) return true
    const vr = program.validationRules[rule.validation_rule_id]
    return vr !== undefined && evaluateValidationRule(vr, { ...input.conditions, now, timeZone }).passed
  }
  const orderRules = selectEarningRules(program.rules, { event: 'order.paid', now, timeZone }).filter(passes)
  const estimate = orderRules.reduce((sum, rule) => sum + calculateEarnedPoints(rule.loyalty, input.earning), 0)

  const card = input.card
  const tierBefore = effectiveTierId(card?.standing ?? null, now, timeZone)
  const result = runCascade({
    program,
    card,
    customer: input.customer,
    trigger: {
      type: 'event',
      event: 'order.paid',
      earning: input.earning,
      conditions: { order: input.conditions.order },
    },
    run: { ...input.run },
    now,
    timeZone,
  })
  const cascade: PointsEstimation['cascade'] = {
    voucher_id: card?.voucher_id ?? null,
    points: 0,
    pending_points: 0,
    balance_before: card?.balance ?? 0,
    balance_after: result.balance,
    tier_before: tierBefore,
    tier_after: effectiveTierId(result.standing, now, timeZone),
    rules: [],
    tier_events: [],
    rewards: [],
  }
  for (const step of result.steps) {
    switch (step.type) {
      case 'credit':
        cascade.rules.push({
          earning_rule_id: step.rule.id,
          event: step.event,
          points: step.points,
          pending: step.pending !== null,
        })
        if (step.pending) cascade.pending_points += step.points
        else cascade.points += step.points
        break
      case 'auto_redeem':
        cascade.rewards.push({ reward_id: program.autoRedeem?.reward.id ?? '', times: step.times, points: step.points })
        break
      case 'tier':
        for (const event of step.events) cascade.tier_events.push({ type: event.type, tier_id: event.tier_id })
        break
      default: {
        const _never: never = step
        return _never
      }
    }
  }
  return {
    campaign: { id: program.campaign.id, name: program.campaign.name, object: 'campaign' },
    points_estimation: estimate,
    cascade,
  }
}
