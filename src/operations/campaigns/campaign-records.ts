import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Campaign, CampaignType, CampaignVoucher, VoucherType } from '../../model/campaign'
import type { Category } from '../../model/common'
import type { ValidationRuleAssignment } from '../../model/validation-rule'
import { resolveCodeConfig } from '../../rules/codes'
import type { CampaignBaseInput, CampaignVoucherInput } from '../../schema/campaign'
import { checkValidity } from '../../schema/validity'
import { checkVoucherValue } from '../../schema/voucher'
import type { Store, Stored } from '../../storage/ports'
import { duplicateFound } from '../kernel/duplicate-found'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import type { Context, Tx } from '../kernel/unit-of-work'
import { withCodeCounts } from '../vouchers/code-counts'
import { resolveCategoryRef } from './category-records'

/** The voucher type a campaign type's codes have. */
export const VOUCHER_TYPE_OF: Record<CampaignType, VoucherType | null> = {
  DISCOUNT_COUPONS: 'DISCOUNT_VOUCHER',
  REFERRAL_PROGRAM: 'DISCOUNT_VOUCHER',
  GIFT_VOUCHERS: 'GIFT_VOUCHER',
  LOYALTY_PROGRAM: 'LOYALTY_CARD',
  PROMOTION: null,
}

/**
 * Finds a campaign by id, else by its (unique) name: the service interface's `campaignId` takes either.
 * Both reads are issued together: one round trip on a database, not two (docs/storage.md#load-decide-commit).
 */
export async function findCampaign(store: Context['store'], idOrName: string): Promise<Stored<Campaign> | undefined> {
  const [byId, byName] = await Promise.all([store.campaigns.get(idOrName), store.campaigns.findBy('name', idOrName)])
  return byId ?? byName
}

/**
 * Checks a voucher template against its campaign type and normalises it: the type defaults to the
 * campaign's, the value object must match the type, `code_config` is reported with its `length` and
 * `charset` filled in, and a template timeframe needs a start date (its own or the campaign's).
 */
export function normaliseVoucherTemplate(
  campaignType: CampaignType,
  input: CampaignVoucherInput,
  campaignStartDate: string | null | undefined,
  prefix = 'voucher',
): CampaignVoucher {
  const expected = VOUCHER_TYPE_OF[campaignType]
  const type = input.type ?? expected
  if (type === null) throw EngineError.invalid(`${prefix}.type`, `is not used by ${campaignType} campaigns`)
  if (campaignType === 'REFERRAL_PROGRAM' && (input.discount === undefined || input.discount === null)) {
    // The hosted key and wording (docs/behaviour.md#documented-error-keys).
    throw new EngineError({
      code: 400,
      key: 'invalid_campaign',
      message: 'Invalid Campaign',
      details: "Property 'discount' is required for REFERRAL_PROGRAM campaign",
      path: `${prefix}.discount`,
    })
  }
  if (expected !== null && type !== expected) {
    throw EngineError.invalid(`${prefix}.type`, `must be ${expected} for a ${campaignType} campaign`)
  }
  checkVoucherValue(type, input, prefix)
  checkValidity(input, { prefix, inheritedStartDate: campaignStartDate })
  const template: CampaignVoucher = {
    type,
    discount: type === 'DISCOUNT_VOUCHER' ? (input.discount ?? null) : null,
    gift: type === 'GIFT_VOUCHER' ? (input.gift ?? null) : null,
    loyalty_card: type === 'LOYALTY_CARD' ? (input.loyalty_card ?? null) : null,
    redemption: { quantity: input.redemption?.quantity ?? null },
    code_config: resolveCodeConfig(input.code_config ?? {}, `${prefix}.code_config`),
    is_referral_code: input.is_referral_code ?? campaignType === 'REFERRAL_PROGRAM',
  }
  if (input.start_date !== undefined) template.start_date = input.start_date
  if (input.expiration_date !== undefined) template.expiration_date = input.expiration_date
  if (input.validity_timeframe !== undefined) template.validity_timeframe = input.validity_timeframe
  return template
}

/**
 * A campaign as reads return it: with `validation_rules_assignments`, the list of rules assigned to
 * it, read from the assignments collection (they change after the campaign is written, so they are
 * not stored on it).
 */
export async function withRuleAssignments(store: Store, stored: Campaign): Promise<Campaign> {
  const [assignments, [campaign = stored]] = await Promise.all([
    store.validation_rule_assignments.list({
      where: { related_object_id: stored.id },
      order: { field: 'created_at', direction: 'asc' },
    }),
    withCodeCounts(store, [stored]),
  ])
  return { ...campaign, validation_rules_assignments: assignmentList(assignments.data.map((a) => a.value)) }
}

/** A campaign just created has no assignments yet (except a promotion's tiers', which are the tiers'). */
export function withNoRuleAssignments(campaign: Campaign): Campaign {
  return { ...campaign, validation_rules_assignments: assignmentList([]) }
}

function assignmentList(data: ValidationRuleAssignment[]): NonNullable<Campaign['validation_rules_assignments']> {
  return { object: 'list', data_ref: 'data', data, total: data.length }
}

/** What a campaign type adds to the shared fields when its entity is built. */
export interface CampaignExtras {
  campaign_type: CampaignType
  voucher?: CampaignVoucher
  vouchers_count?: number
  creation_status?: Campaign['creation_status']
  vouchers_generation_status?: Campaign['vouchers_generation_status']
  referral_program?: Campaign['referral_program']
  promotion?: Campaign['promotion']
  loyalty_tiers_expiration?: Campaign['loyalty_tiers_expiration']
}

/**
 * Builds a campaign entity from the shared fields and the type's extras, inside a transaction:
 * checks the name is free (409 `duplicate_found` naming `name`), the validity fields, and resolves
 * the category (created by name when new). The caller inserts it (`tx.insert('campaigns', c)`),
 * usually after generating its vouchers.
 */
export async function buildCampaign(tx: Tx, input: CampaignBaseInput, extras: CampaignExtras): Promise<Campaign> {
  if (await tx.store.campaigns.findBy('name', input.name)) throw duplicateFound('campaign', 'name', input.name)
  checkValidity(input)
  const category: Category | null = await resolveCategoryRef(tx, input)
  const campaign: Campaign = {
    id: tx.id(ID_PREFIX.campaign),
    name: input.name,
    description: input.description ?? null,
    campaign_type: extras.campaign_type,
    type: input.type ?? 'AUTO_UPDATE',
    auto_join: input.auto_join ?? false,
    join_once: input.join_once ?? false,
    use_voucher_metadata_schema: input.use_voucher_metadata_schema ?? false,
    vouchers_count: extras.vouchers_count ?? 0,
    start_date: input.start_date ?? null,
    expiration_date: input.expiration_date ?? null,
    validity_timeframe: input.validity_timeframe ?? null,
    validity_day_of_week: input.validity_day_of_week ?? null,
    validity_hours: input.validity_hours ?? null,
    active: input.active ?? true,
    activity_duration_after_publishing: input.activity_duration_after_publishing ?? null,
    category: category?.name ?? null,
    category_id: category?.id ?? null,
    categories: category ? [category] : [],
    metadata: await enforceMetadata(tx, 'campaign', input.metadata),
    creation_status: extras.creation_status ?? 'DONE',
    vouchers_generation_status: extras.vouchers_generation_status ?? 'DONE',
    protected: false,
    created_at: tx.nowIso,
    updated_at: null,
    object: 'campaign',
  }
  if (extras.voucher) campaign.voucher = extras.voucher
  if (extras.referral_program !== undefined) campaign.referral_program = extras.referral_program
  if (extras.promotion !== undefined) campaign.promotion = extras.promotion
  if (extras.loyalty_tiers_expiration !== undefined) campaign.loyalty_tiers_expiration = extras.loyalty_tiers_expiration
  return campaign
}
