import { metadata, nonEmptyString, opt } from './common'
import { customerInput } from './customer'
import * as v from './valibot'

/** Codes one publication request may publish: they commit together, so the batch is bounded. */
export const MAX_CODES_PER_PUBLICATION = 100

export const countParam = v.pipe(
  v.number(),
  v.safeInteger('must be an integer'),
  v.minValue(1, `must be between 1 and ${MAX_CODES_PER_PUBLICATION}`),
  v.maxValue(MAX_CODES_PER_PUBLICATION, `must be between 1 and ${MAX_CODES_PER_PUBLICATION}`),
)

/** `POST /v1/publications`: a code (`voucher`) or the next free codes of a campaign, to a customer. */
export const publicationInput = v.object({
  customer: customerInput,
  voucher: opt(nonEmptyString),
  campaign: opt(v.union([nonEmptyString, v.object({ name: nonEmptyString, count: opt(countParam) })])),
  source_id: opt(nonEmptyString),
  channel: opt(nonEmptyString),
  metadata: opt(metadata),
})

export type PublicationInput = v.InferOutput<typeof publicationInput>
