import type { CustomerLoyalty, CustomerReferrals } from '../../model/customer'
import type { Voucher } from '../../model/voucher'
import {
  type Conversion,
  conversionOf,
  customerLoyalty,
  customerReferrals,
  referralCodesOf,
} from '../../rules/customer-relations'
import { effectiveTierId } from '../../rules/tiers'
import type { Store } from '../../storage/ports'
import { listAll } from '../kernel/list-all'
import { upgradeMemberTier } from '../kernel/shape-upgrades'
import type { Context } from '../kernel/unit-of-work'
import { memberTierId } from '../loyalty/member-tiers'

/**
 * A customer's `loyalty` and `referrals` (docs/behaviour.md#customer-loyalty-and-referrals), read
 * from declared indexes: the cards it holds (the wallet the summary reads too) and their tier
 * standings by id; its own `customer.referred` activities (it as the referee); and, when it holds a
 * referral code, the `customer.referred` activities naming it as the referrer. Two levels, at most
 * three reads besides the wallet, whatever its codes and referees.
 */
export async function readCustomerRelations(
  ctx: Context,
  customerId: string,
  held: Promise<Voucher[]>,
): Promise<{ loyalty: CustomerLoyalty; referrals: CustomerReferrals }> {
  const store = ctx.store
  const [wallet, own] = await Promise.all([held, referredActivities(store, customerId)])
  const cards = wallet.filter((v) => v.type === 'LOYALTY_CARD')
  const codes = referralCodesOf(customerId, wallet)
  const [standings, referred] = await Promise.all([
    cards.length === 0 ? [] : store.member_tiers.getMany(cards.map((c) => memberTierId(c.id))),
    referredBy(store, customerId, codes),
  ])
  const now = ctx.clock.now()
  const timeZone = ctx.config.timezone
  const tiers = new Map(
    standings.map(({ value }) => {
      const s = upgradeMemberTier(value, timeZone)
      const standing = { tier_id: s.tier_id, previous_tier_id: s.previous_tier_id ?? null, expiration: s.expiration }
      return [s.voucher_id, effectiveTierId(standing, now, timeZone)] as const
    }),
  )
  return { loyalty: customerLoyalty(customerId, wallet, tiers, referred), referrals: customerReferrals(own) }
}

/** The referrals that converted with the customer as the referee: its `customer.referred` activities. */
async function referredActivities(store: Store, customerId: string): Promise<Conversion[]> {
  const activities = await listAll(store, 'activities', {
    where: { customer_id: customerId, type: 'customer.referred' },
    order: { field: 'created_at', direction: 'asc' },
  })
  return activities.flatMap((a) => conversionOf(a) ?? [])
}

/**
 * The referrals the customer's codes converted: the `customer.referred` activities naming it as the
 * referrer, by their declared index, in one read (no limit: a referrer's conversions are its summary),
 * kept when the code is one the customer still holds as its referrer.
 */
async function referredBy(store: Store, customerId: string, codes: readonly Voucher[]): Promise<Conversion[]> {
  if (codes.length === 0) return []
  const ids = new Set(codes.map((c) => c.id))
  const page = await store.activities.list({
    where: { type: 'customer.referred', 'data.referrer.id': customerId },
    order: { field: 'created_at', direction: 'asc' },
    count: false,
  })
  const out: Conversion[] = []
  for (const { value } of page.data) {
    const c = conversionOf(value)
    if (c && ids.has(c.voucher_id) && c.referrer_id === customerId) out.push(c)
  }
  return out
}
