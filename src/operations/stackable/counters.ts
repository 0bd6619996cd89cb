import type { Customer } from '../../model/customer'
import type { Counter, Store } from '../../ports'
import { type CounterScope, counterIds, evalCounters } from '../../rules/counters'
import type { Collections } from '../../rules/discounts'
import {
  countUnitsUsed,
  hasUnitBudget,
  type RedeemableSubject,
  targetingOf,
  type UnitBudgetUse,
} from '../../rules/redeemables'

/** The redemption counters of each subject (docs/storage.md#counters), read in one batch. */
export async function loadCounters(
  store: Store,
  subjects: readonly RedeemableSubject[],
  customer: Customer | undefined,
  now: Date,
  timeZone: string,
): Promise<Map<string, Counter>> {
  const ids = new Set<string>()
  for (const subject of subjects) {
    const scope = counterScope(subject, customer)
    if (scope) for (const id of counterIds(scope, now, timeZone)) ids.add(id)
  }
  const rows = ids.size === 0 ? [] : await store.counters.getMany([...ids])
  const found = new Map(rows.map((r) => [r.value.id, r.value]))
  for (const subject of subjects) {
    const scope = counterScope(subject, customer)
    if (scope) subject.counters = evalCounters(scope, found, now, timeZone)
  }
  return found
}

/** What a subject's redemption counts for, or null when the request names nothing stored. */
export function counterScope(subject: RedeemableSubject, customer: Customer | undefined): CounterScope | null {
  const redeemableId = subject.tier?.id ?? subject.voucher?.id
  if (redeemableId === undefined) return null
  return {
    redeemableId,
    campaignId: subject.tier?.campaign_id ?? subject.voucher?.campaign_id ?? null,
    customerId: customer?.id ?? null,
  }
}

/**
 * Units the redeemable's targeting entries have used of their unit budgets (reference §3.3), from the
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
