import { afterEach, describe, expect, it, vi } from 'vitest'
import { createMemoryStore } from '../../src/memory'
import type { Order } from '../../src/model/order'

/*
 * Stored values are frozen once, at commit, and reads hand them out as they are (docs/storage.md#commit):
 * no read clones or freezes, and a commit freezes only what it did not share with a frozen value.
 */

const order = (lines: number): Order =>
  ({
    id: 'ord_1',
    object: 'order',
    source_id: 'o1',
    status: 'PAID',
    created_at: '2026-11-24T10:00:00.000Z',
    metadata: { nested: { deep: [1, 2, 3] } },
    items: Array.from({ length: lines }, (_, i) => ({
      source_id: `p${i}`,
      price: 100 + i,
      product: { name: `P${i}` },
    })),
  }) as unknown as Order

afterEach(() => {
  vi.restoreAllMocks()
})

describe('the memory store: frozen at commit, read without copies', () => {
  it('every read returns the committed object itself: no clone, no freeze', async () => {
    const store = createMemoryStore()
    const value = order(100)
    expect(
      (await store.commit({ writes: [{ op: 'put', collection: 'orders', value, expectedVersion: null }] })).ok,
    ).toBe(true)
    expect(Object.isFrozen(value.items[99]?.product)).toBe(true)
    const clone = vi.spyOn(globalThis, 'structuredClone')
    const freeze = vi.spyOn(Object, 'freeze')
    const parse = vi.spyOn(JSON, 'parse')
    for (let i = 0; i < 10; i++) {
      expect((await store.orders.get('ord_1'))?.value).toBe(value)
      expect((await store.orders.getMany(['ord_1']))[0]?.value).toBe(value)
      expect((await store.orders.findBy('source_id', 'o1'))?.value).toBe(value)
      expect((await store.orders.findMany('source_id', ['o1']))[0]?.value).toBe(value)
      expect((await store.orders.list({ limit: 10 })).data[0]?.value).toBe(value)
      const change = (await store.changes({ collections: ['orders'] })).data[0]
      expect(change?.value).toBe(value)
      expect(Object.isFrozen(change)).toBe(true)
    }
    expect(clone).not.toHaveBeenCalled()
    expect(freeze).not.toHaveBeenCalled()
    expect(parse).not.toHaveBeenCalled()
  })

  it('a next version that shares its lines with the stored one freezes only its own new object', async () => {
    const store = createMemoryStore()
    const first = order(1000)
    await store.commit({ writes: [{ op: 'put', collection: 'orders', value: first, expectedVersion: null }] })
    const freeze = vi.spyOn(Object, 'freeze')
    const next = { ...first, status: 'CANCELED' as const }
    expect(
      (await store.commit({ writes: [{ op: 'put', collection: 'orders', value: next, expectedVersion: 1 }] })).ok,
    ).toBe(true)
    expect(freeze.mock.calls.filter(([x]) => x === next)).toHaveLength(1)
    // The change feed's record of the commit is frozen with it; nothing of the shared lines is walked again.
    expect(freeze.mock.calls.length).toBeLessThanOrEqual(2)
    expect(Object.isFrozen(next)).toBe(true)
  })
})
