import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Campaign } from '../../model/campaign'
import type { ListEnvelope, Validity } from '../../model/common'
import type { PromotionCampaign, PromotionStack, PromotionTier } from '../../model/promotion'
import type { ValidationRule, ValidationRuleAssignment } from '../../model/validation-rule'
import { offerTargets, withoutTargets } from '../../rules/qualifications'
import { nonEmptyString, orderOf } from '../../schema/common'
import { parse } from '../../schema/parse'
import { promotionCampaignInput, stackInput, stacksQuery, type TierInput, tierInput } from '../../schema/promotion'
import type {
  PromotionsCreateParams,
  PromotionsStacksCreateParams,
  PromotionsStacksListParams,
  PromotionsTiersCreateParams,
} from '../../schema/requests'
import { checkValidity } from '../../schema/validity'
import type { FieldFilter, Store, Stored } from '../../storage/ports'
import { envelope } from '../kernel/list-envelope'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import { type Context, mutate, type Tx } from '../kernel/unit-of-work'
import { buildCampaign, findCampaign } from './campaign-records'
import { resolveCategoryRef } from './category-records'
import { type AssignmentRequest, assignRules, readRules } from './rule-assignments'

const VALIDITY_FIELDS = [
  'start_date',
  'expiration_date',
  'validity_timeframe',
  'validity_day_of_week',
  'validity_hours',
] as const

/** The validity fields the input gave (absent ones stay absent rather than becoming null). */
function validityOf(input: Validity): Omit<Validity, 'active'> {
  const out: Record<string, unknown> = {}
  for (const field of VALIDITY_FIELDS) if (input[field] !== undefined) out[field] = input[field]
  return out as Omit<Validity, 'active'>
}

function campaignSummary(campaign: Campaign): PromotionTier['campaign'] {
  return {
    id: campaign.id,
    ...validityOf(campaign),
    active: campaign.active ?? true,
    category_id: campaign.category_id,
    object: 'campaign',
  }
}

/**
 * Builds a tier and the assignments of its validation rules; `path` locates the tier in the request.
 * `rules` holds the rules the request names (read once for all its tiers): the tier's target keys
 * come from them (docs/qualifications.md#candidates).
 */
async function newTier(
  tx: Tx,
  campaign: Campaign,
  input: TierInput,
  hierarchy: number,
  path: string,
  rules: ReadonlyMap<string, Stored<ValidationRule>>,
): Promise<{ tier: PromotionTier; assignments: AssignmentRequest[] }> {
  checkValidity(input, { prefix: path, inheritedStartDate: campaign.start_date })
  const category = await resolveCategoryRef(tx, { category_id: input.category_id }, path)
  const tier: PromotionTier = {
    id: tx.id(ID_PREFIX.promotion_tier),
    name: input.name,
    banner: input.banner ?? null,
    action: { discount: input.action.discount },
    metadata: await enforceMetadata(
      tx,
      'promotion_tier',
      input.metadata,
      path === '' ? 'metadata' : `${path}.metadata`,
    ),
    hierarchy: input.hierarchy ?? hierarchy,
    // The hosted service reports the parent promotion campaign here; we use the campaign id.
    promotion_id: campaign.id,
    campaign_id: campaign.id,
    campaign: campaignSummary(campaign),
    ...validityOf(input),
    active: input.active ?? true,
    summary: {
      redemptions: { total_redeemed: 0 },
      orders: { total_amount: 0, total_discount_amount: 0 },
    },
    category_id: category?.id ?? null,
    categories: category ? [category] : [],
    created_at: tx.nowIso,
    updated_at: null,
    object: 'promotion_tier',
    targets: offerTargets((input.validation_rules ?? []).flatMap((id) => rules.get(id)?.value ?? [])),
  }
  const assignments = (input.validation_rules ?? []).map((ruleId, i) => ({
    ruleId,
    relatedObjectType: 'promotion_tier' as const,
    relatedObjectId: tier.id,
    path: `${path === '' ? '' : `${path}.`}validation_rules[${i}]`,
    relatedIsNew: true as const,
  }))
  return { tier, assignments }
}

/** A tier as read: its validation rule assignments come from the assignments collection. */
async function withAssignments(store: Store, tier: PromotionTier): Promise<PromotionTier> {
  const page = await store.validation_rule_assignments.list({ where: { related_object_id: tier.id } })
  return { ...withoutTargets(tier), validation_rule_assignments: envelope('data', page) }
}

/**
 * New tiers with the assignments just made for them, without reading them back (one list per tier
 * would read every stored assignment once per tier). Listed as the store lists them: `created_at`
 * (one commit shares it), then id.
 */
function withNewAssignments(
  tiers: readonly PromotionTier[],
  made: readonly ValidationRuleAssignment[],
): PromotionTier[] {
  const byTier = new Map<string, ValidationRuleAssignment[]>()
  for (const a of made) {
    const list = byTier.get(a.related_object_id)
    if (list) list.push(a)
    else byTier.set(a.related_object_id, [a])
  }
  return tiers.map((tier) => {
    const data = (byTier.get(tier.id) ?? []).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    return {
      ...withoutTargets(tier),
      validation_rule_assignments: { object: 'list', data_ref: 'data', data, total: data.length },
    }
  })
}

/** A promotion campaign by id or name, like every other `campaignId` path; 404 for any other campaign. */
async function promotionCampaign(store: Store, campaignId: string): Promise<Stored<Campaign>> {
  const found = await findCampaign(store, campaignId)
  if (found?.value.campaign_type !== 'PROMOTION') throw EngineError.notFound('campaign', campaignId, 'campaignId')
  return found
}

async function tierOf(store: Store, id: string): Promise<Stored<PromotionTier>> {
  const found = await store.promotion_tiers.get(parse(nonEmptyString, id, 'promotionTierId'))
  if (!found) throw EngineError.notFound('promotion_tier', id, 'promotionTierId')
  return found
}

export function promotions(ctx: Context) {
  async function setActive(id: string, active: boolean): Promise<PromotionTier> {
    const tier = await mutate(ctx, async (tx) => {
      const stored = await tierOf(tx.store, id)
      return tx.update('promotion_tiers', stored, { ...stored.value, active, updated_at: tx.nowIso })
    })
    return withAssignments(ctx.store, tier)
  }

  async function listStacks(query: unknown, campaignId?: string): Promise<ListEnvelope<'data', PromotionStack>> {
    const q = parse(stacksQuery, query ?? {})
    const where: Record<string, FieldFilter> = {}
    if (campaignId !== undefined) where.campaign_id = campaignId
    if (q.created_at) where.created_at = q.created_at
    if (q.updated_at) where.updated_at = q.updated_at
    const limit = q.limit ?? 10
    const page = await ctx.store.promotion_stacks.list({
      where,
      order: orderOf(q.order, 'created_at'),
      limit,
      page: q.page ?? 1,
    })
    return envelope('data', page)
  }

  return {
    /**
     * Creates a `PROMOTION` campaign with its tiers. Tiers without `hierarchy` take their position
     * (1, 2, …). The result carries the tiers expanded as `promotion: {object: 'list', tiers, …}`;
     * the stored campaign keeps only their ids.
     */
    async create(body: PromotionsCreateParams, _options?: CallOptions): Promise<PromotionCampaign> {
      const input = parse(promotionCampaignInput, body)
      const { campaign, tiers, made } = await mutate(ctx, async (tx) => {
        const campaign = await buildCampaign(
          tx,
          { ...input, type: input.type ?? 'STATIC' },
          { campaign_type: 'PROMOTION', promotion: { tiers: [] } },
        )
        const tiers: PromotionTier[] = []
        const assignments: AssignmentRequest[] = []
        const rules = await readRules(
          tx.store,
          input.promotion.tiers.flatMap((t) => t.validation_rules ?? []),
        )
        for (const [i, tierBody] of input.promotion.tiers.entries()) {
          const made = await newTier(tx, campaign, tierBody, i + 1, `promotion.tiers[${i}]`, rules)
          tiers.push(tx.insert('promotion_tiers', made.tier))
          assignments.push(...made.assignments)
        }
        const made = await assignRules(tx, assignments, rules)
        campaign.promotion = { tiers: tiers.map((t) => t.id) }
        tx.insert('campaigns', campaign)
        return { campaign, tiers, made }
      })
      const rendered = withNewAssignments(tiers, made)
      return {
        ...campaign,
        promotion: { object: 'list', data_ref: 'tiers', tiers: rendered, total: rendered.length, has_more: false },
      }
    },

    tiers: {
      /** Adds a tier to a promotion campaign; without `hierarchy` it comes after the existing tiers. */
      async create(
        campaignId: string,
        body: PromotionsTiersCreateParams,
        _options?: CallOptions,
      ): Promise<PromotionTier> {
        const id = parse(nonEmptyString, campaignId, 'campaignId')
        const input = parse(tierInput, body)
        const tier = await mutate(ctx, async (tx) => {
          const [campaign, rules] = await Promise.all([
            promotionCampaign(tx.store, id),
            readRules(tx.store, input.validation_rules ?? []),
          ])
          const siblings = await tx.store.promotion_tiers.getMany(campaign.value.promotion?.tiers ?? [])
          const next = Math.max(0, ...siblings.map((s) => s.value.hierarchy)) + 1
          const made = await newTier(tx, campaign.value, input, next, '', rules)
          tx.insert('promotion_tiers', made.tier)
          await assignRules(tx, made.assignments, rules)
          // Updating the campaign also serialises concurrent tier creation on it.
          tx.update('campaigns', campaign, {
            ...campaign.value,
            promotion: { tiers: [...(campaign.value.promotion?.tiers ?? []), made.tier.id] },
            updated_at: tx.nowIso,
          })
          return made.tier
        })
        return withAssignments(ctx.store, tier)
      },

      async get(id: string, _options?: CallOptions): Promise<PromotionTier> {
        return withAssignments(ctx.store, (await tierOf(ctx.store, id)).value)
      },

      /** `GET /v1/promotions/{campaignId}/tiers`: the campaign's tiers in hierarchy order. */
      async list(
        campaignId: string,
        _options?: CallOptions,
      ): Promise<ListEnvelope<'tiers', PromotionTier> & { has_more: false }> {
        const campaign = await promotionCampaign(ctx.store, parse(nonEmptyString, campaignId, 'campaignId'))
        const stored = await ctx.store.promotion_tiers.getMany(campaign.value.promotion?.tiers ?? [])
        const tiers = stored.map((s) => s.value).sort((a, b) => a.hierarchy - b.hierarchy)
        const rendered = await Promise.all(tiers.map((t) => withAssignments(ctx.store, t)))
        return { object: 'list', data_ref: 'tiers', tiers: rendered, total: rendered.length, has_more: false }
      },

      /** Sets `active` true (and `updated_at`). */
      enable: (id: string, _options?: CallOptions) => setActive(id, true),

      /** Sets `active` false (and `updated_at`). */
      disable: (id: string, _options?: CallOptions) => setActive(id, false),
    },

    stacks: {
      /** Creates a stack of 1–30 distinct tiers, all of this campaign, applied in the order given. */
      async createInCampaign(
        campaignId: string,
        body: PromotionsStacksCreateParams,
        _options?: CallOptions,
      ): Promise<PromotionStack> {
        const id = parse(nonEmptyString, campaignId, 'campaignId')
        const input = parse(stackInput, body)
        return mutate(ctx, async (tx) => {
          const campaign = await promotionCampaign(tx.store, id)
          const tiers = await tx.store.promotion_tiers.getMany(input.tiers.ids)
          for (const [i, tierId] of input.tiers.ids.entries()) {
            const tier = tiers.find((t) => t.value.id === tierId)
            if (!tier) throw EngineError.notFound('promotion_tier', tierId)
            if (tier.value.campaign_id !== campaign.value.id) {
              throw EngineError.invalid(
                `tiers.ids[${i}]`,
                `is a tier of campaign ${tier.value.campaign_id}, not ${campaign.value.id}`,
              )
            }
          }
          const category = await resolveCategoryRef(tx, { category_id: input.category_id })
          const stack: PromotionStack = {
            id: tx.id(ID_PREFIX.promotion_stack),
            name: input.name,
            campaign_id: campaign.value.id,
            tiers: { ids: [...input.tiers.ids], hierarchy_mode: input.tiers.hierarchy_mode ?? 'MANUAL' },
            category_id: category?.id ?? null,
            categories: category ? [category] : [],
            created_at: tx.nowIso,
            updated_at: null,
            object: 'promotion_stack',
          }
          return tx.insert('promotion_stacks', stack)
        })
      },

      async get(id: string, _options?: CallOptions): Promise<PromotionStack> {
        const found = await ctx.store.promotion_stacks.get(parse(nonEmptyString, id, 'stackId'))
        if (!found) throw EngineError.notFound('promotion_stack', id, 'stackId')
        return found.value
      },

      /** Every stack of the project: `limit` (default 10), `page`, `order`, `created_at`/`updated_at` bounds. */
      list: (query?: PromotionsStacksListParams, _options?: CallOptions) => listStacks(query),

      /** The stacks of one promotion campaign, with the same query as `list`. */
      async listInCampaign(
        campaignId: string,
        query?: PromotionsStacksListParams,
        _options?: CallOptions,
      ): Promise<ListEnvelope<'data', PromotionStack>> {
        const id = parse(nonEmptyString, campaignId, 'campaignId')
        const campaign = await promotionCampaign(ctx.store, id)
        return listStacks(query, campaign.value.id)
      },
    },
  }
}
