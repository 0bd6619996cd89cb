import type { DateTime } from './common'

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
