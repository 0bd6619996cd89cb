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
import { upgradeMemberTier } from '../kernel/shape-upgrades'
import type { Context } from '../kernel/unit-of-work'
import { memberTierId } from '../loyalty/member-tiers'

/**
 * A customer's `loyalty` and `referrals` (docs/behaviour.md#customer-loyalty-and-referrals), read
 * from declared indexes: the cards it holds (the wallet the summary reads too) and their tier
 * standings by id; its own `customer.referred` activities (it as the referee); and, for each referral
 * code it holds, the code's referees and their `customer.referred` activities (it as the referrer).
 * A customer without referral codes costs two reads besides the wallet.
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
  const out: Conversion[] = []
  let after: string | undefined
  for (;;) {
    const page = await store.activities.list({
      where: { customer_id: customerId, type: 'customer.referred' },
      order: { field: 'created_at', direction: 'asc' },
      limit: 100,
      count: false,
      ...(after === undefined ? {} : { starting_after_id: after }),
    })
    for (const { value } of page.data) {
      const c = conversionOf(value)
      if (c) out.push(c)
    }
    if (!page.has_more || page.data.length === 0) return out
    after = page.data.at(-1)?.value.id
  }
}

/**
 * The referrals the customer's codes converted: each code's referees (its OWNER holders), and of their
 * conversions those of the code. A referee holds a code before it converts when the program converts
 * on a custom event, so the holder alone does not prove the referral.
 */
async function referredBy(store: Store, customerId: string, codes: readonly Voucher[]): Promise<Conversion[]> {
  if (codes.length === 0) return []
  const holders = await Promise.all(
    codes.map(async (code) => {
      const referees: string[] = []
      let after: string | undefined
      for (;;) {
        const page = await store.redeemable_holders.list({
          where: { redeemable_id: code.id },
          order: { field: 'created_at', direction: 'asc' },
          limit: 100,
          count: false,
          ...(after === undefined ? {} : { starting_after_id: after }),
        })
        for (const { value } of page.data) {
          if (value.holder_role === 'OWNER' && value.customer_id !== customerId) referees.push(value.customer_id)
        }
        if (!page.has_more || page.data.length === 0) return referees
        after = page.data.at(-1)?.value.id
      }
    }),
  )
  const ids = new Set(codes.map((c) => c.id))
  const referees = [...new Set(holders.flat())]
  const conversions = await Promise.all(referees.map((id) => referredActivities(store, id)))
  return conversions.flat().filter((c) => ids.has(c.voucher_id) && c.referrer_id === customerId)
}
