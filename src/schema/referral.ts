import * as v from 'valibot'
import { limitParam, nonEmptyString, opt, orderParam } from './common'

/** The holder fields `filters` may name. */
export const HOLDER_FILTER_FIELDS = [
  'id',
  'holder_role',
  'customer_id',
  'created_at',
  'campaign_id',
  'campaign_type',
  'voucher_type',
] as const

export const holdersQuery = v.object({
  limit: opt(limitParam()),
  order: opt(orderParam(['id'])),
  starting_after_id: opt(nonEmptyString),
  filters: opt(v.unknown()),
})
