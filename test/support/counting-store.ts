import { createMemoryStore } from '../../src/memory/store'
import type { CollectionName, Store } from '../../src/ports'

export interface StoreCounts {
  /** Calls of any repository method and of `commit`. */
  calls: number
  /** Rows a store without secondary indexes examines: the whole collection per `list`, one per id read. */
  rows: number
}

/**
 * A memory store that counts what an operation asks of it, for asserting how cost grows with input
 * (never with time). Collection sizes are tracked from committed writes, so `rows` is what a
 * scanning store reads; start it empty.
 */
export function countingStore(inner: Store = createMemoryStore()): {
  store: Store
  counts: StoreCounts
  reset(): void
} {
  const counts: StoreCounts = { calls: 0, rows: 0 }
  const sizes = new Map<CollectionName, number>()
  const store = { ...inner } as Store
  for (const name of Object.keys(inner) as (keyof Store)[]) {
    if (name === 'commit') continue
    const repo = inner[name]
    const collection = name as CollectionName
    store[collection] = {
      get: async (id) => {
        counts.calls++
        counts.rows++
        return repo.get(id)
      },
      getMany: async (ids) => {
        counts.calls++
        counts.rows += ids.length
        return repo.getMany(ids)
      },
      findBy: async (key: never, value: string) => {
        counts.calls++
        counts.rows++
        return repo.findBy(key, value)
      },
      list: async (query) => {
        counts.calls++
        counts.rows += sizes.get(collection) ?? 0
        return repo.list(query)
      },
    } as Store[typeof collection] as never
  }
  store.commit = async (changeset) => {
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
  return {
    store,
    counts,
    reset() {
      counts.calls = 0
      counts.rows = 0
    },
  }
}
