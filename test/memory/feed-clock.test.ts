import { describe, expect, it } from 'vitest'
import { createEngine, createMemoryStore } from '../../src'
import { manualClock } from '../support/engine'

describe("the memory store's feed and its clock (docs/storage.md#trimming-the-feed)", () => {
  it('dates commits and trims by the clock it is given: the feed ages as that clock moves', async () => {
    const clock = manualClock()
    const store = createMemoryStore({ clock })
    const engine = createEngine({ store, clock })
    await engine.customers.create({ source_id: 'ann' })
    const logged = (await store.changes()).data.length
    expect(logged).toBeGreaterThan(0)
    expect(await store.trimChanges({ olderThanSeconds: 3600 })).toEqual({ deleted: 0, has_more: false })
    // Two hours on by the engine's clock, none by the system's.
    clock.advance(2 * 3600_000)
    expect(await store.trimChanges({ olderThanSeconds: 3600 })).toEqual({ deleted: logged, has_more: false })
    expect((await store.changes()).data).toEqual([])
  })
})
