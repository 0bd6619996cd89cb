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
