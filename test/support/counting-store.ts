import { createMemoryStore } from '../../src/memory/memory-store'
import type { CollectionName, Store } from '../../src/storage/ports'

export interface StoreCounts {
  /** Calls of any repository method and of the store's own methods (`commit`…). */
  calls: number
  /** Rows a store without secondary indexes examines: the whole collection per `list`, one per id read. */
  rows: number
}

/**
 * A store that counts what an operation asks of it, for asserting how cost grows with input (never
 * with time). Every method is counted, whatever the port adds later; collection sizes are tracked
 * from committed writes, so `rows` is what a scanning store reads. Start it empty.
 */
export function countingStore(inner: Store = createMemoryStore()): {
  store: Store
  counts: StoreCounts
  reset(): void
} {
  const counts: StoreCounts = { calls: 0, rows: 0 }
  const sizes = new Map<string, number>()
  const counted = <T extends object>(target: T, rowsOf: (method: string, args: unknown[]) => number): T =>
    new Proxy(target, {
      get(t, prop, receiver) {
        const member = Reflect.get(t, prop, receiver)
        if (typeof member !== 'function') return member
        return (...args: unknown[]) => {
          counts.calls++
          counts.rows += rowsOf(String(prop), args)
          return member.apply(t, args)
        }
      },
    })
  const repositories = new Map<string, object>()
  const store = new Proxy(inner, {
    get(t, prop, receiver) {
      const member = Reflect.get(t, prop, receiver)
      if (prop === 'commit') {
        return async (changeset: Parameters<Store['commit']>[0]) => {
          counts.calls++
          const outcome = await inner.commit(changeset)
          if (outcome.ok) {
            for (const w of changeset.writes) {
              const delta = w.op === 'put' && w.expectedVersion === null ? 1 : w.op === 'delete' ? -1 : 0
              sizes.set(w.collection, (sizes.get(w.collection) ?? 0) + delta)
            }
          }
          return outcome
        }
      }
      if (typeof prop !== 'string' || member === null || typeof member !== 'object') return member
      let repo = repositories.get(prop)
      if (!repo) {
        const collection = prop as CollectionName
        repo = counted(member as object, (method, args) => {
          if (method === 'list') return sizes.get(collection) ?? 0
          if (method === 'getMany') return (args[0] as readonly unknown[]).length
          return 1
        })
        repositories.set(prop, repo)
      }
      return repo
    },
  })
  return {
    store,
    counts,
    reset() {
      counts.calls = 0
      counts.rows = 0
    },
  }
}
