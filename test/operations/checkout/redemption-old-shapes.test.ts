import { describe, expect, it } from 'vitest'
import type { Redemption, RedemptionRollback } from '../../../src/model/redemption'
import { currentShape } from '../../../src/operations/kernel/shape-versions'
import type { Write } from '../../../src/storage/ports'
import { amountOffVoucher, testEngine } from '../../support/engine'

/*
 * Redemptions written before they referred to their order (redemptions shape 2, rollbacks shape 1:
 * each with its own copy of the order) read and roll back exactly as before
 * (docs/storage.md#shape-versions). The rows are written straight to the store, with the shape
 * numbers of the time.
 */

type Store = ReturnType<typeof testEngine>['store']

/** Commits `writes` as the engine of redemptions shape 2 and rollbacks shape 1 would store them. */
async function commitInOldShapes(store: Store, writes: Write[]): Promise<void> {
  const OLD: Partial<Record<Write['collection'], number>> = { redemptions: 2, redemption_rollbacks: 1 }
  const shaped = writes.map((w) =>
    w.op === 'put' ? { ...w, shape: OLD[w.collection] ?? currentShape(w.collection) } : w,
  )
  expect((await store.commit({ writes: shaped })).ok).toBe(true)
}

const ORDER = {
  object: 'order',
  id: 'ord_old',
  source_id: 'old-1',
  status: 'PAID',
  amount: 5000,
  initial_amount: 5000,
  discount_amount: 1000,
  items_discount_amount: 0,
  total_discount_amount: 1000,
  total_amount: 4000,
  applied_discount_amount: 1000,
  items_applied_discount_amount: 0,
  total_applied_discount_amount: 1000,
  items: [
    {
      object: 'order_item',
      source_id: 'sku-1',
      related_object: 'product',
      quantity: 2,
      discount_quantity: 0,
      initial_quantity: 2,
      amount: 5000,
      discount_amount: 0,
      applied_discount_amount: 0,
      applied_discount_quantity: 0,
      applied_quantity: 0,
      applied_quantity_amount: 0,
      initial_amount: 5000,
      price: 2500,
      subtotal_amount: 5000,
    },
  ],
  metadata: {},
  created_at: '2025-06-01T09:00:00.000Z',
  updated_at: null,
  customer_id: null,
  redemptions: {
    r_old: {
      date: '2025-06-01T09:00:00.000Z',
      related_object_type: 'redemption',
      related_object_id: 'r_old',
      stacked: ['r_old_child'],
    },
  },
} as const

const {
  id: _id,
  source_id: _s,
  status: _st,
  created_at: _c,
  updated_at: _u,
  customer_id: _cu,
  redemptions: _r,
  ...CHILD_ORDER
} = ORDER

const PARENT = {
  id: 'r_old',
  object: 'redemption',
  date: '2025-06-01T09:00:00.000Z',
  customer_id: null,
  tracking_id: null,
  metadata: {},
  redemption: null,
  result: 'SUCCESS',
  status: 'SUCCEEDED',
  channel: { channel_id: null, channel_type: 'API' },
  customer: null,
  related_object_type: 'redemption',
  related_object_id: 'r_old',
  order: ORDER,
  related_redemptions: { rollbacks: [], redemptions: [{ id: 'r_old_child', date: '2025-06-01T09:00:00.000Z' }] },
} as const

const CHILD = {
  ...PARENT,
  id: 'r_old_child',
  redemption: 'r_old',
  related_object_type: 'voucher',
  related_object_id: 'v_old',
  related_object_parent_id: null,
  order: CHILD_ORDER,
  voucher: { id: 'v_old', code: 'OLD', object: 'voucher' },
  related_redemptions: undefined,
} as const

const ROLLBACK = {
  id: 'rr_old',
  object: 'redemption_rollback',
  date: '2025-06-02T09:00:00.000Z',
  redemption: 'r_old',
  reason: null,
  result: 'SUCCESS',
  status: 'SUCCEEDED',
  channel: { channel_id: null, channel_type: 'API' },
  customer_id: null,
  tracking_id: null,
  related_object_type: 'redemption',
  related_object_id: 'r_old',
  order: { ...ORDER, status: 'CANCELED' },
  metadata: {},
} as const

const put = (collection: Write['collection'], value: object): Write =>
  ({ op: 'put', collection, value, expectedVersion: null, shape: currentShape(collection) }) as Write

describe('redemptions stored with their own copy of the order', () => {
  it('literal rows of redemptions shape 2 and rollbacks shape 1 read exactly as they were written', async () => {
    const { engine, store } = testEngine()
    const { related_redemptions: _none, ...child } = CHILD
    await commitInOldShapes(store, [
      put('orders', ORDER),
      put('redemptions', PARENT),
      put('redemptions', child),
      put('redemption_rollbacks', ROLLBACK),
    ])
    // The stored order moves on since: the old rows keep their own copies.
    const order = await store.orders.get('ord_old')
    await store.commit({
      writes: [
        {
          op: 'put',
          collection: 'orders',
          value: { ...ORDER, status: 'CANCELED', updated_at: '2025-06-02T09:00:00.000Z' } as never,
          expectedVersion: order?.version ?? 0,
          shape: currentShape('orders'),
        },
      ],
    })
    expect(await engine.redemptions.get('r_old')).toEqual(PARENT)
    expect(await engine.redemptions.get('r_old_child')).toEqual(child)
    expect(await engine.redemptions.get('rr_old')).toEqual(ROLLBACK)
  })

  it('a stacked redemption stored in the old shape rolls back as the same redemption in the new shape does', async () => {
    const outcomes = []
    for (const old of [true, false]) {
      const { engine, store } = testEngine()
      await amountOffVoucher(engine, 'TEN', 1000, 5)
      await amountOffVoucher(engine, 'FIVE', 500, 5)
      const redeemed = await engine.redemptions.redeemStackable({
        customer: { source_id: 'ana' },
        order: { source_id: 'o1', items: [{ source_id: 'sku-1', quantity: 2, price: 2500 }] },
        redeemables: [
          { object: 'voucher', id: 'TEN' },
          { object: 'voucher', id: 'FIVE' },
        ],
      })
      if (old) {
        // What the engine stored before: each redemption with its own copy of the order (the wire value).
        const rows = await store.redemptions.getMany([
          redeemed.parent_redemption.id,
          ...redeemed.redemptions.map((r) => r.id),
        ])
        const wire = new Map<string, Redemption>(
          [redeemed.parent_redemption, ...redeemed.redemptions].map((r) => [r.id, r]),
        )
        await commitInOldShapes(
          store,
          rows.map((row) => {
            const { order_ref: _ref, ...rest } = row.value
            const value = { ...rest, order: wire.get(row.value.id)?.order }
            return { op: 'put', collection: 'redemptions', value, expectedVersion: row.version, shape: 3 } as Write
          }),
        )
        expect((await store.redemptions.get(redeemed.parent_redemption.id))?.value).not.toHaveProperty('order_ref')
      }
      for (const r of [redeemed.parent_redemption, ...redeemed.redemptions]) {
        expect(await engine.redemptions.get(r.id)).toEqual(r)
      }
      const rollback = await engine.redemptions.rollbackStackable(redeemed.parent_redemption.id)
      const reads: (Redemption | RedemptionRollback)[] = []
      for (const r of [
        redeemed.parent_redemption,
        ...redeemed.redemptions,
        rollback.parent_rollback,
        ...rollback.rollbacks,
      ]) {
        reads.push(await engine.redemptions.get(r.id))
      }
      outcomes.push({
        rollback,
        reads,
        order: await engine.orders.get('o1'),
        uses: [(await engine.vouchers.get('TEN')).redemption, (await engine.vouchers.get('FIVE')).redemption],
      })
    }
    const [old, current] = outcomes
    expect(old?.rollback.order).toMatchObject({ status: 'CANCELED', total_discount_amount: 0, total_amount: 5000 })
    expect(old?.uses.map((u) => u.redeemed_quantity)).toEqual([0, 0])
    expect(old).toEqual(current)
  })
})
