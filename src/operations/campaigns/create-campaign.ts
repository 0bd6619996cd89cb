import { EngineError } from '../../errors'
import type { Campaign, RefereeReward } from '../../model/campaign'
import { campaignInput } from '../../schema/campaign'
import { parse } from '../../schema/parse'
import type { CampaignsCreateParams } from '../../schema/requests'
import { type Context, mutate, type Tx } from '../kernel/unit-of-work'
import { generateCampaignVouchers } from '../vouchers/campaign-vouchers'
import { buildCampaign, findCampaign, normaliseVoucherTemplate, withNoRuleAssignments } from './campaign-records'

/** A referee reward names an existing campaign of its type: a loyalty program, or a gift campaign. */
async function checkRefereeReward(tx: Tx, reward: RefereeReward | undefined): Promise<void> {
  if (reward === undefined) return
  const path = 'referral_program.referee_reward.related_object_parent.id'
  const target = await findCampaign(tx.store, reward.related_object_parent.id)
  if (!target) throw EngineError.notFound('campaign', reward.related_object_parent.id, path)
  const wanted = reward.type === 'LOYALTY_CARD' ? 'LOYALTY_PROGRAM' : 'GIFT_VOUCHERS'
  if (target.value.campaign_type !== wanted) {
    throw EngineError.invalid(path, `must be a ${wanted} campaign for a ${reward.type} referee reward`)
  }
}

/**
 * Creates a DISCOUNT_COUPONS, GIFT_VOUCHERS or REFERRAL_PROGRAM campaign and its `vouchers_count`
 * codes in one commit. Loyalty programs and promotions are made by `loyalties.create` and
 * `promotions.create`, which need fields this shape does not have.
 */
export async function createCampaign(ctx: Context, body: CampaignsCreateParams): Promise<Campaign> {
  const input = parse(campaignInput, body)
  const campaignType = input.campaign_type
  if (campaignType === 'LOYALTY_PROGRAM' || campaignType === 'PROMOTION') {
    throw EngineError.invalid(
      'campaign_type',
      `${campaignType} campaigns are created with ${campaignType === 'PROMOTION' ? 'promotions.create' : 'loyalties.create'}`,
    )
  }
  const voucher = normaliseVoucherTemplate(campaignType, input.voucher, input.start_date)
  const count = input.vouchers_count ?? 0
  return mutate(ctx, async (tx) => {
    await checkRefereeReward(tx, input.referral_program?.referee_reward)
    const campaign = await buildCampaign(tx, input, {
      campaign_type: campaignType,
      voucher,
      vouchers_count: count,
      ...(input.referral_program !== undefined ? { referral_program: input.referral_program } : {}),
    })
    await generateCampaignVouchers(tx, campaign, count)
    return withNoRuleAssignments(tx.insert('campaigns', campaign))
  })
}
