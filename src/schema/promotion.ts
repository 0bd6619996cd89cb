import * as v from 'valibot'
import { EngineError } from '../errors'
import type { Discount } from '../model/discount'
import {
  dateTime,
  limitParam,
  metadata,
  money,
  nonEmptyString,
  nonNegativeInt,
  opt,
  orderParam,
  pageParam,
  validityEntries,
} from './common'

/*
 * Request schemas of the promotion operations: promotion campaigns, tiers and stacks, and the discount
 * object a tier's `action` carries (reference §3.1). The discount schema is general (vouchers use the
 * same object); it lives here until the catalogue's `schema/discount.ts` lands, then one should go.
 */

const AMOUNT_EFFECTS = [
  'APPLY_TO_ORDER',
  'APPLY_TO_ITEMS',
  'APPLY_TO_ITEMS_PROPORTIONALLY',
  'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY',
  'APPLY_TO_ITEMS_BY_QUANTITY',
] as const
const PERCENT_EFFECTS = ['APPLY_TO_ORDER', 'APPLY_TO_ITEMS'] as const
const FIXED_EFFECTS = ['APPLY_TO_ORDER', 'APPLY_TO_ITEMS'] as const
const UNIT_EFFECTS = ['ADD_MISSING_ITEMS', 'ADD_NEW_ITEMS'] as const

const formula = opt(nonEmptyString)
const isDynamic = opt(v.boolean())

const amountDiscount = v.object({
  type: v.literal('AMOUNT'),
  amount_off: money,
  amount_off_formula: formula,
  effect: opt(v.picklist(AMOUNT_EFFECTS)),
  aggregated_amount_limit: opt(v.nullable(money)),
  is_dynamic: isDynamic,
})

const percentDiscount = v.object({
  type: v.literal('PERCENT'),
  // A plain percent (10 means 10%); fractions are allowed and go through decimal.js when applied.
  percent_off: v.pipe(
    v.number(),
    v.finite('must be a finite number'),
    v.minValue(0, 'must be between 0 and 100'),
    v.maxValue(100, 'must be between 0 and 100'),
  ),
  percent_off_formula: formula,
  amount_limit: opt(v.nullable(money)),
  aggregated_amount_limit: opt(v.nullable(money)),
  effect: opt(v.picklist(PERCENT_EFFECTS)),
  is_dynamic: isDynamic,
})

const fixedDiscount = v.object({
  type: v.literal('FIXED'),
  fixed_amount: money,
  fixed_amount_formula: formula,
  effect: opt(v.picklist(FIXED_EFFECTS)),
  is_dynamic: isDynamic,
})

const unitProductRef = v.object({
  id: nonEmptyString,
  source_id: opt(v.nullable(v.string())),
  name: opt(v.nullable(v.string())),
})

const unitFields = {
  unit_off: nonNegativeInt,
  unit_off_formula: formula,
  unit_type: nonEmptyString,
  product: opt(unitProductRef),
  sku: opt(unitProductRef),
}

const unitSpec = v.object({ ...unitFields, effect: v.picklist(UNIT_EFFECTS) })

const unitManyDiscount = v.object({
  type: v.literal('UNIT'),
  effect: v.literal('ADD_MANY_ITEMS'),
  units: v.pipe(v.array(unitSpec), v.minLength(1, 'must hold at least one unit')),
  is_dynamic: isDynamic,
})

const unitDiscount = v.object({
  type: v.literal('UNIT'),
  ...unitFields,
  effect: opt(v.picklist(UNIT_EFFECTS)),
  is_dynamic: isDynamic,
})

/** A discount: the variant is chosen by `type`, and for UNIT by `effect` (`ADD_MANY_ITEMS` takes `units`). */
export const discount: v.GenericSchema<unknown, Discount> = v.variant('type', [
  amountDiscount,
  percentDiscount,
  fixedDiscount,
  v.variant('effect', [unitManyDiscount, unitDiscount]),
])

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
  name: nonEmptyString,
  description: opt(v.nullable(v.string())),
  campaign_type: opt(v.literal('PROMOTION')),
  type: opt(v.picklist(['AUTO_UPDATE', 'STATIC'])),
  ...validityEntries,
  category: opt(v.nullable(nonEmptyString)),
  category_id: opt(v.nullable(nonEmptyString)),
  metadata: opt(metadata),
  promotion: v.object({
    tiers: v.pipe(v.array(tierInput), v.minLength(1, 'must hold at least one tier')),
  }),
})
export type PromotionCampaignInput = v.InferOutput<typeof promotionCampaignInput>

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

interface ValidityInput {
  start_date?: string | null
  expiration_date?: string | null
  validity_timeframe?: unknown
}

/**
 * Cross-field validity checks the field schemas cannot see: an expiration before the start, and a
 * timeframe with no start to count its windows from (`inheritedStart`: a tier counts from its campaign's).
 */
export function checkValidity(input: ValidityInput, root: string, inheritedStart?: string | null): void {
  const at = (field: string) => (root === '' ? field : `${root}.${field}`)
  if (input.start_date && input.expiration_date && Date.parse(input.expiration_date) < Date.parse(input.start_date)) {
    throw EngineError.invalid(at('expiration_date'), 'must not be before start_date')
  }
  if (input.validity_timeframe && !input.start_date && !inheritedStart) {
    throw EngineError.invalid(at('validity_timeframe'), 'needs start_date: the windows are counted from it')
  }
}
