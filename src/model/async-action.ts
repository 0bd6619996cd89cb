import type { DateTime } from './common'

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
