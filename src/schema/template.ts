import { limitParam, nonEmptyString, opt, orderParam } from './common'
import * as v from './valibot'

export const TEMPLATE_FILTER_FIELDS = ['id', 'name', 'campaign_type', 'created_at', 'updated_at'] as const

export const templateInput = v.object({
  campaign_id: nonEmptyString,
  name: nonEmptyString,
  description: opt(v.nullable(v.string())),
})

export const booleanParam = v.union([
  v.boolean(),
  v.pipe(
    v.picklist(['true', 'false'], 'must be true or false'),
    v.transform((s) => s === 'true'),
  ),
])

export const templatesQuery = v.object({
  limit: opt(limitParam()),
  starting_after_id: opt(nonEmptyString),
  order: opt(orderParam(['id'])),
  include_total: opt(booleanParam),
  filters: opt(v.unknown()),
})

/** What a new campaign takes from its template besides `name`: everything `campaigns.create` accepts, but not codes. */
export const fromTemplateInput = v.looseObject({ name: nonEmptyString })
