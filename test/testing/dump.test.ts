import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/memory/memory-store'
import { canonicalJson, dumpStore } from '../../src/testing'

const category = (id: string, extra: Record<string, unknown> = {}) =>
  ({
    id,
    name: `name ${id}`,
    hierarchy: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    object: 'category',
    ...extra,
  }) as never

describe('dumpStore', () => {
  it('lists every row of every collection in id order, across pages, with sorted keys and versions', async () => {
    const store = createMemoryStore()
    const ids = Array.from({ length: 250 }, (_, i) => `cat_${String(i).padStart(3, '0')}`).reverse()
    await store.commit({
      writes: ids.map((id) => ({ op: 'put', collection: 'categories', value: category(id), expectedVersion: null })),
    })
    const dump = JSON.parse(await dumpStore(store)) as Record<string, { value: { id: string }; version: number }[]>
    expect(Object.keys(dump)).toEqual([...Object.keys(dump)].sort())
    expect(dump.categories?.map((r) => r.value.id)).toEqual([...ids].sort())
    expect(dump.categories?.[0]?.version).toBe(1)
    expect(dump.customers).toEqual([])
    expect(Object.keys(dump).length).toBeGreaterThan(20)
  })

  it('is equal for equal contents whatever the insertion order, and moves with a version', async () => {
    const a = createMemoryStore()
    const b = createMemoryStore()
    await a.commit({
      writes: [category('cat_1', { z: 1, a: 2 }), category('cat_2')].map((value) => ({
        op: 'put',
        collection: 'categories',
        value,
        expectedVersion: null,
      })),
    })
    await b.commit({
      writes: [category('cat_2'), category('cat_1', { a: 2, z: 1 })].map((value) => ({
        op: 'put',
        collection: 'categories',
        value,
        expectedVersion: null,
      })),
    })
    expect(await dumpStore(a)).toBe(await dumpStore(b))
    await b.commit({ writes: [{ op: 'put', collection: 'categories', value: category('cat_2'), expectedVersion: 1 }] })
    expect(await dumpStore(a)).not.toBe(await dumpStore(b))
  })

  it('throws on a stored value JSON would not carry back unchanged, naming where', async () => {
    const store = createMemoryStore()
    await store.commit({
      writes: [
        {
          op: 'put',
          collection: 'categories',
          value: category('cat_1', { metadata: { x: Number.NaN } }),
          expectedVersion: null,
        },
      ],
    })
    await expect(dumpStore(store)).rejects.toThrow('categories/cat_1.value.metadata.x is NaN, not JSON')
    expect(() => canonicalJson({ a: undefined })).toThrow('value.a is undefined')
    expect(() => canonicalJson([new Date(0)])).toThrow('value[0] is a Date instance')
    expect(canonicalJson(Object.assign(Object.create(null), { b: [1, 'x'], a: null }))).toBe('{"a":null,"b":[1,"x"]}')
  })
})
