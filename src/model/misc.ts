import type { DateTime, Metadata } from './common'

export interface Publication {
  id: string
  voucher_id: string
  campaign_id: string | null
  customer_id: string
  source_id: string | null
  channel: string | null
  metadata: Metadata
  created_at: DateTime
  object: 'publication'
}

export interface MetadataPropertyDefinition {
  type: 'string' | 'number' | 'boolean' | 'date' | 'datetime' | 'object' | 'geopoint' | 'image_url'
  array: boolean
  optional: boolean
  objectType: string | null
  eq?: unknown[]
  exactLength?: number
}

export interface MetadataSchema {
  id: string
  related_object: string
  properties: Record<string, MetadataPropertyDefinition>
  allow_defined_only: boolean | null
  created_at: DateTime
  updated_at: DateTime | null
  object: 'metadata_schema'
}

/**
 * What `metadataSchemas.get` answers for a standard `related_object` the project has defined no schema
 * for: no properties, everything allowed; `id` and `created_at` are null (nothing is stored).
 */
export type DefaultMetadataSchema = Omit<MetadataSchema, 'id' | 'created_at'> & { id: null; created_at: null }

export interface Export {
  id: string
  object: 'export'
  created_at: DateTime
  status: 'SCHEDULED' | 'IN_PROGRESS' | 'DONE' | 'ERROR'
  channel: 'API' | 'WEBSITE'
  exported_object: 'voucher_transactions'
  parameters: { order?: string; fields: string[]; filters: Record<string, unknown> }
  result: { url: string } | null
  user_id: string | null
}

/** An async action as stored: the hosted fields plus the work's input and due instant. */
export interface AsyncAction {
  id: string
  /** The hosted type names, upper case (`VOUCHERS.BULK_UPDATE`). */
  type: string
  status: 'ENQUEUED' | 'IN_PROGRESS' | 'DONE' | 'FAILED'
  /** % done: 0 until the action has run, 100 once it has. */
  progress: number
  /** When the work becomes due (the engine's clock decides). */
  run_at: DateTime
  payload: unknown
  /** Absent until the action has run. */
  result?: unknown
  created_at: DateTime
  updated_at: DateTime | null
  object: 'async_action'
}

/** `GET /v1/async-actions/{id}`: the hosted fields only (the stored input and due instant stay inside). */
export type AsyncActionResponse = Omit<AsyncAction, 'payload' | 'run_at'>

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

export interface RedeemableHolder {
  id: string
  created_at: DateTime
  redeemable_id: string
  redeemable_object: 'voucher'
  campaign_id: string | null
  campaign_type: string | null
  voucher_type: string
  customer_id: string
  holder_role: 'REFERRER' | 'OWNER'
  object: 'redeemable_holder'
}

export interface Credential {
  id: string
  family: 'server' | 'client' | 'management'
  /** The application / client application / management id sent in the header. */
  app_id: string
  /** Hash of the secret; the secret itself is never stored. */
  secret_hash: string
  allowed_origins?: string[]
  name: string | null
  created_at: DateTime
}

export interface AccessToken {
  id: string
  /** Hash of the token; the token itself is never stored. */
  token_hash: string
  client_id: string
  credential_id: string
  scope: string[]
  expires_at: DateTime
  revoked_at: DateTime | null
  created_at: DateTime
}

export interface FileObject {
  id: string
  name: string
  content_type: string
  content: string
  url: string
  created_at: DateTime
}
