import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/memory'
import { currentShape } from '../../src/operations/kernel/shape-versions'

/*
 * An update moves an entity in an index only when a field the index reads changed: an increment that
 * leaves them alone keeps its place without recomputing it, one whose `set` changes them moves it
 * (docs/storage.md#indexes).
 */

const session = {
  id: 'ses_1',
  key: 'k1',
  voucher_id: 'v_1',
  released_at: 'no',
  quantity: 1,
  expires_at: '2026-11-26T12:00:00.000Z',
  created_at: '2026-11-26T10:00:00.000Z',
}

const live = async (store: ReturnType<typeof createMemoryStore>, released: string) =>
  (
    await store.sessions.list({
      where: { voucher_id: 'v_1', released_at: released },
      order: { field: 'expires_at', direction: 'asc' },
      count: false,
    })
  ).data.map((r) => r.value.id)

describe('the memory store: index entries on update', () => {
  it('an increment of unindexed fields keeps the entity in place; a set of an indexed field moves it', async () => {
    const store = createMemoryStore()
    const put = await store.commit({
      writes: [
        {
          op: 'put',
          collection: 'sessions',
          value: session as never,
          expectedVersion: null,
          shape: currentShape('sessions'),
        },
      ],
    })
    expect(put.ok).toBe(true)
    expect(await live(store, 'no')).toEqual(['ses_1'])

    await store.commit({ writes: [{ op: 'increment', collection: 'sessions', id: 'ses_1', by: { quantity: 2 } }] })
    expect(await live(store, 'no')).toEqual(['ses_1'])
    expect((await store.sessions.get('ses_1'))?.value).toMatchObject({ quantity: 3, released_at: 'no' })

    await store.commit({
      writes: [{ op: 'increment', collection: 'sessions', id: 'ses_1', by: {}, set: { released_at: 'yes' } }],
    })
    expect(await live(store, 'no')).toEqual([])
    expect(await live(store, 'yes')).toEqual(['ses_1'])

    // The sort field moves the entry within its bucket.
    await store.commit({
      writes: [
        {
          op: 'put',
          collection: 'sessions',
          value: {
            ...session,
            id: 'ses_2',
            key: 'k2',
            released_at: 'yes',
            expires_at: '2026-11-26T11:00:00.000Z',
          } as never,
          expectedVersion: null,
          shape: currentShape('sessions'),
        },
      ],
    })
    expect(await live(store, 'yes')).toEqual(['ses_2', 'ses_1'])
    await store.commit({
      writes: [
        {
          op: 'increment',
          collection: 'sessions',
          id: 'ses_1',
          by: {},
          set: { expires_at: '2026-11-26T10:30:00.000Z' },
        },
      ],
    })
    expect(await live(store, 'yes')).toEqual(['ses_1', 'ses_2'])
  })
})
