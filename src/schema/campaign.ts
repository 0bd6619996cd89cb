import { dateTime, isoDuration, metadata, nonEmptyString, opt, validityEntries, validityTimeframe } from './common'
import * as v from './valibot'
import { voucherValueEntries } from './voucher'

/**
 * The fields every campaign type shares: `campaigns.create` and `promotions.create` spread these into
 * their own schemas, and `buildCampaign` builds the entity from them.
 */
export const campaignBaseEntries = {
  name: nonEmptyString,
  description: opt(v.nullable(v.string())),
  type: opt(v.picklist(['AUTO_UPDATE', 'STATIC'])),
  ...validityEntries,
  category: opt(v.nullable(nonEmptyString)),
  category_id: opt(v.nullable(nonEmptyString)),
  metadata: opt(metadata),
  activity_duration_after_publishing: opt(v.nullable(isoDuration)),
  auto_join: opt(v.boolean()),
  join_once: opt(v.boolean()),
  use_voucher_metadata_schema: opt(v.boolean()),
}
const campaignBase = v.object(campaignBaseEntries)
export type CampaignBaseInput = v.InferOutput<typeof campaignBase>

/** Codes one create call may generate: the whole batch is one atomic commit, so it is bounded. */
export const MAX_VOUCHERS_PER_CAMPAIGN_CREATE = 100_000

/** How many codes a create call generates. */
export const vouchersCount = v.pipe(
  v.number(),
  v.safeInteger('must be an integer'),
  v.minValue(0, 'must be ≥ 0'),
  v.maxValue(MAX_VOUCHERS_PER_CAMPAIGN_CREATE, `must be ≤ ${MAX_VOUCHERS_PER_CAMPAIGN_CREATE}`),
)

/** The voucher template of a campaign (`voucher` in the create body). */
export const campaignVoucherInput = v.object({
  ...voucherValueEntries,
  start_date: opt(v.nullable(dateTime)),
  expiration_date: opt(v.nullable(dateTime)),
  validity_timeframe: opt(v.nullable(validityTimeframe)),
})

export type CampaignVoucherInput = v.InferOutput<typeof campaignVoucherInput>

export const referralProgram = v.looseObject({
  conversion_event_type: opt(v.picklist(['redemption', 'custom_event'])),
  custom_event: opt(v.looseObject({ id: opt(v.string()), name: nonEmptyString })),
  referee_reward: opt(
    v.looseObject({
      related_object_parent: v.looseObject({
        id: nonEmptyString,
        name: opt(v.string()),
        object: opt(v.literal('CAMPAIGN')),
      }),
      type: v.picklist(['LOYALTY_CARD', 'GIFT_VOUCHER']),
      // Points or minor units: a positive whole number, sent as a string or a number, kept as a string.
      amount: v.pipe(
        v.union([v.pipe(v.string(), v.regex(/^[1-9][0-9]*$/, 'must be a positive whole number')), v.number()]),
        v.transform((a) => String(a)),
        v.check((a) => Number.isSafeInteger(Number(a)) && Number(a) > 0, 'must be a positive whole number'),
      ),
    }),
  ),
})

/** Campaign types `campaigns.create` makes; loyalty programs and promotions have their own namespaces. */
export const CODE_CAMPAIGN_TYPES = ['DISCOUNT_COUPONS', 'GIFT_VOUCHERS', 'REFERRAL_PROGRAM'] as const

export const campaignInput = v.object({
  ...campaignBaseEntries,
  campaign_type: v.picklist([...CODE_CAMPAIGN_TYPES, 'LOYALTY_PROGRAM', 'PROMOTION']),
  voucher: campaignVoucherInput,
  vouchers_count: opt(vouchersCount),
  referral_program: opt(v.nullable(referralProgram)),
})
