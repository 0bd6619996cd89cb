import { afterEach, describe, expect, it, vi } from 'vitest'
import { createMemoryStore } from '../../src/memory'
import type { Order } from '../../src/model/order'
import { currentShape } from '../../src/operations/kernel/shape-versions'

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
      (
        await store.commit({
          writes: [{ op: 'put', collection: 'orders', value, expectedVersion: null, shape: currentShape('orders') }],
        })
      ).ok,
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
    await store.commit({
      writes: [{ op: 'put', collection: 'orders', value: first, expectedVersion: null, shape: currentShape('orders') }],
    })
    const freeze = vi.spyOn(Object, 'freeze')
    const next = { ...first, status: 'CANCELED' as const }
    expect(
      (
        await store.commit({
          writes: [{ op: 'put', collection: 'orders', value: next, expectedVersion: 1, shape: currentShape('orders') }],
        })
      ).ok,
    ).toBe(true)
    expect(freeze.mock.calls.filter(([x]) => x === next)).toHaveLength(1)
    // The change feed's record of the commit is frozen with it; nothing of the shared lines is walked again.
    expect(freeze.mock.calls.length).toBeLessThanOrEqual(2)
    expect(Object.isFrozen(next)).toBe(true)
  })

  it('a next version with one line more freezes its new objects only, not the lines it shares', async () => {
    const store = createMemoryStore()
    const first = order(1000)
    await store.commit({
      writes: [{ op: 'put', collection: 'orders', value: first, expectedVersion: null, shape: currentShape('orders') }],
    })
    const freeze = vi.spyOn(Object, 'freeze')
    const line = { source_id: 'new', price: 1, product: { name: 'New' } } as unknown as (typeof first.items)[number]
    const next = { ...first, items: [...first.items, line] }
    await store.commit({
      writes: [{ op: 'put', collection: 'orders', value: next, expectedVersion: 1, shape: currentShape('orders') }],
    })
    // The order, its new list, the new line and its product, and the change feed's record.
    expect(freeze.mock.calls.length).toBe(5)
    expect(Object.isFrozen(line.product)).toBe(true)
  })

  it('an object frozen elsewhere (shallowly) inside a new value is frozen to the bottom', async () => {
    const store = createMemoryStore()
    const shallow = Object.freeze({ tags: ['a'], inner: { tier: 'gold' } })
    const value = { ...order(1), metadata: { shallow } }
    await store.commit({
      writes: [{ op: 'put', collection: 'orders', value, expectedVersion: null, shape: currentShape('orders') }],
    })
    expect(Object.isFrozen(shallow.tags)).toBe(true)
    expect(Object.isFrozen(shallow.inner)).toBe(true)
  })

  it('an object two entities of one commit share, or a cycle, is frozen and the commit ends', async () => {
    const store = createMemoryStore()
    const shared = { deep: { list: [{ n: 1 }] } }
    const a = { ...order(1), metadata: { shared } }
    const b = { ...order(1), id: 'ord_2', source_id: 'o2', metadata: { shared } }
    const looped: Record<string, unknown> = { name: 'loop' }
    looped.self = looped
    const c = { ...order(1), id: 'ord_3', source_id: 'o3', metadata: { looped } }
    const result = await store.commit({
      writes: [a, b, c].map((value) => ({
        op: 'put' as const,
        collection: 'orders' as const,
        value,
        expectedVersion: null,
        shape: currentShape('orders'),
      })),
    })
    expect(result.ok).toBe(true)
    expect(Object.isFrozen(shared.deep.list[0])).toBe(true)
    expect(Object.isFrozen(looped)).toBe(true)
  })
})
