import type { Campaign } from '../../model/campaign'
import type { Customer } from '../../model/customer'
import type { Redemption } from '../../model/redemption'
import type { ValidationRule } from '../../model/validation-rule'
import type { Store } from '../../ports'
import type { EvalCounters, PeriodCounts } from '../../rules/conditions'
import type { Collections } from '../../rules/discounts'
import {
  countUnitsUsed,
  hasUnitBudget,
  type RedeemableSubject,
  targetingOf,
  type UnitBudgetUse,
} from '../../rules/redeemables'
import { localParts } from '../../rules/zoned-time'

/*
 * The engine's counters a budget rule reads (docs/concepts.md#rule-names): redemptions of a code or tier and of
 * its campaign, per customer and per calendar period in the engine's time zone, and the campaign's
 * order totals. Read only when an assigned rule names one of them.
 */

const COUNTER_RULE = /"name":"(redemption\.count|campaign\.)/

export function needsCounters(rules: readonly ValidationRule[]): boolean {
  return rules.some((r) => COUNTER_RULE.test(JSON.stringify(r.rules)))
}

/** The engine's counters a budget rule reads: successful, not rolled back redemptions, by calendar period. */
export async function countersFor(
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

/**
 * Units the redeemable's targeting entries have used of their unit budgets (docs/concepts.md#targeting), from the
 * successful, not rolled back child redemptions of its campaign (a code without a campaign: of the
 * code). Undefined, and nothing read, when no entry has a budget.
 */
export async function unitBudgetsFor(
  store: Store,
  subject: RedeemableSubject,
  customer: Customer | undefined,
  collections: Collections,
): Promise<(UnitBudgetUse | undefined)[] | undefined> {
  const included = targetingOf(subject)?.included ?? []
  if (!included.some(hasUnitBudget)) return undefined
  const campaignId = subject.campaign?.id ?? subject.tier?.campaign_id
  const where = campaignId
    ? { related_object_parent_id: campaignId }
    : subject.voucher
      ? { related_object_id: subject.voucher.id }
      : undefined
  const past =
    where === undefined
      ? []
      : (await store.redemptions.list({ where })).data
          .map((s) => s.value)
          .filter((r) => r.result === 'SUCCESS' && r.status !== 'ROLLED_BACK' && r.redemption !== null)
          .map((r) => ({
            customer_id: r.customer_id,
            related_object_id: r.related_object_id,
            items: r.order?.items ?? [],
          }))
  return countUnitsUsed(
    included,
    past,
    { tier_id: subject.tier?.id ?? null, customer_id: customer?.id ?? null },
    collections,
  )
}
