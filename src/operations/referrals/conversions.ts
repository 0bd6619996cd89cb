import { EngineError } from '../../errors'
import type { Campaign } from '../../model/campaign'
import type { RedeemableHolder } from '../../model/publication'
import type { Redemption } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import { refereeCredit, referrerOf } from '../../rules/referral-codes'
import type { Tx } from '../kernel/unit-of-work'
import { creditCampaignCard, takeBackCredit } from '../loyalty/earn-points'
import { customerInTx } from '../loyalty/points-events'
import { findHolder, newHolder } from '../vouchers/publishing'
import { findVoucher } from '../vouchers/voucher-records'

/** What recording a referee did: the referee's holder row, and whether the referral converted now. */
export interface ReferralOutcome {
  /** The referee's holder row (new or existing); null when the customer may not be a referee of the code. */
  holder: RedeemableHolder | null
  /** True when this call converted the referral (`customer.referred` was emitted). */
  referred: boolean
  /** Why it did not convert, when `referred` is false. */
  reason?: NoReferralReason
  /** The referee reward credited by this conversion (double-sided programs). */
  referee_credit?: { voucher_id: string; amount: number }
}

export type NoReferralReason =
  | 'not_a_referral_code'
  | 'not_published'
  | 'referrer'
  | 'already_referred'
  | 'converts_on_custom_event'
  | 'converts_on_redemption'
  | 'other_custom_event'

/**
 * Makes a customer the referee of a referral code: a holder row (`holder_role` OWNER — the service interface's
 * roles are REFERRER and OWNER only, and the referrer is the REFERRER), then, when `convert`, the
 * `customer.referred` activity for the referee naming the referrer, at most once per referee and code.
 */
async function recordReferee(
  tx: Tx,
  voucher: Voucher,
  campaign: Campaign | undefined,
  customerId: string,
  convert: NoReferralReason | true,
  related?: { id: string; type: 'redemption' },
): Promise<ReferralOutcome> {
  if (!voucher.is_referral_code) return { holder: null, referred: false, reason: 'not_a_referral_code' }
  const referrer = referrerOf(voucher)
  if (!referrer) return { holder: null, referred: false, reason: 'not_published' }
  if (referrer === customerId) return { holder: null, referred: false, reason: 'referrer' }
  const stored = await findHolder(tx, voucher.id, customerId)
  const holder = stored?.value ?? tx.insert('redeemable_holders', newHolder(tx, voucher, campaign, customerId, 'OWNER'))
  if (convert !== true) return { holder, referred: false, reason: convert }
  // Rewriting the holder makes concurrent conversions of one referee conflict: one commit converts.
  if (stored) tx.update('redeemable_holders', stored, stored.value)
  // A customer is referred by a handful of codes at most: their referral events are read whole.
  const earlier = await tx.store.activities.list({
    where: { customer_id: customerId, type: 'customer.referred' },
    count: false,
  })
  const referral = (a: { data?: unknown }) => (a.data as { referral?: { voucher_id?: string } }).referral
  if (earlier.data.some((s) => referral(s.value)?.voucher_id === voucher.id)) {
    return { holder, referred: false, reason: 'already_referred' }
  }
  tx.emit(
    'customer.referred',
    customerId,
    {
      customer: { id: customerId },
      referrer: { id: referrer, object: 'customer' },
      referral: { code: voucher.code, voucher_id: voucher.id, campaign_id: voucher.campaign_id },
      // What converted it, for the referee's `referrals` (docs/behaviour.md#customer-loyalty-and-referrals).
      ...(related ? { related_object: related } : {}),
    },
    { campaign_id: voucher.campaign_id, campaign_type: 'REFERRAL_PROGRAM' },
  )
  const credit = await rewardReferee(tx, campaign, customerId)
  return credit ? { holder, referred: true, referee_credit: credit } : { holder, referred: true }
}

/**
 * A double-sided program credits the referee's card of the reward's campaign when the referral
 * converts, in the same commit (a card is published or the program joined when they hold none).
 */
async function rewardReferee(
  tx: Tx,
  campaign: Campaign | undefined,
  customerId: string,
): Promise<{ voucher_id: string; amount: number } | undefined> {
  const reward = refereeCredit(campaign?.referral_program)
  if (!reward || !campaign) return undefined
  const target = await tx.store.campaigns.get(reward.campaignId)
  const customer = await customerInTx(tx, customerId)
  if (!target || !customer) return undefined
  const card = await creditCampaignCard(tx, target, customer, reward.amount, {
    source: { type: 'referral', id: campaign.id },
    data: { referral: { campaign_id: campaign.id } },
    path: 'referral_program.referee_reward',
  })
  return { voucher_id: card.id, amount: reward.amount }
}

/** Takes back what a rolled-back redemption credited its referee (see `rewardReferee`). */
export async function takeBackRefereeCredit(tx: Tx, redemption: Redemption): Promise<void> {
  const credit = redemption.referee_credit
  if (!credit) return
  const issued = await tx.store.vouchers.get(credit.voucher_id)
  if (issued) await takeBackCredit(tx, issued, credit.amount)
}

async function programOf(tx: Tx, voucher: Voucher): Promise<Campaign | undefined> {
  return voucher.campaign_id ? (await tx.store.campaigns.get(voucher.campaign_id))?.value : undefined
}

/**
 * For the redemption pipeline: a referee redeemed a referral code. The referee becomes a holder of the
 * code (idempotent) and, when the program converts on redemption (the default), the referral converts
 * (`customer.referred`, once per referee). The caller checks `isReferrer` first and fails the
 * redemption with `referrer_not_permitted_to_redeem`; here a referrer is a no-op.
 */
export async function recordReferral(
  tx: Tx,
  args: { voucher: Voucher; customerId: string; redemptionId?: string },
): Promise<ReferralOutcome> {
  const campaign = await programOf(tx, args.voucher)
  const onCustomEvent = campaign?.referral_program?.conversion_event_type === 'custom_event'
  const related = args.redemptionId === undefined ? undefined : { id: args.redemptionId, type: 'redemption' as const }
  return recordReferee(
    tx,
    args.voucher,
    campaign,
    args.customerId,
    onCustomEvent ? 'converts_on_custom_event' : true,
    related,
  )
}

/**
 * For `events.create`: a custom event carrying `referral {code, referrer_id?}` converts the referral
 * when the code's program converts on a custom event of that name. An unknown code is a 404, a code
 * that is not a referral code or a `referrer_id` other than the code's referrer a 400 (naming
 * `referral.code` / `referral.referrer_id`); any other reason not to convert is the outcome's `reason`.
 */
export async function convertReferralOnCustomEvent(
  tx: Tx,
  args: { eventName: string; customerId: string; referral: { code: string; referrer_id?: string | null } },
): Promise<ReferralOutcome> {
  const stored = await findVoucher(tx.store, args.referral.code)
  if (!stored) throw EngineError.notFound('voucher', args.referral.code)
  const voucher = stored.value
  if (!voucher.is_referral_code) throw EngineError.invalid('referral.code', 'is not a referral code')
  const referrer = referrerOf(voucher)
  if (args.referral.referrer_id != null && args.referral.referrer_id !== referrer) {
    throw EngineError.invalid('referral.referrer_id', `is not the referrer of code ${voucher.code}`)
  }
  const campaign = await programOf(tx, voucher)
  const program = campaign?.referral_program
  if (program?.conversion_event_type !== 'custom_event') {
    return { holder: null, referred: false, reason: 'converts_on_redemption' }
  }
  if (program.custom_event?.name !== args.eventName) {
    return { holder: null, referred: false, reason: 'other_custom_event' }
  }
  return recordReferee(tx, voucher, campaign, args.customerId, true)
}
