import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import type { Campaign } from '../../model/campaign'
import { nonEmptyString } from '../../schema/common'
import { parse } from '../../schema/parse'
import type { CampaignsCreateParams } from '../../schema/requests'
import type { Context } from '../kernel/unit-of-work'
import { findCampaign, withRuleAssignments } from './campaign-records'
import { createCampaign } from './create-campaign'

export function campaigns(ctx: Context) {
  return {
    /**
     * Creates a DISCOUNT_COUPONS, GIFT_VOUCHERS or REFERRAL_PROGRAM campaign and its `vouchers_count`
     * codes in one commit. Loyalty programs and promotions are made by `loyalties.create` and
     * `promotions.create`, which need fields this shape does not have.
     */
    create(body: CampaignsCreateParams, _options?: CallOptions): Promise<Campaign> {
      return createCampaign(ctx, body)
    },

    /** Reads a campaign by id or name. */
    async get(campaignId: string, _options?: CallOptions): Promise<Campaign> {
      const id = parse(nonEmptyString, campaignId, 'campaignId')
      const found = await findCampaign(ctx.store, id)
      if (!found) throw EngineError.notFound('campaign', id, 'campaignId')
      return withRuleAssignments(ctx.store, found.value)
    },
  }
}
