import type { CustomerLoyalty, CustomerReferrals } from '../model/customer'
import type { Voucher } from '../model/voucher'
import { referrerOf } from './referral-codes'

/**
 * A customer's `loyalty` and `referrals` (the hosted `CustomerLoyalty` and `CustomerReferrals`,
 * docs/behaviour.md#customer-loyalty-and-referrals), from what the customer holds and the referral
 * conversions that name them.
 */

/** A referral that converted: the referee's `customer.referred` activity. */
export interface Conversion {
  referee_id: string
  referrer_id: string
  campaign_id: string | null
  voucher_id: string
  /** What converted it: the redemption of the code, else (custom events, activities stored before) the code. */
  related_object: { id: string; type: string }
  date: string
}

/** A conversion as the referee's `customer.referred` activity recorded it; undefined for another activity. */
export function conversionOf(activity: {
  customer_id: string
  campaign_id?: string | null
  data: Record<string, unknown>
  created_at: string
}): Conversion | undefined {
  const data = activity.data as {
    referrer?: { id?: string }
    referral?: { voucher_id?: string; campaign_id?: string | null }
    related_object?: { id: string; type: string }
  }
  const referrer = data.referrer?.id
  const voucher = data.referral?.voucher_id
  if (!referrer || !voucher) return undefined
  return {
    referee_id: activity.customer_id,
    referrer_id: referrer,
    campaign_id: data.referral?.campaign_id ?? activity.campaign_id ?? null,
    voucher_id: voucher,
    related_object: data.related_object ?? { id: voucher, type: 'voucher' },
    date: activity.created_at,
  }
}

/**
 * `loyalty`: the points of the loyalty cards the customer holds (their spendable balance) and the tier
 * in force per program; the customers each of the customer's referral codes converted, per referral
 * campaign and in all (distinct customers).
 */
export function customerLoyalty(
  customerId: string,
  wallet: readonly Voucher[],
  tiers: ReadonlyMap<string, string | null>,
  referred: readonly Conversion[],
): CustomerLoyalty {
  const campaigns: CustomerLoyalty['campaigns'] = {}
  const entryOf = (id: string) => {
    const entry = campaigns[id] ?? {}
    campaigns[id] = entry
    return entry
  }
  let points = 0
  for (const card of wallet) {
    if (card.type !== 'LOYALTY_CARD' || !card.campaign_id) continue
    const balance = card.loyalty_card?.balance ?? 0
    points += balance
    const entry = entryOf(card.campaign_id)
    entry.points = (entry.points ?? 0) + balance
    const tier = tiers.get(card.id)
    if (tier) entry.loyalty_tier = tier
  }
  const mine = referred.filter((c) => c.referrer_id === customerId)
  const byCampaign = new Map<string, Set<string>>()
  for (const c of mine) {
    if (!c.campaign_id) continue
    const set = byCampaign.get(c.campaign_id) ?? new Set()
    set.add(c.referee_id)
    byCampaign.set(c.campaign_id, set)
  }
  for (const [campaignId, referees] of byCampaign) {
    entryOf(campaignId).referred_customers = referees.size
  }
  return { points, referred_customers: new Set(mine.map((c) => c.referee_id)).size, campaigns }
}

/** `referrals`: the customer as a referee, one item per referral that converted, oldest first. */
export function customerReferrals(conversions: readonly Conversion[]): CustomerReferrals {
  const items = [...conversions]
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
    .map((c) => ({
      campaign_id: c.campaign_id ?? '',
      referrer_id: c.referrer_id,
      related_object_id: c.related_object.id,
      related_object_type: c.related_object.type,
      date: c.date,
    }))
  return { total: items.length, campaigns: items }
}

/** The referral codes among what a customer holds that name them as the referrer. */
export const referralCodesOf = (customerId: string, wallet: readonly Voucher[]): Voucher[] =>
  wallet.filter((v) => v.is_referral_code && referrerOf(v) === customerId)
