import type { ReferralProgram } from '../model/campaign'
import type { Voucher } from '../model/voucher'

/** The customer who referred with this code: its referrer, else its holder; null for other codes. */
export function referrerOf(voucher: Voucher): string | null {
  if (!voucher.is_referral_code) return null
  return voucher.referrer_id ?? voucher.holder_id ?? null
}

/** Whether `customerId` is the referrer of this referral code, who may not redeem it (`referrer_not_permitted_to_redeem`). */
export function isReferrer(voucher: Voucher, customerId: string | null | undefined): boolean {
  return customerId != null && referrerOf(voucher) === customerId
}

/** What a double-sided program gives the referee: `amount` points or credits on their card of `campaignId`. */
export function refereeCredit(
  program: ReferralProgram | null | undefined,
): { campaignId: string; amount: number } | null {
  const reward = program?.referee_reward
  if (!reward) return null
  const amount = Number(reward.amount)
  if (!Number.isSafeInteger(amount) || amount <= 0) return null
  return { campaignId: reward.related_object_parent.id, amount }
}
