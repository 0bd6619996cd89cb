import type { EarningRule, LoyaltyTier, LoyaltyTiersExpiration } from '../model/loyalty'
import type { PointsEstimation } from '../model/qualification'
import type { ValidationRule } from '../model/validation-rule'
import { type EvaluationContext, evaluateValidationRule } from './conditions'
import { calculateEarnedPoints, type EarningInput, selectEarningRules, tierEarningMapping } from './earning'
import {
  effectiveTierId,
  type MemberTierStanding,
  type QualifyingBucket,
  qualifyingPoints,
  type TierEventType,
  transitionTier,
} from './tiers'

/**
 * What an order would earn in one loyalty program, decided on a loaded snapshot and written nowhere:
 * the hosted estimate (the order-paid rules, tiers ignored) and the cascade a payment really runs —
 * the member's tier mapping on each order-paid rule, the tier the new points reach, and the tier
 * rules that move fires, each tier event at most once (as the commit path does).
 *
 * Not modelled here: the program's auto-redeem reward, which runs before the tier check when a
 * payment commits (it may spend points and so change the tier reached).
 */
export interface PointsEstimateInput {
  campaign: { id: string; name: string; loyalty_tiers_expiration?: LoyaltyTiersExpiration | null }
  /** The program's earning rules, oldest first (the order they fire in). */
  rules: readonly EarningRule[]
  /** The validation rules the earning rules name, by id. */
  validationRules: Readonly<Record<string, ValidationRule>>
  /** What the earning rules read: the order, the customer. */
  earning: EarningInput
  /** What their validation rules read. */
  conditions: Pick<EvaluationContext, 'order' | 'customer'>
  /** The customer's card in the program, or null when not a member. */
  card: { voucher_id: string; customer_id: string; balance: number; buckets: readonly QualifyingBucket[] } | null
  /** The program's tiers and the member's standing. */
  tiers: readonly LoyaltyTier[]
  standing: MemberTierStanding | null
  now: Date
  timeZone: string
}

export function estimatePoints(input: PointsEstimateInput): PointsEstimation {
  const { now, timeZone } = input
  const passes = (rule: EarningRule) => {
    if (!rule.validation_rule_id) return true
    const vr = input.validationRules[rule.validation_rule_id]
    return vr !== undefined && evaluateValidationRule(vr, { ...input.conditions, now, timeZone }).passed
  }
  const fires = (event: string, tierId?: string) =>
    selectEarningRules(input.rules, { event, now, timeZone, ...(tierId ? { tierId } : {}) }).filter(passes)

  const orderRules = fires('order.paid')
  const estimate = orderRules.reduce((sum, rule) => sum + calculateEarnedPoints(rule.loyalty, input.earning), 0)

  const card = input.card
  const tierBefore = effectiveTierId(input.standing, now, timeZone)
  const cascade: PointsEstimation['cascade'] = {
    voucher_id: card?.voucher_id ?? null,
    points: 0,
    pending_points: 0,
    balance_before: card?.balance ?? 0,
    balance_after: card?.balance ?? 0,
    tier_before: tierBefore,
    tier_after: tierBefore,
    rules: [],
    tier_events: [],
  }
  if (card) {
    let standing = input.standing
    const buckets: QualifyingBucket[] = [...card.buckets]
    const fired = new Set<string>()
    const tierOf = () => {
      const id = effectiveTierId(standing, now, timeZone)
      return input.tiers.find((t) => t.id === id) ?? null
    }
    const credit = (rule: EarningRule, event: string): void => {
      const points = calculateEarnedPoints(rule.loyalty, input.earning, tierEarningMapping(tierOf(), rule.id))
      if (points <= 0) return
      const pending = rule.pending_points != null
      cascade.rules.push({ earning_rule_id: rule.id, event, points, pending })
      if (pending) {
        cascade.pending_points += points
        return
      }
      cascade.points += points
      cascade.balance_after += points
      buckets.push({ points, created_at: now.toISOString(), source: { type: 'earning_rule', id: rule.id } })
      retier()
    }
    const retier = (): void => {
      if (input.tiers.length === 0) return
      const transition = transitionTier({
        tiers: input.tiers,
        config: input.campaign.loyalty_tiers_expiration,
        current: standing,
        points: qualifyingPoints(
          input.campaign.loyalty_tiers_expiration,
          { balance: cascade.balance_after, buckets },
          now,
          timeZone,
        ),
        now,
        timeZone,
        customerId: card.customer_id,
        campaignId: input.campaign.id,
      })
      if (!transition.changed) return
      standing = transition.standing
      cascade.tier_after = effectiveTierId(standing, now, timeZone)
      for (const event of transition.events) {
        cascade.tier_events.push({ type: event.type, tier_id: event.tier_id })
        const key = `${event.type as TierEventType}|${event.tier_id}`
        if (fired.has(key)) continue
        fired.add(key)
        for (const rule of fires(event.type, event.tier_id)) credit(rule, event.type)
      }
    }
    for (const rule of orderRules) credit(rule, 'order.paid')
  }
  return {
    campaign: { id: input.campaign.id, name: input.campaign.name, object: 'campaign' },
    points_estimation: estimate,
    cascade,
  }
}
