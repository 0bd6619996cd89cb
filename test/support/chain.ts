import type { Store } from '../../src/storage/ports'

/**
 * A store wrapper that measures the longest chain of sequential store calls of an operation: each
 * call's depth is one more than the deepest call that had finished when it started (a call that
 * finished earlier may have been awaited first). Calls issued together share a depth, so
 * `Promise.all` reads count once. With a database each level is a round trip, and the wrapped store
 * says it is not in process, so the engine keeps its load hints as on a database.
 */
export function chainCounter(store: Store): {
  store: Store
  reset(): void
  readonly depth: number
  readonly calls: number
} {
  let deepestFinished = 0
  let deepest = 0
  let calls = 0
  const track = <T>(fn: () => Promise<T>, label = ''): Promise<T> => {
    const depth = deepestFinished + 1
    if (process.env.CHAIN_TRACE) console.log(`CHAIN ${depth} ${label}`)
    calls++
    deepest = Math.max(deepest, depth)
    return fn().then((value) => {
      deepestFinished = Math.max(deepestFinished, depth)
      return value
    })
  }
  const wrapped: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(store)) {
    if (typeof value === 'function') {
      wrapped[name] = (...args: unknown[]) =>
        track(() => (value as (...a: unknown[]) => Promise<unknown>).apply(store, args), name)
    } else if (value && typeof value === 'object' && 'get' in value) {
      const repo: Record<string, unknown> = {}
      for (const [method, fn] of Object.entries(value as Record<string, unknown>)) {
        repo[method] = (...args: unknown[]) =>
          track(
            () => (fn as (...a: unknown[]) => Promise<unknown>).apply(value, args),
            `${name}.${method} ${JSON.stringify(args).slice(0, 80)}`,
          )
      }
      wrapped[name] = repo
    } else wrapped[name] = value
  }
  // It stands for a database, each level a round trip: the engine plans as it would there (load hints).
  wrapped.inProcess = false
  return {
    store: wrapped as unknown as Store,
    reset() {
      deepestFinished = 0
      deepest = 0
      calls = 0
    },
    get depth() {
      return deepest
    },
    get calls() {
      return calls
    },
  }
}
