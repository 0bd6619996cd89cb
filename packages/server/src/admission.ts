/**
 * How many API requests the server works on at once (docs/http.md#admission). Past `limit`, a
 * request waits in first-come order before any of its work starts, and past `queue` waiting requests
 * it is refused at once. Without a limit every request that arrives starts at once and they share the
 * process and the database by turns, so in a burst all of them finish late together; with one, the
 * burst is served in order and most of it finishes early.
 */
export interface Admission {
  /** Runs `work` when a place is free; `undefined` when the queue is full (the work never runs). */
  run<T>(work: () => Promise<T>): Promise<T> | undefined
  /** Requests working now, and waiting for a place. */
  readonly inFlight: number
  readonly queued: number
}

/** `limit` 0: no limit (every request starts at once, nothing is queued or refused). */
export function createAdmission(options: {
  limit: number
  queue: number
  waited?: (seconds: number) => void
}): Admission {
  const { limit, queue, waited } = options
  let inFlight = 0
  const waiting: (() => void)[] = []
  const release = () => {
    // The place passes straight to the oldest waiting request, so none arriving later takes it first.
    const next = waiting.shift()
    if (next) next()
    else inFlight--
  }
  const start = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } finally {
      release()
    }
  }
  return {
    run<T>(work: () => Promise<T>): Promise<T> | undefined {
      if (limit === 0 || inFlight < limit) {
        inFlight++
        waited?.(0)
        return start(work)
      }
      if (waiting.length >= queue) return undefined
      const at = performance.now()
      return new Promise<void>((resolve) => waiting.push(resolve)).then(() => {
        waited?.((performance.now() - at) / 1000)
        return start(work)
      })
    },
    get inFlight() {
      return inFlight
    },
    get queued() {
      return waiting.length
    },
  }
}
