import { PROPORTIONAL_SPEC_AT } from '../rules/earned-points'
import { campaignBaseEntries, campaignVoucherInput, vouchersCount } from './campaign'
import {
  dateTime,
  formula,
  intOrNumericString,
  isoDuration,
  limitParam,
  metadata,
  nonEmptyString,
  nonNegativeInt,
  opt,
  pageParam,
  positiveInt,
  validityEntries,
} from './common'
import { customerInput } from './customer'
import { orderInput } from './order'
import * as v from './valibot'
import { pointsExpirationRules } from './voucher'

/** Request shapes of the loyalty, rewards, events and activity operations (spec: Loyalty, Rewards). */

const tierPeriod = v.picklist(['MONTH', 'QUARTER', 'HALF_YEAR', 'YEAR'])

export const loyaltyTiersExpirationInput = v.object({
  qualification_type: v.picklist(['BALANCE', 'POINTS_IN_PERIOD']),
  qualification_period: opt(tierPeriod),
  start_date: opt(v.object({ type: v.picklist(['IMMEDIATE', 'NEXT_PERIOD']) })),
  expiration_date: opt(
    v.object({
      type: v.picklist(['END_OF_PERIOD', 'END_OF_NEXT_PERIOD', 'BALANCE_DROP', 'CUSTOM']),
      extend: opt(isoDuration),
      rounding: opt(
        v.object({
          type: v.picklist(['MONTH', 'QUARTER', 'HALF_YEAR', 'YEAR', 'CUSTOM']),
          strategy: v.picklist(['START', 'END']),
          unit: opt(v.literal('MONTH')),
          value: opt(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(11))),
        }),
      ),
    }),
  ),
})

/** `customer` is required; `voucher` names a specific unassigned code. */
export const memberInput = v.object({
  customer: customerInput,
  voucher: opt(nonEmptyString),
  source_id: opt(nonEmptyString),
  metadata: opt(metadata),
  channel: opt(v.string()),
})

const itemObject = v.picklist(['product', 'sku', 'products_collection'])

const proportionalSpec = v.object({
  every: v.pipe(
    v.number(),
    v.check((n) => Number.isFinite(n) && n > 0, 'must be a positive number'),
  ),
  points: v.pipe(intOrNumericString, v.minValue(1, 'must be ≥ 1')),
  points_formula: opt(formula),
  property: opt(nonEmptyString),
  object: opt(itemObject),
  id: opt(nonEmptyString),
  applicable_to: opt(v.array(v.object({ object: itemObject, id: nonEmptyString }))),
})

const earningLoyalty = v.variant('type', [
  v.object({
    type: v.literal('FIXED'),
    points: v.pipe(intOrNumericString, v.minValue(1, 'must be ≥ 1')),
    points_formula: opt(formula),
  }),
  v.object({
    type: v.literal('PROPORTIONAL'),
    calculation_type: v.picklist(Object.keys(PROPORTIONAL_SPEC_AT) as (keyof typeof PROPORTIONAL_SPEC_AT)[]),
    order: opt(
      v.object({ amount: opt(proportionalSpec), total_amount: opt(proportionalSpec), metadata: opt(proportionalSpec) }),
    ),
    order_items: opt(
      v.object({
        amount: opt(proportionalSpec),
        subtotal_amount: opt(proportionalSpec),
        quantity: opt(proportionalSpec),
      }),
    ),
    customer: opt(v.object({ metadata: opt(proportionalSpec) })),
    custom_event: opt(v.object({ metadata: opt(proportionalSpec) })),
  }),
])

export const earningRuleInput = v.object({
  event: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(300, 'must be at most 300 characters')),
  validation_rule_id: opt(v.nullable(nonEmptyString)),
  loyalty: earningLoyalty,
  source: opt(v.object({ banner: opt(v.string()) })),
  segment: opt(v.object({ id: nonEmptyString })),
  custom_event: opt(v.object({ schema_id: nonEmptyString })),
  loyalty_tier: opt(v.object({ id: nonEmptyString })),
  expiration_rules: opt(v.nullable(pointsExpirationRules)),
  pending_points: opt(
    v.nullable(
      v.object({
        period_type: v.literal('DAY', 'must be DAY'),
        period_value: v.pipe(
          v.number(),
          v.integer('must be an integer'),
          v.minValue(1, 'must be between 1 and 90'),
          v.maxValue(90, 'must be between 1 and 90'),
        ),
      }),
    ),
  ),
  ...validityEntries,
  metadata: opt(metadata),
})
export type EarningRuleInput = v.InferOutput<typeof earningRuleInput>
export const earningRulesInput = v.pipe(
  v.array(earningRuleInput),
  v.minLength(1, 'must list at least one earning rule'),
)

const mappingPoints = v.variant('type', [
  v.object({
    type: v.literal('MULTIPLY'),
    multiplier: v.pipe(
      v.number(),
      v.check((n) => Number.isFinite(n) && n > 0, 'must be a positive number'),
    ),
  }),
  v.object({ type: v.literal('CUSTOM'), points: nonNegativeInt }),
])

export const tierInput = v.pipe(
  v.object({
    name: nonEmptyString,
    points: v.object({ from: nonNegativeInt, to: opt(v.nullable(nonNegativeInt)) }),
    earning_rules: opt(v.record(nonEmptyString, mappingPoints)),
    rewards: opt(v.record(nonEmptyString, mappingPoints)),
    metadata: opt(metadata),
  }),
  v.check((t) => t.points.to == null || t.points.to >= t.points.from, 'points.to must be ≥ points.from'),
)
export const tiersInput = v.pipe(v.array(tierInput), v.minLength(1, 'must list at least one tier'))

export const pageListQuery = (orders: readonly string[]) =>
  v.object({
    limit: opt(limitParam()),
    page: opt(pageParam),
    order: opt(v.picklist(orders.flatMap((f) => [f, `-${f}`]))),
  })

export const rewardInput = v.object({
  name: nonEmptyString,
  type: v.picklist(['CAMPAIGN', 'COIN', 'MATERIAL']),
  parameters: v.object({
    campaign: opt(
      v.object({
        id: nonEmptyString,
        // Its sign is checked with the campaign's type: the hosted `invalid_balance` (docs/errors.md).
        balance: opt(v.pipe(v.number(), v.safeInteger('must be an integer'))),
        type: opt(v.picklist(['DISCOUNT_COUPONS', 'GIFT_VOUCHERS', 'LOYALTY_PROGRAM'])),
      }),
    ),
    coin: opt(
      v.object({
        exchange_ratio: v.pipe(
          v.number(),
          v.check((n) => Number.isFinite(n) && n > 0, 'must be a positive number'),
        ),
        points_ratio: positiveInt,
      }),
    ),
    product: opt(v.object({ id: nonEmptyString, sku_id: opt(v.nullable(nonEmptyString)) })),
  }),
  stock: opt(v.nullable(nonNegativeInt)),
  attributes: opt(v.object({ image_url: opt(v.string()), description: opt(v.string()) })),
  metadata: opt(metadata),
})

export const rewardAssignmentInput = v.object({
  campaign: nonEmptyString,
  parameters: opt(v.object({ loyalty: opt(v.object({ points: opt(positiveInt), auto_redeem: opt(v.boolean()) })) })),
})

/** `POST /v1/loyalties/{campaignId}/rewards`: the SDK's array of `{reward, parameters}`, each reward once. */
export const programRewardAssignmentsInput = v.pipe(
  v.array(v.object({ reward: nonEmptyString, parameters: rewardAssignmentInput.entries.parameters })),
  v.minLength(1, 'must assign at least one reward'),
  v.check((items) => new Set(items.map((i) => i.reward)).size === items.length, 'must name each reward once'),
)

export const redeemRewardInput = v.object({
  reward: v.object({ id: nonEmptyString, points: opt(positiveInt) }),
  order: opt(orderInput),
  metadata: opt(metadata),
})

export const eventInput = v.object({
  customer: customerInput,
  referral: opt(v.nullable(v.object({ code: opt(v.string()), referrer_id: opt(v.string()) }))),
  loyalty: opt(v.nullable(v.object({ code: nonEmptyString }))),
  metadata: opt(metadata),
})

export const eventName = v.pipe(
  v.string(),
  v.minLength(1, 'must be 1–300 characters'),
  v.maxLength(300, 'must be 1–300 characters'),
)

export const ACTIVITY_CAMPAIGN_TYPES = [
  'PROMOTION',
  'GIFT_VOUCHERS',
  'REFERRAL_PROGRAM',
  'DISCOUNT_COUPONS',
  'LOYALTY_PROGRAM',
] as const

export const activityQuery = v.object({
  limit: opt(limitParam()),
  order: opt(v.picklist(['created_at', '-created_at'])),
  starting_after_id: opt(nonEmptyString),
  start_date: opt(dateTime),
  end_date: opt(dateTime),
  campaign_id: opt(nonEmptyString),
  campaign_type: opt(v.picklist(ACTIVITY_CAMPAIGN_TYPES)),
  category: opt(v.picklist(['ACTION', 'EFFECT'])),
  type: opt(nonEmptyString),
})

export const loyaltyCampaignInput = v.object({
  ...campaignBaseEntries,
  campaign_type: opt(v.literal('LOYALTY_PROGRAM')),
  vouchers_count: opt(vouchersCount),
  voucher: opt(campaignVoucherInput),
  loyalty_tiers_expiration: opt(v.nullable(loyaltyTiersExpirationInput)),
  access_settings: opt(v.record(v.string(), v.unknown())),
})
