import type { DateTime } from './common'

/**
 * What an unsafe call with an idempotency key leaves behind, written in the same commit as its effect.
 * It keeps a fingerprint of the parsed input and a reference to the result, never the response itself:
 * a replay re-reads the entities named here and rebuilds the response from them.
 */
export interface IdempotencyRecord {
  /** Hash of project, operation and key: a key never reaches another operation's or project's record. */
  id: string
  operation: string
  /** SHA-256 of the canonical JSON of the parsed input, path parameters included. */
  fingerprint: string
  /** The ids of the entities the result is rebuilt from, in the order the operation's replay reads them. */
  result_ids: string[]
  /** The result's status where it has one (`SUCCEEDED`, `FAILED`, …); null otherwise. */
  result_status: string | null
  /** What no stored entity holds but the response shows (a redemption's inapplicable redeemables). */
  result_extra: unknown
  created_at: DateTime
  expires_at: DateTime
}
