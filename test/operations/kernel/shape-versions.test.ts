import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/memory'
import { currentShape, readChangeFeed, upgradedStore } from '../../../src/operations/kernel/shape-versions'
import type { Write } from '../../../src/storage/ports'

/*
 * Data written before a shape change keeps working (docs/storage.md#shape-versions): a store returns
 * a row of shape 1 as it was stored, with its shape, and the engine's reads (`upgradedStore`, what
 * every operation reads through) give it in the current shape, from the core's table.
 */

const OLD_ROWS: Write[] = [
  {
    op: 'put',
    collection: 'redemptions',
    value: {
      id: 'r_parent',
      date: '2026-01-01T00:00:00.000Z',
      related_redemptions: { rollbacks: [], redemptions: ['r_child'] },
    } as never,
    expectedVersion: null,
    shape: 1,
  },
  {
    op: 'put',
    collection: 'async_actions',
    value: { id: 'aa_1', type: 'vouchers.bulk_update', status: 'ENQUEUED', result: null } as never,
    expectedVersion: null,
    shape: 1,
  },
]

const UPGRADED_PARENT = [{ id: 'r_child', date: '2026-01-01T00:00:00.000Z' }]

describe('stored shapes written by earlier versions', () => {
  it('the store returns the row as stored with its shape; the engine reads it in the current shape', async () => {
    const store = createMemoryStore()
    expect((await store.commit({ writes: OLD_ROWS })).ok).toBe(true)
    const raw = await store.redemptions.get('r_parent')
    expect(raw?.shape).toBe(1)
    expect(raw?.value.related_redemptions?.redemptions).toEqual(['r_child'])

    const engineView = upgradedStore(store)
    const parent = await engineView.redemptions.get('r_parent')
    expect(parent?.value.related_redemptions?.redemptions).toEqual(UPGRADED_PARENT)
    expect(parent?.shape).toBe(currentShape('redemptions'))
    expect(parent?.version).toBe(1)
    const action = await engineView.async_actions.get('aa_1')
    expect(action?.value.type).toBe('VOUCHERS.BULK_UPDATE')
    expect(action?.value).not.toHaveProperty('result')
    // Every kind of read upgrades the same way.
    expect((await engineView.redemptions.getMany(['r_parent']))[0]?.value).toEqual(parent?.value)
    expect((await engineView.redemptions.list()).data[0]?.value).toEqual(parent?.value)

    // The change feed hands out the same upgraded values, through the engine and to a host.
    const feed = await engineView.changes()
    expect(feed.data.map((c) => c.value)).toEqual([parent?.value, action?.value])
    expect((await readChangeFeed(store)).data.map((c) => c.value)).toEqual([parent?.value, action?.value])
    expect((await store.changes()).data.map((c) => c.shape)).toEqual([1, 1])
  })

  it('an increment keeps the row in shape 1; the value the commit returns is upgraded like a read', async () => {
    const store = createMemoryStore()
    await store.commit({ writes: OLD_ROWS })
    const result = await upgradedStore(store).commit({
      writes: [{ op: 'increment', collection: 'redemptions', id: 'r_parent', by: { n: 1 } }],
    })
    if (!result.ok) throw new Error('the increment commits')
    expect(result.values['redemptions/r_parent']).toMatchObject({
      n: 1,
      related_redemptions: { redemptions: UPGRADED_PARENT },
    })
    expect(result.shapes['redemptions/r_parent']).toBe(currentShape('redemptions'))
    expect((await store.redemptions.get('r_parent'))?.shape).toBe(1)
  })

  it('a row in the current shape is handed out as the store returned it (no copy)', async () => {
    const store = createMemoryStore()
    await store.commit({
      writes: [{ ...(OLD_ROWS[0] as Extract<Write, { op: 'put' }>), shape: currentShape('redemptions') }],
    })
    const raw = await store.redemptions.get('r_parent')
    const read = await upgradedStore(store).redemptions.get('r_parent')
    expect(read?.value).toBe(raw?.value)
  })
})
