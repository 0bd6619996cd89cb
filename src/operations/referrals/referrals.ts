import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import type { ListEnvelope } from '../../model/common'
import type { RedeemableHolder } from '../../model/publication'
import { matchesFilters } from '../../rules/match-filters'
import { nonEmptyString, orderOf } from '../../schema/common'
import { parseListFilters } from '../../schema/list-filters'
import { parse } from '../../schema/parse'
import type { PublicationInput } from '../../schema/publication'
import { HOLDER_FILTER_FIELDS, holdersQuery, referralPublishInput } from '../../schema/referral'
import type { ReferralsListHoldersParams, ReferralsPublishParams } from '../../schema/requests'
import { findCampaign } from '../campaigns/campaign-records'
import { cursorPage } from '../kernel/list-envelope'
import type { Context } from '../kernel/unit-of-work'
import { type PublicationResult, publish } from '../vouchers/publishing'
import { findVoucher } from '../vouchers/voucher-records'

/** `listHolders(memberId, query?, options?)`, or within a campaign `listHolders(campaignId, memberId, query?, options?)`. */
export type ListHoldersArgs =
  | [memberId: string, query?: ReferralsListHoldersParams, options?: CallOptions]
  | [campaignId: string, memberId: string, query?: ReferralsListHoldersParams, options?: CallOptions]

export function referrals(ctx: Context) {
  return {
    /**
     * Publishes a code of a REFERRAL_PROGRAM campaign (id or name) to its referrer: the body of
     * `publications.create` without `campaign` (`customer`, `voucher?`, `source_id?`, `channel?`,
     * `metadata?`, `count?`). The referrer becomes the code's REFERRER holder.
     */
    async publish(
      campaignIdOrName: string,
      body: ReferralsPublishParams,
      _options?: CallOptions,
    ): Promise<PublicationResult> {
      const campaign = parse(nonEmptyString, campaignIdOrName, 'campaignId')
      const { count, ...rest } = parse(referralPublishInput, body)
      const input: PublicationInput = {
        ...rest,
        campaign: count === undefined ? { name: campaign } : { name: campaign, count },
      }
      return publish(ctx, input, 'REFERRAL_PROGRAM')
    },

    /**
     * The holders of a code (`memberId`: the code or its voucher id), optionally within a campaign (id
     * or name, first: `listHolders(campaignId, memberId, query?)`): `limit` 1–100 (default 10), `order`
     * `id`/`-id` (default creation order), `starting_after_id`, and `filters` (see `parseListFilters`;
     * fields `HOLDER_FILTER_FIELDS`).
     */
    async listHolders(...args: ListHoldersArgs): Promise<ListEnvelope<'data', RedeemableHolder>> {
      const [campaignId, memberId, query] =
        typeof args[1] === 'string' ? [args[0], args[1], args[2]] : [undefined, args[0], args[1]]
      const member = parse(nonEmptyString, memberId, 'memberId')
      const q = parse(holdersQuery, query ?? {})
      const filters = parseListFilters(q.filters, HOLDER_FILTER_FIELDS)
      const voucher = await findVoucher(ctx.store, member)
      if (!voucher) throw EngineError.notFound('voucher', member, 'memberId')
      if (campaignId !== undefined) {
        const ref = parse(nonEmptyString, campaignId, 'campaignId')
        const campaign = await findCampaign(ctx.store, ref)
        if (!campaign) throw EngineError.notFound('campaign', ref, 'campaignId')
        if (voucher.value.campaign_id !== campaign.value.id) throw EngineError.notFound('voucher', member, 'memberId')
      }
      const rows = await ctx.store.redeemable_holders.list({
        where: { redeemable_id: voucher.value.id },
        order: q.order ? orderOf(q.order, 'id') : { field: 'created_at', direction: 'asc' },
      })
      const page = cursorPage(rows.data, (h) => matchesFilters({ ...h }, filters), {
        limit: q.limit ?? 10,
        starting_after_id: q.starting_after_id,
      })
      return {
        object: 'list',
        data_ref: 'data',
        data: page.data.map((s) => s.value),
        total: page.total,
        has_more: page.has_more,
        more_starting_after: page.more_starting_after,
      }
    },
  }
}
