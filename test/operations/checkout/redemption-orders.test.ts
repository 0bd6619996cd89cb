import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import { createMemoryStore } from '../../../src/memory'
import { amountOffVoucher, testEngine } from '../../support/engine'
import { fiveRedeemables } from '../../support/shops'
import { defaultTestStore } from '../../support/store'
import { watchedStore } from '../../support/watched-store'

/*
 * A redemption refers to the stored order instead of copying it (docs/storage.md#what-a-redemption-stores):
 * the parent names the order's version, each child the difference from it to its own order. What
 * the interface returns is unchanged, whenever it is read.
 */

/** The test store, with the JSON size of each commit and the store calls made, by `collection.method`. */
function measuredStore() {
  const inner = defaultTestStore() ?? createMemoryStore()
  const commits: number[] = []
  const calls: string[] = []
  const store = watchedStore(inner, {
    commit: (c) => commits.push(JSON.stringify(c).length),
    call: (name) => calls.push(name),
  })
  return { store, commits, calls }
}

const lines = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ source_id: `p${i}`, quantity: 1 + (i % 3), price: 1000 + i }))

describe('what a redemption stores', () => {
  it('a 100-line, 5-redeemable redemption commits at most twice the JSON of the stored order', async () => {
    const { store, commits } = measuredStore()
    const { engine } = testEngine({ store })
    await engine.customers.create({ source_id: 'ana' })
    const redeemables = await fiveRedeemables(engine)
    commits.length = 0
    const result = await engine.redemptions.redeemStackable({
      customer: { source_id: 'ana' },
      order: { source_id: 'big', items: lines(100) },
      redeemables,
    })
    expect(result.redemptions).toHaveLength(5)
    expect(commits).toHaveLength(1)
    const orderBytes = JSON.stringify(await engine.orders.get('big')).length
    expect(orderBytes).toBeGreaterThan(30_000)
    expect(commits[0]).toBeLessThanOrEqual(2 * orderBytes)
    // No stored redemption holds a copy of the order.
    for (const r of [result.parent_redemption, ...result.redemptions]) {
      const stored = (await engineContext(engine).store.redemptions.get(r.id))?.value
      expect(stored).not.toHaveProperty('order')
      expect(stored?.order_ref).toMatchObject({ id: result.order.id, version: 1 })
    }
  })

  it('reads back exactly what the redemption returned: the parent with the order, each child with its own', async () => {
    const { engine } = testEngine()
    await engine.customers.create({ source_id: 'ana' })
    await engine.vouchers.create({
      code: 'ITEMS10',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS' },
    })
    // Five redeemables (the default stacking limit): one of them discounts the items.
    const redeemables = [...(await fiveRedeemables(engine)).slice(1), { object: 'voucher' as const, id: 'ITEMS10' }]
    const result = await engine.redemptions.redeemStackable({
      customer: { source_id: 'ana' },
      order: { items: lines(12) },
      redeemables,
    })
    expect(result.redemptions).toHaveLength(5)
    const itemsChild = result.redemptions.at(-1)
    // The item discount makes the children's lines differ from the final order's.
    expect(itemsChild?.order?.items[0]?.applied_discount_amount).toBeGreaterThan(0)
    expect(result.redemptions[0]?.order?.items[0]?.applied_discount_amount).toBe(0)
    for (const r of [result.parent_redemption, ...result.redemptions]) {
      expect(await engine.redemptions.get(r.id)).toEqual(r)
    }
  })

  it('reads as it was written after its order moves on: updated, redeemed again, rolled back', async () => {
    const { engine, clock, store } = testEngine()
    await amountOffVoucher(engine, 'TEN', 1000)
    await amountOffVoucher(engine, 'FIVE', 500)
    const body = (code: string) => ({
      customer: { source_id: 'ana' },
      order: { source_id: 'o1', items: lines(3) },
      redeemables: [{ object: 'voucher' as const, id: code }],
    })
    const first = await engine.redemptions.redeemStackable(body('TEN'))
    clock.advance(1000)
    await engine.orders.update('o1', { metadata: { note: 'packed' } })
    clock.advance(1000)
    await engine.orders.update('o1', { metadata: { note: 'shipped' } })
    clock.advance(1000)
    const second = await engine.redemptions.redeemStackable(body('FIVE'))
    clock.advance(1000)
    const rollback = await engine.redemptions.rollbackStackable(second.parent_redemption.id)
    clock.advance(1000)
    await engine.orders.update('o1', { metadata: { note: 'refunded' } })
    for (const r of [first.parent_redemption, ...first.redemptions])
      expect(await engine.redemptions.get(r.id)).toEqual(r)
    for (const r of second.redemptions) expect(await engine.redemptions.get(r.id)).toMatchObject({ order: r.order })
    expect((await engine.redemptions.get(second.parent_redemption.id)).order).toEqual(second.order)
    expect(await engine.redemptions.get(rollback.parent_rollback.id)).toEqual(rollback.parent_rollback)
    // A version is kept only when a redemption or rollback refers to it: the first redemption's, the second's
    // and the rollback's, not the metadata updates'.
    const kept = (await store.order_snapshots.list()).data.map((s) => s.value.id.split('@')[1])
    expect(kept).toEqual(['1', '4', '5'])
    expect((await engine.orders.get('o1')).metadata).toEqual({ note: 'refunded' })
  })

  it('a list of redemptions joins their orders in two batched reads, whatever its length', async () => {
    const { store, calls } = measuredStore()
    const { engine, clock } = testEngine({ store })
    await amountOffVoucher(engine, 'TEN', 10)
    for (let i = 0; i < 60; i++) {
      clock.advance(1000)
      // Half the orders are redeemed twice: the first redemption of each reads a kept version.
      await engine.redemptions.redeemStackable({
        order: { source_id: `o${i % 30}`, items: lines(2) },
        redeemables: [{ object: 'voucher', id: 'TEN' }],
      })
    }
    const exp = await engine.exports.create({
      exported_object: 'redemption',
      parameters: { fields: ['id', 'order.amount'] },
    })
    calls.length = 0
    await engine.asyncActions.runPending()
    const csv = (await engine.files.get((await engine.exports.get(exp.id)).result?.url ?? '')).content
      .trimEnd()
      .split('\r\n')
    expect(csv).toHaveLength(121)
    expect(csv.slice(1).every((line) => line.split(',')[1] === '3002')).toBe(true)
    const reads = calls.filter((c) => c.startsWith('orders.') || c.startsWith('order_snapshots.'))
    expect(reads).toEqual(['orders.getMany', 'order_snapshots.getMany'])
  })
})
