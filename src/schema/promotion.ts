import { campaignBaseEntries } from './campaign'
import {
  dateTime,
  limitParam,
  metadata,
  nonEmptyString,
  nonNegativeInt,
  opt,
  orderParam,
  pageParam,
  validityEntries,
} from './common'
import { discount } from './discount'
import * as v from './valibot'

/*
 * Request schemas of the promotion operations: promotion campaigns, tiers and stacks. A tier's
 * `action.discount` is the discount object vouchers and campaigns use (`schema/discount.ts`).
 */

/** One promotion tier, as `promotion.tiers[]` of a campaign create and as the tier create body. */
export const tierInput = v.object({
  name: nonEmptyString,
  banner: opt(v.nullable(v.string())),
  action: v.object({ discount }),
  hierarchy: opt(nonNegativeInt),
  metadata: opt(metadata),
  ...validityEntries,
  category_id: opt(v.nullable(nonEmptyString)),
  validation_rules: opt(
    v.pipe(
      v.array(nonEmptyString),
      v.check((ids) => new Set(ids).size === ids.length, 'must not name a rule twice'),
    ),
  ),
})
export type TierInput = v.InferOutput<typeof tierInput>

export const promotionCampaignInput = v.object({
  ...campaignBaseEntries,
  campaign_type: opt(v.literal('PROMOTION')),
  promotion: v.object({
    tiers: v.pipe(v.array(tierInput), v.minLength(1, 'must hold at least one tier')),
  }),
})

export const MAX_STACK_TIERS = 30

export const stackInput = v.object({
  name: nonEmptyString,
  tiers: v.object({
    ids: v.pipe(
      v.array(nonEmptyString),
      v.minLength(1, 'must hold at least 1 tier'),
      v.maxLength(MAX_STACK_TIERS, `must hold at most ${MAX_STACK_TIERS} tiers`),
      v.check((ids) => new Set(ids).size === ids.length, 'must not name a tier twice'),
    ),
    hierarchy_mode: opt(v.picklist(['MANUAL'])),
  }),
  category_id: opt(v.nullable(nonEmptyString)),
})

const dateBounds = v.strictObject({ before: opt(dateTime), after: opt(dateTime) })

/** `GET /v1/promotions/stacks` and `GET /v1/promotions/{campaignId}/stacks` query. */
export const stacksQuery = v.object({
  limit: opt(limitParam()),
  page: opt(pageParam),
  order: opt(orderParam(['created_at', 'updated_at', 'name'])),
  created_at: opt(dateBounds),
  updated_at: opt(dateBounds),
})
