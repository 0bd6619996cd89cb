import type { StackingRules } from '../../model/stacking'
import type { RoundingMode } from '../../money'
import type { InputLimits } from '../../schema/input-limits'

export interface EngineConfig {
  /** IANA time zone for validity hours, days of week and calendar periods (docs/behaviour.md#time-zone). */
  timezone: string
  rounding: RoundingMode
  /** Project stacking rules used until one is created through `stackingRules.create`. */
  stackingRules: Partial<StackingRules> | undefined
  /** How many times an operation re-reads and recomputes after a commit conflict. */
  maxRetries: number
  /** OAuth access token lifetime. */
  tokenTtlSeconds: number
  projectId: string
  /** Bounds on every call's input, checked before the operation runs (docs/limits.md). */
  limits: InputLimits
  /** `keys-and-bearer`: the interface's rule; `keys`: application keys alone authenticate. */
  authentication: AuthenticationMode
  /** How long an idempotency key is remembered. */
  idempotencyTtlSeconds: number
  /** Prefix of the url of a stored file (an export's CSV): the file id follows it. */
  filesBaseUrl: string
  /** The HMAC key of signed file links. */
  filesSecret: string
  /** How long a signed file link works. */
  fileLinkTtlSeconds: number
  /** How long a finished file is kept before `maintenance.purgeExpired` may delete it; null: for ever. */
  fileRetentionSeconds: number | null
}

export type AuthenticationMode = 'keys-and-bearer' | 'keys'
export const AUTHENTICATION_MODES: readonly AuthenticationMode[] = ['keys-and-bearer', 'keys']
