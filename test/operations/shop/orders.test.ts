import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'

describe('orders', () => {
  it('stores the calculated fields and merges updates; get by id or source id', async () => {
    const { engine } = testEngine()
    const order = await engine.orders.create({
      source_id: 'o1',
      customer: { source_id: 'alice' },
      items: [
        { product_id: 'p1', quantity: 2, price: 1500 },
        { sku_id: 's1', quantity: '1', amount: 700 },
      ],
    })
    expect(order).toMatchObject({
      object: 'order',
      status: 'CREATED',
      amount: 3700,
      total_amount: 3700,
      items: [{ amount: 3000 }, { amount: 700 }],
    })
    const updated = await engine.orders.update('o1', { status: 'PAID' })
    expect(updated).toMatchObject({ id: order.id, status: 'PAID', amount: 3700, customer_id: order.customer_id })
    expect((await engine.orders.get(order.id)).status).toBe('PAID')
  })

  it('a status transition emits customer.order.<status> as well as updated; the same status again does not', async () => {
    const { engine, clock } = testEngine()
    await engine.orders.create({ source_id: 'o1', customer: { source_id: 'alice' }, amount: 1000 })
    for (const status of ['PROCESSING', 'PAID', 'FULFILLED', 'FULFILLED', 'CANCELED']) {
      clock.advance(1000)
      await engine.raw.orders.update('o1', { status })
    }
    const feed = await engine.customers.listActivity('alice', { limit: 100, order: 'created_at' })
    expect(feed.data.map((a) => a.type).filter((t) => t.startsWith('customer.order.'))).toEqual([
      'customer.order.created',
      'customer.order.updated',
      'customer.order.processing',
      'customer.order.updated',
      'customer.order.paid',
      'customer.order.updated',
      'customer.order.fulfilled',
      'customer.order.updated',
      'customer.order.updated',
      'customer.order.canceled',
    ])
  })

  it('rejects bad input and unknown orders without writing', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    await expect(engine.orders.create({ amount: -1 })).rejects.toMatchObject({ code: 400 })
    await expect(engine.raw.orders.create({ status: 'LOST' })).rejects.toMatchObject({ code: 400 })
    await expect(engine.orders.update('nope', { status: 'PAID' })).rejects.toMatchObject({ code: 404 })
    await expect(engine.orders.get('nope')).rejects.toMatchObject({ code: 404 })
    expect(await snapshot(store)).toBe(before)
  })
})
