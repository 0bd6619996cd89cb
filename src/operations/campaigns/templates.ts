import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Campaign } from '../../model/campaign'
import type { ListEnvelope } from '../../model/common'
import type { CampaignTemplate } from '../../model/template'
import { matchesFilters } from '../../rules/match-filters'
import { CODE_CAMPAIGN_TYPES } from '../../schema/campaign'
import { nonEmptyString, orderOf } from '../../schema/common'
import { parseListFilters } from '../../schema/list-filters'
import { parse } from '../../schema/parse'
import type {
  CampaignsCreateParams,
  TemplatesCreateCampaignFromTemplateParams,
  TemplatesCreateCampaignTemplateParams,
  TemplatesListCampaignTemplatesParams,
} from '../../schema/requests'
import { fromTemplateInput, TEMPLATE_FILTER_FIELDS, templateInput, templatesQuery } from '../../schema/template'
import { cursorPage } from '../kernel/list-envelope'
import { type Context, must, mutate } from '../kernel/unit-of-work'
import { findCampaign } from './campaign-records'
import { createCampaign } from './create-campaign'

/**
 * The settings of a campaign a template keeps: what `campaigns.create` needs to make the same
 * campaign again. Not its codes, counts, statuses, ids or timestamps.
 */
function snapshot(c: Campaign): Record<string, unknown> {
  const s: Record<string, unknown> = {
    campaign_type: c.campaign_type,
    type: c.type,
    description: c.description ?? null,
    start_date: c.start_date ?? null,
    expiration_date: c.expiration_date ?? null,
    validity_timeframe: c.validity_timeframe ?? null,
    validity_day_of_week: c.validity_day_of_week ?? null,
    validity_hours: c.validity_hours ?? null,
    active: c.active ?? true,
    activity_duration_after_publishing: c.activity_duration_after_publishing ?? null,
    category_id: c.category_id,
    metadata: c.metadata,
    auto_join: c.auto_join,
    join_once: c.join_once,
    use_voucher_metadata_schema: c.use_voucher_metadata_schema,
  }
  if (c.voucher) s.voucher = c.voucher
  if (c.referral_program) s.referral_program = c.referral_program
  return s
}

export function templates(ctx: Context) {
  return {
    /**
     * Saves a DISCOUNT_COUPONS, GIFT_VOUCHERS or REFERRAL_PROGRAM campaign's settings (by id or name)
     * as a template. Loyalty programs and promotions are refused: their templates would need tiers
     * and earning rules that `campaigns.create` cannot recreate.
     */
    async createCampaignTemplate(
      body: TemplatesCreateCampaignTemplateParams,
      _options?: CallOptions,
    ): Promise<CampaignTemplate> {
      const input = parse(templateInput, body)
      return mutate(ctx, async (tx) => {
        const campaign = await findCampaign(tx.store, input.campaign_id)
        if (!campaign) throw EngineError.notFound('campaign', input.campaign_id)
        const type = campaign.value.campaign_type
        if (!(CODE_CAMPAIGN_TYPES as readonly string[]).includes(type)) {
          throw EngineError.invalid(
            'campaign_id',
            `is a ${type} campaign; templates are made of ${CODE_CAMPAIGN_TYPES.join(', ')} campaigns`,
          )
        }
        return tx.insert('campaign_templates', {
          id: tx.id(ID_PREFIX.campaign_template),
          name: input.name,
          description: input.description ?? null,
          campaign_type: type,
          campaign: snapshot(campaign.value),
          created_at: tx.nowIso,
          updated_at: null,
          object: 'campaign_template',
        })
      })
    },

    async getCampaignTemplate(id: string, _options?: CallOptions): Promise<CampaignTemplate> {
      return (
        await must(
          ctx,
          'campaign_templates',
          parse(nonEmptyString, id, 'campaignTemplateId'),
          'campaign_template',
          'campaignTemplateId',
        )
      ).value
    },

    /**
     * Templates: `limit` 1–100 (default 10), `starting_after_id`, `order` `id`/`-id` (default creation
     * order), `include_total` (default false: `total` only when true), `filters` on
     * `TEMPLATE_FILTER_FIELDS` (see `parseListFilters`).
     */
    async listCampaignTemplates(
      query: TemplatesListCampaignTemplatesParams = {},
      _options?: CallOptions,
    ): Promise<ListEnvelope<'campaign_templates', CampaignTemplate>> {
      const q = parse(templatesQuery, query ?? {})
      const filters = parseListFilters(q.filters, TEMPLATE_FILTER_FIELDS)
      const rows = await ctx.store.campaign_templates.list({
        order: q.order ? orderOf(q.order, 'id') : { field: 'created_at', direction: 'asc' },
      })
      const page = cursorPage(rows.data, (t) => matchesFilters({ ...t }, filters), {
        limit: q.limit ?? 10,
        starting_after_id: q.starting_after_id,
      })
      const list: ListEnvelope<'campaign_templates', CampaignTemplate> = {
        object: 'list',
        data_ref: 'campaign_templates',
        campaign_templates: page.data.map((s) => s.value),
        has_more: page.has_more,
        more_starting_after: page.more_starting_after,
      }
      if (q.include_total === true) list.total = page.total
      return list
    },

    /**
     * Creates a campaign from a template: the template's settings, then the request's fields over them
     * (`name` required; any field of `campaigns.create`, e.g. `vouchers_count`, `start_date`,
     * `metadata`). It is `campaigns.create` on that body, with the same checks and errors.
     */
    async createCampaignFromTemplate(
      templateId: string,
      body: TemplatesCreateCampaignFromTemplateParams,
      _options?: CallOptions,
    ): Promise<Campaign> {
      const id = parse(nonEmptyString, templateId, 'campaignTemplateId')
      const overrides = parse(fromTemplateInput, body)
      const template = await must(ctx, 'campaign_templates', id, 'campaign_template', 'campaignTemplateId')
      if (overrides.campaign_type !== undefined && overrides.campaign_type !== template.value.campaign_type) {
        throw EngineError.invalid('campaign_type', `must be ${template.value.campaign_type}, the template's type`)
      }
      // A stored template holds a parsed campaign (open to any field); `create` parses the merge again.
      return createCampaign(ctx, { ...template.value.campaign, ...overrides } as unknown as CampaignsCreateParams)
    },
  }
}
