import type { CallOptions } from '../call-options'
import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { AsyncAction, AsyncActionResponse } from '../model/misc'
import type { Stored } from '../ports'
import { nonEmptyString } from '../schema/common'
import { parse } from '../schema/parse'
import { type AsyncHandler, type AsyncHandlers, type Context, must, mutate, type Tx } from './context'

export type { AsyncHandler, AsyncHandlers } from './context'

export function createAsyncHandlers(): AsyncHandlers {
  return new Map()
}

/**
 * Registers the handler of an action type; a plain function is the `run` of a handler without
 * failure bookkeeping. Adding `vouchers.bulkUpdate` is one such call in `createEngine`.
 */
export function registerAsyncHandler(ctx: Context, type: string, handler: AsyncHandler | AsyncHandler['run']): void {
  if (ctx.asyncHandlers.has(type)) throw new Error(`An async handler for ${type} is already registered`)
  ctx.asyncHandlers.set(type, typeof handler === 'function' ? { run: handler } : handler)
}

/** Queues work in the caller's transaction, so the action exists exactly when the caller's writes do. */
export function enqueue(tx: Tx, type: string, payload: unknown, runAt?: Date): AsyncAction {
  if (!tx.ctx.asyncHandlers.has(type)) throw new Error(`No async handler is registered for ${type}`)
  return tx.insert('async_actions', {
    id: tx.id(ID_PREFIX.async_action),
    type,
    status: 'ENQUEUED',
    progress: 0,
    run_at: (runAt ?? tx.now).toISOString(),
    payload,
    created_at: tx.nowIso,
    updated_at: null,
    object: 'async_action',
  })
}

const CONTINUE: unique symbol = Symbol('promo-engine.continueLater')

/** What a step of multi-commit work returns: the cursor the next step starts from (`action.state`). */
export interface Continuation {
  readonly [CONTINUE]: true
  readonly state: unknown
}

/** Ends a step of an action whose work goes on in another commit, from `state`. */
export function continueLater(state: unknown): Continuation {
  return { [CONTINUE]: true, state }
}

function isContinuation(value: unknown): value is Continuation {
  return typeof value === 'object' && value !== null && CONTINUE in value
}

export interface RunSummary {
  ran: number
  succeeded: number
  failed: number
}

export function asyncActions(ctx: Context) {
  return {
    async get(id: string, _options?: CallOptions): Promise<AsyncActionResponse> {
      const found = await must(ctx, 'async_actions', parse(nonEmptyString, id, 'id'), 'async_action', 'id')
      const { payload: _payload, run_at: _runAt, state: _state, ...response } = found.value
      return response
    },

    /**
     * Runs every enqueued or unfinished action due at the clock's now (`run_at` ≤ now), oldest `run_at`
     * first, each step in its own commit (an export is one commit per chunk of its file). A failure
     * marks that action `FAILED` with its message and the run goes on. Safe to call from several
     * workers, and after a worker died mid-way: an action another worker finished is skipped on
     * re-read, and an unfinished one goes on from the cursor its last committed step left.
     */
    async runPending(_options?: CallOptions): Promise<RunSummary> {
      const now = ctx.clock.now().getTime()
      const page = await ctx.store.async_actions.list({
        where: { status: { in: RUNNABLE } },
        order: { field: 'run_at', direction: 'asc' },
      })
      const due = page.data.filter((s) => Date.parse(s.value.run_at) <= now).map((s) => s.value)
      const summary: RunSummary = { ran: 0, succeeded: 0, failed: 0 }
      for (const action of due) {
        let outcome = await runOne(runContext(ctx, action), action.id)
        while (outcome === 'continued') outcome = await runOne(runContext(ctx, action), action.id)
        if (outcome === 'skipped') continue
        summary.ran++
        summary[outcome]++
      }
      return summary
    },
  }
}

/** The context an action runs in: for timed work, a clock stopped at its due instant. */
function runContext(ctx: Context, action: AsyncAction): Context {
  if (ctx.asyncHandlers.get(action.type)?.datedAtDue !== true) return ctx
  const due = Date.parse(action.run_at)
  return { ...ctx, clock: { now: () => new Date(due) } }
}

/** The statuses of work still to do: queued, or part-way through (its cursor in `state`). */
const RUNNABLE = ['ENQUEUED', 'IN_PROGRESS'] as const
const runnable = (stored: Stored<AsyncAction> | undefined): stored is Stored<AsyncAction> =>
  stored !== undefined && (RUNNABLE as readonly string[]).includes(stored.value.status)

async function runOne(ctx: Context, id: string): Promise<'succeeded' | 'failed' | 'skipped' | 'continued'> {
  try {
    return await mutate(ctx, async (tx) => {
      const stored = await tx.store.async_actions.get(id)
      if (!runnable(stored)) return 'skipped' as const
      const action = stored.value
      const handler = ctx.asyncHandlers.get(action.type)
      if (!handler) throw new Error(`No async handler is registered for ${action.type}`)
      const result = await handler.run(tx, action)
      const { state: _state, ...rest } = action
      if (isContinuation(result)) {
        tx.update('async_actions', stored, {
          ...rest,
          status: 'IN_PROGRESS',
          state: result.state,
          updated_at: tx.nowIso,
        })
        return 'continued' as const
      }
      tx.update('async_actions', stored, { ...rest, status: 'DONE', progress: 100, result, updated_at: tx.nowIso })
      return 'succeeded' as const
    })
  } catch (error) {
    // A conflict that outlasted the retries says nothing about the work: it stays queued for the next run.
    if (error instanceof EngineError && error.key === 'concurrent_modification') return 'skipped'
    return markFailed(ctx, id, error instanceof Error ? error : new Error(String(error)))
  }
}

/** The failed attempt wrote nothing; this separate commit records the failure. */
async function markFailed(ctx: Context, id: string, failure: Error): Promise<'failed' | 'skipped'> {
  return mutate(ctx, async (tx) => {
    const stored = await tx.store.async_actions.get(id)
    if (!runnable(stored)) return 'skipped' as const
    await ctx.asyncHandlers.get(stored.value.type)?.onFailure?.(tx, stored.value, failure)
    const { state: _state, ...rest } = stored.value
    tx.update('async_actions', stored, {
      ...rest,
      status: 'FAILED',
      progress: 100,
      result: { error: errorResult(failure) },
      updated_at: tx.nowIso,
    })
    return 'failed' as const
  })
}

function errorResult(error: Error): Record<string, unknown> {
  if (error instanceof EngineError)
    return { code: error.code, key: error.key, message: error.message, details: error.details }
  return { message: error.message }
}
