import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { AsyncAction } from '../../model/async-action'
import type { Stored } from '../../storage/ports'
import { type AsyncHandler, type AsyncHandlers, type Context, mutate, type Tx } from './unit-of-work'

export type { AsyncHandler, AsyncHandlers } from './unit-of-work'

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

export interface RunSummary {
  ran: number
  succeeded: number
  failed: number
}

/**
 * Runs every enqueued action due at the clock's now (`run_at` ≤ now), oldest `run_at` first, each
 * in its own commit. A failure marks that action `FAILED` with its message and the run goes on.
 * With `signal` aborted it starts no further action and leaves one of several steps after the step
 * in hand (not counted in the summary: it has not ended).
 * Safe to call from several workers: each action is claimed first (docs/storage.md#claims), and a
 * worker that loses the claim skips the action without running its work.
 */
export async function runPending(ctx: Context, signal?: AbortSignal): Promise<RunSummary> {
  const now = ctx.clock.now().getTime()
  const summary: RunSummary = { ran: 0, succeeded: 0, failed: 0 }
  // A page of due actions at a time, each page after the last one's place in `run_at` order (where it
  // stays once run): a backlog of any size (a day of pending points after an outage) is read in
  // pages as it is worked through, never at once.
  let after: string | undefined
  for (;;) {
    const page = await ctx.store.async_actions.list({
      // IN_PROGRESS: claims whose runner did not finish within its lease are taken again.
      where: { status: { in: ['ENQUEUED', 'IN_PROGRESS'] }, run_at: { before: new Date(now + 1).toISOString() } },
      order: { field: 'run_at', direction: 'asc' },
      limit: DUE_PAGE,
      count: false,
      ...(after === undefined ? {} : { starting_after_id: after }),
    })
    const due = page.data.filter((s) => claimable(s.value, now)).map((s) => s.value)
    if (!(await runDue(ctx, due, summary, signal)) || page.data.length < DUE_PAGE) return summary
    after = page.data[page.data.length - 1]?.value.id
  }
}

/** Due actions read per store call by `runPending`. */
export const DUE_PAGE = 100

/** Runs the due actions of a page in turn, counting them; false once told to stop. */
async function runDue(ctx: Context, due: AsyncAction[], summary: RunSummary, signal?: AbortSignal): Promise<boolean> {
  // Work that spans several commits (an export) runs step by step, each step claimed and committed.
  // Between two steps the process's other work runs (a memory store's commits never wait for I/O:
  // without the turn an export would hold the event loop, and a stop, for its whole length), and
  // told to stop the run stops there: the step's commit ended its claim, so any run goes on.
  const step = async (id: string): Promise<Outcome | 'stopped'> => {
    await nextTurn()
    return signal?.aborted ? 'stopped' : runOne(ctx, id)
  }
  for (const action of due) {
    let outcome = await step(action.id)
    while (outcome === 'continued') outcome = await step(action.id)
    if (outcome === 'stopped') return false
    if (outcome === 'skipped') continue
    summary.ran++
    summary[outcome]++
  }
  return true
}

/** A turn of the event loop: timers, I/O and other requests run before the promise resolves. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)))
}

/**
 * How long a runner holds an action it claimed. A runner that dies while it runs one leaves it
 * `IN_PROGRESS`; once the lease has run out the next `runPending` claims it again. Work that takes
 * longer than this may run twice, but commits once: the finishing commit names the claim's version.
 */
export const CLAIM_LEASE_MS = 10 * 60_000

/** Due and not held by a live claim. */
function claimable(action: AsyncAction, now: number): boolean {
  if (Date.parse(action.run_at) > now) return false
  if (action.status === 'ENQUEUED') return true
  return action.status === 'IN_PROGRESS' && !(Date.parse(action.claimed_until ?? '') > now)
}

/** The context an action runs in: for timed work, a clock stopped at its due instant. */
function runContext(ctx: Context, action: AsyncAction): Context {
  if (ctx.asyncHandlers.get(action.type)?.datedAtDue !== true) return ctx
  const due = Date.parse(action.run_at)
  return { ...ctx, clock: { now: () => new Date(due) } }
}

const isConflict = (error: unknown) => error instanceof EngineError && error.key === 'concurrent_modification'

/**
 * Claims an action for this runner: a conditional write of `IN_PROGRESS` with a lease, naming the
 * version read. Of several runners that read it at once one commits; the others conflict, re-read
 * the live claim and skip the action, having spent one small commit and no work. The claimed version
 * is the claim's token: the work commits only if nothing wrote the action since.
 */
async function claim(ctx: Context, id: string): Promise<Stored<AsyncAction> | undefined> {
  let claimed: Stored<AsyncAction> | undefined
  try {
    await mutate(ctx, async (tx) => {
      claimed = undefined
      const stored = await tx.store.async_actions.get(id)
      if (!stored || !claimable(stored.value, tx.now.getTime())) return
      const value = tx.update('async_actions', stored, {
        ...stored.value,
        status: 'IN_PROGRESS',
        claimed_until: new Date(tx.now.getTime() + CLAIM_LEASE_MS).toISOString(),
        updated_at: tx.nowIso,
      })
      tx.onCommit((c) => {
        claimed = { value, version: c.versions[`async_actions/${id}`] as number }
      })
    })
  } catch (error) {
    if (isConflict(error)) return undefined
    throw error
  }
  return claimed
}

/** The action as it is stored once it is over: no claim left. */
function finished(action: AsyncAction, status: 'DONE' | 'FAILED', result: unknown, at: string): AsyncAction {
  const { claimed_until: _claim, state: _state, ...rest } = action
  return { ...rest, status, progress: 100, result, updated_at: at }
}

type Outcome = 'succeeded' | 'failed' | 'skipped' | 'continued'

async function runOne(ctx: Context, id: string): Promise<Outcome> {
  const claimed = await claim(ctx, id)
  if (!claimed) return 'skipped'
  const runCtx = runContext(ctx, claimed.value)
  // The first attempt works on the value just claimed; a retry after a conflict re-reads it.
  let known: Stored<AsyncAction> | undefined = claimed
  try {
    return await mutate(runCtx, async (tx) => {
      const stored = known ?? (await tx.store.async_actions.get(id))
      known = undefined
      // Claimed again by another runner after this claim's lease ran out: no longer this runner's.
      if (stored?.version !== claimed.version) return 'skipped' as const
      const handler = ctx.asyncHandlers.get(stored.value.type)
      if (!handler) throw new Error(`No async handler is registered for ${stored.value.type}`)
      const result = await handler.run(tx, stored.value)
      if (isContinuation(result)) {
        // A step done: its writes commit with the cursor, and the claim ends so the next step (this
        // runner's or another's) claims it afresh.
        const { claimed_until: _claim, ...rest } = stored.value
        tx.update('async_actions', stored, {
          ...rest,
          status: 'IN_PROGRESS',
          state: result.state,
          updated_at: tx.nowIso,
        })
        return 'continued' as const
      }
      tx.update('async_actions', stored, finished(stored.value, 'DONE', result, tx.nowIso))
      return 'succeeded' as const
    })
  } catch (error) {
    // A conflict that outlasted the retries says nothing about the work: it goes back to the queue.
    if (isConflict(error)) {
      await release(ctx, id, claimed.version)
      return 'skipped'
    }
    return markFailed(runCtx, id, claimed.version, error instanceof Error ? error : new Error(String(error)))
  }
}

/**
 * Gives a claimed action back to the queue for the next run. If this commit fails too, the action
 * stays claimed until its lease runs out, and a run after that takes it: nothing is lost either way.
 */
async function release(ctx: Context, id: string, version: number): Promise<void> {
  await mutate(ctx, async (tx) => {
    const stored = await tx.store.async_actions.get(id)
    if (stored?.version !== version) return
    const { claimed_until: _claim, ...action } = stored.value
    tx.update('async_actions', stored, { ...action, status: 'ENQUEUED' })
  }).catch(() => undefined)
}

/** The failed attempt wrote nothing; this separate commit records the failure. */
async function markFailed(ctx: Context, id: string, version: number, failure: Error): Promise<'failed' | 'skipped'> {
  return mutate(ctx, async (tx) => {
    const stored = await tx.store.async_actions.get(id)
    if (stored?.version !== version) return 'skipped' as const
    await ctx.asyncHandlers.get(stored.value.type)?.onFailure?.(tx, stored.value, failure)
    tx.update('async_actions', stored, finished(stored.value, 'FAILED', { error: errorResult(failure) }, tx.nowIso))
    return 'failed' as const
  })
}

function errorResult(error: Error): Record<string, unknown> {
  if (error instanceof EngineError)
    return { code: error.code, key: error.key, message: error.message, details: error.details }
  return { message: error.message }
}
