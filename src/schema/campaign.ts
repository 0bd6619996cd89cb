import * as v from 'valibot'
import { isoDuration, metadata, nonEmptyString, opt, validityEntries } from './common'

/**
 * The fields every campaign type shares: `campaigns.create` and `promotions.create` spread these into
 * their own schemas, and `buildCampaign` builds the entity from them.
 */
export const campaignBaseEntries = {
  name: nonEmptyString,
  description: opt(v.nullable(v.string())),
  type: opt(v.picklist(['AUTO_UPDATE', 'STATIC'])),
  ...validityEntries,
  category: opt(v.nullable(nonEmptyString)),
  category_id: opt(v.nullable(nonEmptyString)),
  metadata: opt(metadata),
  activity_duration_after_publishing: opt(v.nullable(isoDuration)),
  auto_join: opt(v.boolean()),
  join_once: opt(v.boolean()),
  use_voucher_metadata_schema: opt(v.boolean()),
}
const campaignBase = v.object(campaignBaseEntries)
export type CampaignBaseInput = v.InferOutput<typeof campaignBase>
