import { limitParam, nonEmptyString, opt, orderParam } from './common'
import { countParam, publicationInput } from './publication'
import * as v from './valibot'

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

/** `referrals.publish`'s body: a publication's without `campaign` (the path names it), and `count` codes. */
export const referralPublishInput = v.object({
  ...v.omit(publicationInput, ['campaign']).entries,
  count: opt(countParam),
})
