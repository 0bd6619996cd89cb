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

/** An export: once `DONE` its `result` holds the file's url; before (or on an `ERROR`) it is null. */
export type Export = ExportBase &
  ({ status: 'SCHEDULED' | 'IN_PROGRESS' | 'ERROR'; result: null } | { status: 'DONE'; result: { url: string } })

export interface ExportBase {
  id: string
  object: 'export'
  created_at: DateTime
  channel: 'API' | 'WEBSITE'
  exported_object: 'voucher_transactions' | 'voucher' | 'redemption' | 'customer' | 'order' | 'publication'
  parameters: { order?: string; fields: string[]; filters: Record<string, unknown> }
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
  /** Work that spans several commits (an export, a chunk each): where the next step starts. */
  state?: unknown
  /**
   * While `IN_PROGRESS`: until when the runner that claimed it holds it; after that another runner
   * may claim it again (docs/storage.md#claims).
   */
  claimed_until?: DateTime
  created_at: DateTime
  updated_at: DateTime | null
  object: 'async_action'
}

/** `GET /v1/async-actions/{id}`: the hosted fields only (the stored input, due instant, cursor and claim stay inside). */
export type AsyncActionResponse = Omit<AsyncAction, 'payload' | 'run_at' | 'state' | 'claimed_until'>

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
  /** What the keys alone may do when the engine authenticates by keys; the family's whole API when absent. */
  scopes?: string[]
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

/** A stored file (an export's CSV): its content is kept in `file_chunks`, in order, never as one string. */
export interface StoredFile {
  id: string
  name: string
  content_type: string
  url: string
  /** Content length in UTF-8 bytes. */
  size: number
  chunks: number
  /** `WRITING` while its chunks are written (not served), `READY` once whole, `FAILED` if abandoned. */
  status: 'WRITING' | 'READY' | 'FAILED'
  created_at: DateTime
  /** When `maintenance.purgeExpired` may delete it (the engine option `fileRetentionSeconds`); null: kept. */
  expires_at: DateTime | null
}

/** One piece of a stored file's content; `id` is the file id and the zero-padded index. */
export interface FileChunk {
  id: string
  file_id: string
  index: number
  content: string
}

/** A file as `files.get` answers it: the entry with its chunks joined. */
export type FileObject = StoredFile & { content: string }
