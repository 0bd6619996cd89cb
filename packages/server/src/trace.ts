import { AsyncLocalStorage } from 'node:async_hooks'
import { writeFileSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import type { Store } from '../../../src'

/**
 * Per-request phase timings for finding what the slowest requests wait for (PROMO_TRACE_FILE,
 * docs/http.md#tracing). Off by default: it costs an async context per request. Times are absolute
 * (ms since the epoch, sub-millisecond), so a load generator on the same machine can line its own
 * send and receive times up with the server's; the file is written when the process exits.
 */
export interface Span {
  /** The request's `X-Trace-Id` (the generator's own name for it). */
  id: string
  /** When the adapter called the server's fetch: the request parsed, the handler about to run. */
  arrive: number
  /** Wall time with at least one store read in flight (parallel reads counted once). */
  reads: number
  readCalls: number
  /** Wall time of the commit call(s). */
  commit: number
  /** Waits for a pool connection started by this request (reads batched with other requests' are theirs). */
  poolWait: number
  pools: number
  /** The handler's answer built (the response object returned). */
  answered: number
  /** The answer handed to the socket (the response's `finish`). */
  written: number
  inFlight: number
  since: number
}

const now = (): number => performance.timeOrigin + performance.now()

export interface Tracer {
  /** Runs the request's handler inside its span; the span is written out once the answer is. */
  run(id: string, outgoing: ServerResponse | undefined, handle: () => Promise<Response>): Promise<Response>
  store(store: Store): Store
  /** Writes the file now (the server's close; the process's exit writes it again with anything later). */
  write(): void
  /** Counts a pool connection's wait for the request in whose context it was asked for. */
  pool(pool: { connect: (...args: never[]) => unknown }): void
}

export function createTracer(file: string): Tracer {
  const context = new AsyncLocalStorage<Span>()
  const spans: Span[] = []
  const gcs: [number, number, number][] = []
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      gcs.push([
        performance.timeOrigin + e.startTime,
        e.duration,
        (e as { detail?: { kind?: number } }).detail?.kind ?? 0,
      ])
  })
  observer.observe({ entryTypes: ['gc'] })
  const write = () => {
    const lines = spans.map((s) =>
      JSON.stringify([s.id, s.arrive, s.reads, s.readCalls, s.commit, s.poolWait, s.pools, s.answered, s.written]),
    )
    for (const g of gcs) lines.push(JSON.stringify(['gc', ...g]))
    writeFileSync(file, `${lines.join('\n')}\n`)
  }
  process.once('exit', () => {
    // At exit the file's folder may be gone (a test's temporary one): what `write()` wrote stays.
    try {
      write()
    } catch {}
  })

  const timed =
    (fn: (...args: unknown[]) => unknown, self: unknown, commit: boolean) =>
    (...args: unknown[]) => {
      const span = context.getStore()
      const result = fn.apply(self, args)
      if (!span || !(result instanceof Promise)) return result
      const at = now()
      if (commit) return result.finally(() => (span.commit += now() - at))
      span.readCalls++
      if (span.inFlight++ === 0) span.since = at
      return result.finally(() => {
        if (--span.inFlight === 0) span.reads += now() - span.since
      })
    }

  return {
    write,
    run(id, outgoing, handle) {
      const span: Span = {
        id,
        arrive: now(),
        reads: 0,
        readCalls: 0,
        commit: 0,
        poolWait: 0,
        pools: 0,
        answered: 0,
        written: 0,
        inFlight: 0,
        since: 0,
      }
      spans.push(span)
      outgoing?.once('finish', () => {
        span.written = now()
      })
      return context.run(span, handle).then((response) => {
        span.answered = now()
        return response
      })
    },
    store(store) {
      const repositories = new Map<PropertyKey, unknown>()
      return new Proxy(store, {
        get(target, property) {
          const value = Reflect.get(target, property, target)
          if (typeof value === 'function') return timed(value as never, target, property === 'commit')
          if (value === null || typeof value !== 'object') return value
          let wrapped = repositories.get(property)
          if (!wrapped) {
            wrapped = new Proxy(value, {
              get(repo, name) {
                const fn = Reflect.get(repo, name, repo)
                return typeof fn === 'function' ? timed(fn as never, repo, false) : fn
              },
            })
            repositories.set(property, wrapped)
          }
          return wrapped
        },
      })
    },
    pool(pool) {
      const connect = pool.connect.bind(pool) as (callback?: (...rest: unknown[]) => void) => unknown
      pool.connect = ((callback?: (...rest: unknown[]) => void) => {
        const span = context.getStore()
        if (!span) return connect(callback)
        const at = now()
        const done = () => {
          span.poolWait += now() - at
          span.pools++
        }
        if (callback)
          return connect((...rest) => {
            done()
            callback(...rest)
          })
        return (connect() as Promise<unknown>).finally(done)
      }) as never
    },
  }
}
