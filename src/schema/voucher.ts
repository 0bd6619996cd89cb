import { EngineError } from '../errors'
import type { VoucherType } from '../model/campaign'
import { metadata, money, nonEmptyString, nonNegativeInt, opt, positiveInt, validityEntries } from './common'
import { discount } from './discount'
import * as v from './valibot'

/** Request shapes shared by vouchers and campaign voucher templates. */

export const voucherType = v.picklist(['DISCOUNT_VOUCHER', 'GIFT_VOUCHER', 'LOYALTY_CARD'])

export const codeConfigInput = v.object({
  pattern: opt(nonEmptyString),
  length: opt(positiveInt),
  charset: opt(nonEmptyString),
  prefix: opt(v.string()),
  postfix: opt(v.string()),
})

/** A gift card's load: `amount` in minor units; the balance starts equal to it (docs/concepts.md#gift-cards). */
export const giftInput = v.object({
  amount: money,
  effect: opt(v.picklist(['APPLY_TO_ORDER', 'APPLY_TO_ITEMS'])),
})

export const pointsExpirationRules = v.object({
  period_type: v.picklist(['MONTH', 'FIXED_DAY_OF_YEAR']),
  // 0 months is valid: the points expire at the end of the earning day (docs/concepts.md#points-expiry).
  period_value: opt(nonNegativeInt),
  rounding_type: opt(
    v.picklist(['END_OF_MONTH', 'END_OF_QUARTER', 'END_OF_HALF_YEAR', 'END_OF_YEAR', 'PARTICULAR_MONTH']),
  ),
  rounding_value: opt(nonNegativeInt),
  fixed_month: opt(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(12))),
  fixed_day: opt(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(31))),
})

export const loyaltyCardInput = v.object({
  points: nonNegativeInt,
  expiration_rules: opt(v.nullable(pointsExpirationRules)),
})

/**
 * `quantity`: how many times the code can be redeemed; `null` means unlimited
 * (docs/concepts.md#quantities-and-limits).
 */
export const redemptionInput = v.object({ quantity: opt(v.nullable(positiveInt)) })

const VALUE_FIELD = { DISCOUNT_VOUCHER: 'discount', GIFT_VOUCHER: 'gift', LOYALTY_CARD: 'loyalty_card' } as const

/**
 * A voucher carries exactly the value object of its type: `discount` for DISCOUNT_VOUCHER, `gift` for
 * GIFT_VOUCHER, `loyalty_card` for LOYALTY_CARD. The one it needs is required (its absence is
 * `missingKey`); the others are refused rather than silently dropped, because sending them means the
 * caller meant another type.
 */
export function checkVoucherValue(
  type: VoucherType,
  input: { discount?: unknown; gift?: unknown; loyalty_card?: unknown },
  prefix = '',
  missingKey = 'invalid_payload',
): void {
  const at = (f: string) => (prefix ? `${prefix}.${f}` : f)
  const needed = VALUE_FIELD[type]
  if (input[needed] === undefined || input[needed] === null) {
    throw EngineError.invalid(at(needed), `is required for a ${type}`, missingKey)
  }
  for (const field of Object.values(VALUE_FIELD)) {
    if (field !== needed && input[field] !== undefined && input[field] !== null) {
      throw EngineError.invalid(at(field), `is only allowed for a ${typeOf(field)}, not a ${type}`)
    }
  }
}

function typeOf(field: (typeof VALUE_FIELD)[VoucherType]): VoucherType {
  const entry = Object.entries(VALUE_FIELD).find(([, f]) => f === field)
  return (entry?.[0] ?? 'DISCOUNT_VOUCHER') as VoucherType
}

/** What a voucher is worth and how its codes look: a standalone voucher's and a campaign template's. */
export const voucherValueEntries = {
  type: opt(voucherType),
  discount: opt(v.nullable(discount)),
  gift: opt(v.nullable(giftInput)),
  loyalty_card: opt(v.nullable(loyaltyCardInput)),
  redemption: opt(redemptionInput),
  code_config: opt(codeConfigInput),
  is_referral_code: opt(v.boolean()),
}

export const voucherInput = v.object({
  code: opt(nonEmptyString),
  campaign: opt(v.nullable(nonEmptyString)),
  campaign_id: opt(v.nullable(nonEmptyString)),
  category: opt(v.nullable(nonEmptyString)),
  category_id: opt(v.nullable(nonEmptyString)),
  ...voucherValueEntries,
  additional_info: opt(v.nullable(v.string())),
  metadata: opt(metadata),
  ...validityEntries,
})

/** Updates one bulk request may carry: the async run commits them together, so the batch is bounded. */
export const MAX_BULK_UPDATES = 1000

/** `POST /v1/vouchers/bulk/async`: `[{code, metadata}]`, both required. */
export const bulkUpdateInput = v.pipe(
  v.array(v.object({ code: nonEmptyString, metadata })),
  v.minLength(1, `must hold between 1 and ${MAX_BULK_UPDATES} updates`),
  v.maxLength(MAX_BULK_UPDATES, `must hold between 1 and ${MAX_BULK_UPDATES} updates`),
)
