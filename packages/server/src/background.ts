import type { Logger } from 'pino'
import type { Engine, Store } from '../../../src'
import { describe, errorKey, type Metrics } from './observe'

/**
 * Background work on a timer, one run at a time. A failure streak is logged once when it starts and
 * once when it ends (never a stack trace per tick), and the timer backs off to a minute meanwhile.
 * Returns the function that stops it: the run under way is told (its signal aborts), so work done in
 * batches stops after the batch in hand, and the stop resolves once that run has finished.
 */
export function every(
  intervalMs: number,
  task: string,
  logger: Logger,
  metrics: Metrics,
  work: (signal: AbortSignal) => Promise<unknown>,
): () => Promise<void> {
  if (intervalMs <= 0) return async () => {}
  const stopping = new AbortController()
  let failures = 0
  let running: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  const schedule = () => {
    if (stopping.signal.aborted) return
    const delay = failures === 0 ? intervalMs : Math.min(intervalMs * 2 ** failures, Math.max(intervalMs, 60_000))
    timer = setTimeout(tick, delay)
    timer.unref()
  }
  const tick = () => {
    running = work(stopping.signal).then(
      () => {
        if (failures > 0) logger.info({ task, failures }, 'background task recovered')
        failures = 0
      },
      (error: unknown) => {
        failures++
        metrics.backgroundFailure(task, errorKey(error))
        if (failures === 1) {
          logger.warn({ task, error_key: errorKey(error), error: describe(error) }, 'background task failing')
        }
      },
    )
    running.finally(schedule)
  }
  schedule()
  return async () => {
    stopping.abort()
    clearTimeout(timer)
    await running
  }
}

/**
 * Purges expired records a batch (one commit) at a time until none is left, then, with a retention
 * (seconds; 0: none), the change feed's older commits (docs/http.md#housekeeping). Answers how many
 * changes it trimmed. With `signal` aborted it stops after the batch in hand: a feed's first trim
 * may have millions of changes to go (about 4 ms a thousand), and a shutdown does not wait for them;
 * the next run goes on from where this one stopped.
 */
export async function purgeAll(engine: Engine, feedRetentionSeconds = 0, signal?: AbortSignal): Promise<number> {
  // A turn of the event loop before each batch: the memory store's batches wait for no I/O, and
  // without it a long purge would hold the process (its requests, a stop) until it ended.
  const goOn = async (more: boolean) => {
    await new Promise((resolve) => setImmediate(resolve))
    return more && !signal?.aborted
  }
  let more = true
  while (await goOn(more)) more = (await engine.maintenance.purgeExpired()).has_more
  let trimmed = 0
  more = feedRetentionSeconds > 0
  while (await goOn(more)) {
    const step = await engine.maintenance.trimChangeFeed({ older_than_seconds: feedRetentionSeconds })
    trimmed += step.changes
    more = step.has_more
  }
  return trimmed
}

/** Async actions enqueued or in progress, for the metrics' gauge. */
export async function countPending(store: Store): Promise<number> {
  const page = await store.async_actions.list({
    where: { status: { in: ['ENQUEUED', 'IN_PROGRESS'] } },
    limit: 1,
  })
  return page.total
}
