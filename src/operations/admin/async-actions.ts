import type { CallOptions } from '../../call-options'
import type { AsyncActionResponse } from '../../model/async-action'
import { nonEmptyString } from '../../schema/common'
import { parse } from '../../schema/parse'
import { type RunSummary, runPending } from '../kernel/jobs'
import { type Context, must } from '../kernel/unit-of-work'

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
    runPending(_options?: CallOptions): Promise<RunSummary> {
      return runPending(ctx)
    },
  }
}
