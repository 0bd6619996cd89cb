import { describe, expect, it } from 'vitest'
import { rejection, snapshot, testEngine } from '../../support/engine'

describe('customers', () => {
  it('creates a customer and reads it back by id and by source_id', async () => {
    const { engine } = testEngine()
    const created = await engine.customers.create({ source_id: 'alice', name: 'Alice', metadata: { vip: true } })
    expect(created).toMatchObject({
      source_id: 'alice',
      name: 'Alice',
      metadata: { vip: true },
      object: 'customer',
      created_at: '2026-01-15T10:00:00.000Z',
    })
    expect(created.id).toMatch(/^cust_[0-9A-Za-z]{24}$/)
    expect(await engine.customers.get(created.id)).toEqual({ ...created, summary: expect.any(Object) })
    expect(await engine.customers.get('alice')).toEqual({ ...created, summary: expect.any(Object) })
  })

  it('upserts by source_id', async () => {
    const { engine } = testEngine()
    const first = await engine.customers.create({ source_id: 'bob', metadata: { a: 1 } })
    const second = await engine.customers.create({ source_id: 'bob', email: 'bob@example.com', metadata: { b: 2 } })
    expect(second.id).toBe(first.id)
    expect(second.metadata).toEqual({ a: 1, b: 2 })
    expect(second.email).toBe('bob@example.com')
  })

  it('rejects bad input naming the field and writes nothing', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    const error = await rejection(engine.raw.customers.create({ source_id: 5 }))
    expect(error).toMatchObject({ code: 400, key: 'invalid_payload', path: 'source_id' })
    expect(await snapshot(store)).toBe(before)
  })

  it('gives 404 for an unknown customer', async () => {
    const { engine } = testEngine()
    await expect(engine.customers.get('nobody')).rejects.toMatchObject({
      code: 404,
      key: 'not_found',
      resource_type: 'customer',
    })
  })
})

describe('metadata', () => {
  it('must be an object, not an array, naming the field and writing nothing', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    await expect(engine.raw.customers.create({ source_id: 'c', metadata: ['a', 'b'] })).rejects.toMatchObject({
      code: 400,
      path: 'metadata',
    })
    expect(await snapshot(store)).toBe(before)
  })
})
