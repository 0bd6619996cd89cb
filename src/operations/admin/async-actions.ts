import type { CallOptions } from '../../call-options'
import type { AsyncActionResponse } from '../../model/async-action'
import { nonEmptyString } from '../../schema/common'
import { parse } from '../../schema/parse'
import { type RunSummary, runPending } from '../kernel/jobs'
import { type Context, must } from '../kernel/unit-of-work'

/** `runPending`'s options: the call's, and a signal that stops the run between two steps of work. */
export interface RunPendingCallOptions extends CallOptions {
  /**
   * Aborted, the run starts no further action, and an action of several steps (an export) stops
   * after the step in hand, its cursor committed, free for the next run (docs/http.md#stopping-a-run).
   */
  signal?: AbortSignal | undefined
}

export function asyncActions(ctx: Context) {
  return {
    async get(id: string, _options?: CallOptions): Promise<AsyncActionResponse> {
      const found = await must(ctx, 'async_actions', parse(nonEmptyString, id, 'id'), 'async_action', 'id')
      const { payload: _payload, run_at: _runAt, claimed_until: _claim, state: _state, ...response } = found.value
      return response
    },

    /**
     * Runs every enqueued action due at the clock's now (`run_at` ≤ now), oldest `run_at` first, each
     * in its own commit (`runPending`, docs/storage.md#claims).
     */
    runPending(options?: RunPendingCallOptions): Promise<RunSummary> {
      return runPending(ctx, options?.signal)
    },
  }
}
