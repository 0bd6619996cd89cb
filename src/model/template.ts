import type { DateTime } from './common'

export interface CampaignTemplate {
  id: string
  name: string
  description: string | null
  campaign_type: string
  campaign: Record<string, unknown>
  created_at: DateTime
  updated_at: DateTime | null
  object: 'campaign_template'
}
