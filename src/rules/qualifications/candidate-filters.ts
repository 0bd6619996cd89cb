import type { CampaignType, VoucherType } from '../../model/campaign'
import type { PromotionStack, PromotionTier } from '../../model/promotion'
import type { Voucher } from '../../model/voucher'
import { type FilterConditions, type FilterOperator, type Filters, matchesConditions } from '../match-filters'

/** What `options.filters` of a qualification compares, per candidate; several categories per candidate. */
export interface CandidateFacts {
  campaign_id: string | null
  campaign_type: CampaignType | null
  category_id: string[]
  resource_id: string
  resource_type: 'voucher' | 'promotion_tier' | 'promotion_stack'
  voucher_type: VoucherType | null
  code: string | null
}

function categoryIds(entity: { category_id: string | null; categories: readonly { id: string }[] }): string[] {
  const ids = new Set(entity.categories.map((c) => c.id))
  if (entity.category_id) ids.add(entity.category_id)
  return [...ids]
}

/** A code's campaign type follows from the code: its campaign need not be read to filter on it. */
export function voucherFacts(voucher: Voucher): CandidateFacts {
  return {
    campaign_id: voucher.campaign_id,
    campaign_type: voucherCampaignType(voucher),
    category_id: categoryIds(voucher),
    resource_id: voucher.id,
    resource_type: 'voucher',
    voucher_type: voucher.type,
    code: voucher.code,
  }
}

function voucherCampaignType(voucher: Voucher): CampaignType | null {
  if (voucher.campaign_id === null) return null
  switch (voucher.type) {
    case 'DISCOUNT_VOUCHER':
      return voucher.is_referral_code ? 'REFERRAL_PROGRAM' : 'DISCOUNT_COUPONS'
    case 'GIFT_VOUCHER':
      return 'GIFT_VOUCHERS'
    case 'LOYALTY_CARD':
      return 'LOYALTY_PROGRAM'
    default: {
      const _never: never = voucher.type
      return _never
    }
  }
}

export function tierFacts(tier: PromotionTier): CandidateFacts {
  return {
    campaign_id: tier.campaign_id,
    campaign_type: 'PROMOTION',
    category_id: categoryIds(tier),
    resource_id: tier.id,
    resource_type: 'promotion_tier',
    voucher_type: null,
    code: null,
  }
}

export function stackFacts(stack: PromotionStack): CandidateFacts {
  return {
    campaign_id: stack.campaign_id,
    campaign_type: 'PROMOTION',
    category_id: categoryIds(stack),
    resource_id: stack.id,
    resource_type: 'promotion_stack',
    voucher_type: null,
    code: null,
  }
}

const NEGATIVE: readonly FilterOperator[] = ['$not_in', '$is_not']

/**
 * The hosted filters on a candidate. A field with several values (categories) satisfies `$is`/`$in`
 * when one of them does, and `$is_not`/`$not_in` when all of them do.
 */
export function matchesQualificationFilters(facts: CandidateFacts, filters: Filters): boolean {
  const fields = Object.entries(filters.fields)
  if (fields.length === 0) return true
  const test = ([field, conditions]: [string, FilterConditions]) => {
    const raw = facts[field as keyof CandidateFacts]
    const values = Array.isArray(raw) ? raw : [raw]
    return Object.entries(conditions).every(([op, operands]) => {
      const one: FilterConditions = { [op]: operands }
      if (NEGATIVE.includes(op as FilterOperator)) return values.every((v) => matchesConditions(v, one))
      return values.length === 0 ? matchesConditions(null, one) : values.some((v) => matchesConditions(v, one))
    })
  }
  return filters.junction === 'AND' ? fields.every(test) : fields.some(test)
}
