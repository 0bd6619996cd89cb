import type { EvalCounters, PeriodCounts } from '../conditions'
import type { RedeemableSubject } from './pipeline-types'

/*
 * Redeemables of one campaign in one request count together against its limits: each sees the
 * redemptions the earlier ones of the same request would make (docs/behaviour.md#unit-budgets).
 */

/** The campaign and the redeemable a subject counts for, as keys of the siblings' tally. */
export function siblingKeys(subject: RedeemableSubject): string[] {
  const campaignId = subject.campaign?.id ?? subject.voucher?.campaign_id ?? subject.tier?.campaign_id
  const id = subject.voucher?.id ?? subject.tier?.id
  return [...(campaignId ? [`c:${campaignId}`] : []), ...(id ? [`r:${id}`] : [])]
}

/** The row that sums a subject's order amounts and discounts: its campaign's (a standalone code's own). */
export function sumKey(subject: RedeemableSubject): string | null {
  return (
    subject.campaign?.id ?? subject.voucher?.campaign_id ?? subject.tier?.campaign_id ?? subject.voucher?.id ?? null
  )
}

/**
 * The subject with the redemptions of earlier redeemables of the same request added to its counters:
 * its campaign's and the customer's count in it, a distinct customer once (when the first of them
 * was the customer's first in the campaign), its campaign's sums of order amounts and discounts, and
 * its own code's counts for the same code twice.
 */
export function withSiblings(subject: RedeemableSubject, siblings: ReadonlyMap<string, number>, known: boolean) {
  const counters = subject.counters
  if (!counters || siblings.size === 0) return subject
  const tally = (prefix: string) =>
    siblingKeys(subject).reduce((n, key) => (key.startsWith(prefix) ? n + (siblings.get(key) ?? 0) : n), 0)
  const inCampaign = tally('c:')
  const same = tally('r:')
  const sums = sumKey(subject)
  const amount = sums === null ? 0 : (siblings.get(`a:${sums}`) ?? 0)
  const discounted = sums === null ? 0 : (siblings.get(`d:${sums}`) ?? 0)
  if (inCampaign === 0 && same === 0 && amount === 0 && discounted === 0) return subject
  const periods = ['total', 'daily', 'weekly', 'monthly'] as const
  const add = (p: PeriodCounts | undefined, by: (period: (typeof periods)[number]) => number): PeriodCounts =>
    Object.fromEntries(periods.map((x) => [x, (p?.[x] ?? 0) + by(x)]))
  const mine = counters.customer_campaign_redemptions
  const next: EvalCounters = {
    ...counters,
    campaign_redemptions: add(counters.campaign_redemptions, () => inCampaign),
    campaign_orders_amount: (counters.campaign_orders_amount ?? 0) + amount,
    campaign_orders_amount_discounted: (counters.campaign_orders_amount_discounted ?? 0) + discounted,
    redemptions: add(counters.redemptions, () => same),
  }
  if (known) {
    next.customer_campaign_redemptions = add(mine, () => inCampaign)
    next.campaign_customers = add(counters.campaign_customers, (x) =>
      inCampaign > 0 && (mine?.[x] ?? 0) === 0 ? 1 : 0,
    )
    next.customer_redemptions = add(counters.customer_redemptions, () => same)
  }
  return { ...subject, counters: next }
}
