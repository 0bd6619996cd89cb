import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/memory'
import { registerShapeUpgrades } from '../../src/operations/kernel/shape-versions'

/*
 * Data written before a shape change keeps working (docs/storage.md#shape-versions): a row stored in
 * shape 1 reads in the current shape through the upgrades registered in src/storage/shapes.ts.
 */
describe('stored shapes written by earlier versions', () => {
  it('a shape-1 parent redemption lists its children as {id, date} and a shape-1 async action gets its hosted type', async () => {
    const store = createMemoryStore()
    // Written as shape 1 (no upgrade registered while writing).
    const undoR = registerShapeUpgrades('redemptions', [])
    const undoA = registerShapeUpgrades('async_actions', [])
    await store.commit({
      writes: [
        {
          op: 'put',
          collection: 'redemptions',
          value: {
            id: 'r_parent',
            date: '2026-01-01T00:00:00.000Z',
            related_redemptions: { rollbacks: [], redemptions: ['r_child'] },
          } as never,
          expectedVersion: null,
        },
        {
          op: 'put',
          collection: 'async_actions',
          value: { id: 'aa_1', type: 'vouchers.bulk_update', status: 'ENQUEUED', result: null } as never,
          expectedVersion: null,
        },
      ],
    })
    undoR()
    undoA()
    const parent = await store.redemptions.get('r_parent')
    expect(parent?.value.related_redemptions?.redemptions).toEqual([
      { id: 'r_child', date: '2026-01-01T00:00:00.000Z' },
    ])
    const action = await store.async_actions.get('aa_1')
    expect(action?.value.type).toBe('VOUCHERS.BULK_UPDATE')
    expect(action?.value).not.toHaveProperty('result')
    // The change feed hands out the same upgraded values.
    const feed = await store.changes()
    expect(feed.data.map((c) => c.value)).toEqual([parent?.value, action?.value])
  })
})
