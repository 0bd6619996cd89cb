import { formula, money, nonEmptyString, opt, positiveInt } from './common'
import * as v from './valibot'

/**
 * The discount object of vouchers, campaign templates and promotion tiers
 * (docs/concepts.md#types-and-effects): one shape per `type`, checked field by field. `effect` is kept as
 * given: when it is absent the discount rules pick the default from the targeting
 * (docs/concepts.md#types-and-effects "Default effects").
 */

/** A plain percent number: 10 means 10 %; fractions like 12.5 are allowed, never above 100. */
const percent = v.pipe(v.number(), v.finite(), v.minValue(0, 'must be ≥ 0'), v.maxValue(100, 'must be ≤ 100'))

const base = {
  is_dynamic: opt(v.boolean()),
  aggregated_amount_limit: opt(v.nullable(money)),
}

export const amountDiscount = v.object({
  type: v.literal('AMOUNT'),
  amount_off: money,
  amount_off_formula: opt(formula),
  effect: opt(
    v.picklist([
      'APPLY_TO_ORDER',
      'APPLY_TO_ITEMS',
      'APPLY_TO_ITEMS_PROPORTIONALLY',
      'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY',
      'APPLY_TO_ITEMS_BY_QUANTITY',
    ]),
  ),
  ...base,
})

export const percentDiscount = v.object({
  type: v.literal('PERCENT'),
  percent_off: percent,
  percent_off_formula: opt(formula),
  amount_limit: opt(v.nullable(money)),
  effect: opt(v.picklist(['APPLY_TO_ORDER', 'APPLY_TO_ITEMS'])),
  ...base,
})

export const fixedDiscount = v.object({
  type: v.literal('FIXED'),
  fixed_amount: money,
  fixed_amount_formula: opt(formula),
  effect: opt(v.picklist(['APPLY_TO_ORDER', 'APPLY_TO_ITEMS'])),
  ...base,
})

const productRef = v.object({
  id: nonEmptyString,
  source_id: opt(v.nullable(v.string())),
  name: opt(v.nullable(v.string())),
})

const unitEntries = {
  unit_off: positiveInt,
  unit_off_formula: opt(formula),
  /** The product or SKU id the free units are of (`prod_5h1pp1ng` for free shipping). */
  unit_type: nonEmptyString,
  product: opt(productRef),
  sku: opt(productRef),
}

const unitSpec = v.object({ ...unitEntries, effect: v.picklist(['ADD_MISSING_ITEMS', 'ADD_NEW_ITEMS']) })

/** Several free products at once (`ADD_MANY_ITEMS` with `units`). */
export const unitManyDiscount = v.object({
  type: v.literal('UNIT'),
  effect: v.literal('ADD_MANY_ITEMS'),
  units: v.pipe(v.array(unitSpec), v.minLength(1, 'must list at least one unit')),
  ...base,
})

export const unitDiscount = v.object({
  type: v.literal('UNIT'),
  ...unitEntries,
  effect: opt(v.picklist(['ADD_MISSING_ITEMS', 'ADD_NEW_ITEMS'])),
  ...base,
})

/**
 * A UNIT discount is the many-units shape when its effect says so, else the single-unit shape; the
 * choice is made on `effect` so errors name the fields of the shape the caller meant.
 */
const unitAny = v.pipe(
  v.looseObject({ type: v.literal('UNIT') }),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const input = dataset.value as Record<string, unknown>
    const schema = input.effect === 'ADD_MANY_ITEMS' ? unitManyDiscount : unitDiscount
    const result = v.safeParse(schema, input, { abortPipeEarly: true })
    if (result.success)
      return result.output as v.InferOutput<typeof unitManyDiscount> | v.InferOutput<typeof unitDiscount>
    for (const issue of result.issues) {
      // Re-raised from inside a transform: phrase it as the top-level parser would have.
      const message =
        issue.kind === 'schema' && issue.received === 'undefined'
          ? 'is required'
          : issue.kind === 'schema'
            ? `must be ${issue.expected ?? 'valid'} but received ${issue.received}`
            : issue.message
      addIssue({ message, ...(issue.path ? { path: issue.path } : {}) } as never)
    }
    return NEVER
  }),
)

export const discount = v.variant('type', [amountDiscount, percentDiscount, fixedDiscount, unitAny])
