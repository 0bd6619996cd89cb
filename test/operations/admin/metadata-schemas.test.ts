import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'

const productSchema = {
  related_object: 'product',
  properties: {
    size: { type: 'string', eq: ['S', 'M', 'L'], optional: false },
    weight: { type: 'number' },
    tags: { type: 'string', array: true },
    sku: { type: 'string', exactLength: 4, unknown_setting: true },
  },
}

describe('metadataSchemas', () => {
  it('creates, gets and lists schemas, filling defaults and dropping unknown definition keys', async () => {
    const { engine, clock } = testEngine()
    const created = await engine.raw.metadataSchemas.create(productSchema)
    expect(created).toEqual({
      id: expect.stringMatching(/^ms_[0-9A-Za-z]{24}$/),
      related_object: 'product',
      properties: {
        size: { type: 'string', array: false, optional: false, objectType: null, eq: ['S', 'M', 'L'] },
        weight: { type: 'number', array: false, optional: true, objectType: null },
        tags: { type: 'string', array: true, optional: true, objectType: null },
        sku: { type: 'string', array: false, optional: true, objectType: null, exactLength: 4 },
      },
      allow_defined_only: false,
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'metadata_schema',
    })
    clock.advance(1000)
    const custom = await engine.metadataSchemas.create({
      related_object: 'store_location',
      properties: { point: { type: 'geopoint' } },
      allow_defined_only: true,
    })
    expect(await engine.metadataSchemas.get('product')).toEqual(created)
    expect(await engine.metadataSchemas.get('store_location')).toEqual(custom)
    expect(await engine.metadataSchemas.list()).toEqual({
      object: 'list',
      data_ref: 'schemas',
      schemas: [created, custom],
      total: 2,
    })
  })

  it('refuses a second schema for the same object type with 409', async () => {
    const { engine, store } = testEngine()
    await engine.raw.metadataSchemas.create(productSchema)
    const before = await snapshot(store)
    await expect(engine.raw.metadataSchemas.create(productSchema)).rejects.toMatchObject({
      code: 409,
      key: 'duplicate_metadata_schema',
    })
    expect(await snapshot(store)).toBe(before)
  })

  it('rejects bad definitions naming the field and writes nothing', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    const bad: [unknown, string][] = [
      [{ properties: {} }, 'related_object'],
      [{ related_object: 'order', properties: { a: { type: 'money' } } }, 'properties.a.type'],
      [{ related_object: 'order', properties: { a: { type: 'number', exactLength: 3 } } }, 'properties.a'],
      [{ related_object: 'order', properties: { a: { type: 'number', eq: ['x'] } } }, 'properties.a'],
      [{ related_object: 'order', properties: { a: { type: 'string', array: 'yes' } } }, 'properties.a.array'],
    ]
    for (const [body, path] of bad) {
      await expect(engine.raw.metadataSchemas.create(body)).rejects.toMatchObject({ code: 400, path })
    }
    expect(await snapshot(store)).toBe(before)
  })

  it('gives the empty default schema for a standard object type without one; writes nothing', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    expect(await engine.metadataSchemas.get('voucher')).toEqual({
      id: null,
      related_object: 'voucher',
      properties: {},
      allow_defined_only: false,
      created_at: null,
      updated_at: null,
      object: 'metadata_schema',
    })
    expect(await engine.metadataSchemas.get('order_item')).toMatchObject({ related_object: 'order_item', id: null })
    expect((await engine.metadataSchemas.list()).schemas).toEqual([])
    expect(await snapshot(store)).toBe(before)
  })

  it('gives 404 for a custom object type without a schema', async () => {
    const { engine } = testEngine()
    await expect(engine.metadataSchemas.get('store_location')).rejects.toMatchObject({
      code: 404,
      resource_type: 'metadata_schema',
      resource_id: 'store_location',
      path: 'resource',
    })
  })

  it('is enforced on customer writes, naming the property', async () => {
    const { engine, store } = testEngine()
    await engine.metadataSchemas.create({
      related_object: 'customer',
      properties: { tier: { type: 'string', eq: ['gold', 'silver'] }, age: { type: 'number', optional: false } },
      allow_defined_only: true,
    })
    const created = await engine.customers.create({ source_id: 'c1', metadata: { tier: 'gold', age: 30 } })
    expect(created.metadata).toEqual({ tier: 'gold', age: 30 })
    const before = await snapshot(store)
    await expect(
      engine.customers.create({ source_id: 'c2', metadata: { tier: 'bronze', age: 3 } }),
    ).rejects.toMatchObject({
      code: 400,
      key: 'invalid_metadata',
      path: 'metadata.tier',
      details: 'Property .metadata.tier must be one of ["gold","silver"]',
    })
    await expect(engine.customers.create({ source_id: 'c2', metadata: { tier: 'gold' } })).rejects.toMatchObject({
      path: 'metadata.age',
    })
    await expect(engine.customers.create({ source_id: 'c2', metadata: { age: 3, nick: 'x' } })).rejects.toMatchObject({
      path: 'metadata.nick',
    })
    // An update is checked on the merged metadata: the stored age satisfies the required property.
    await expect(engine.customers.create({ source_id: 'c1', metadata: { age: '31' } })).rejects.toMatchObject({
      path: 'metadata.age',
    })
    expect(await snapshot(store)).toBe(before)
    expect((await engine.customers.create({ source_id: 'c1', metadata: { tier: 'silver' } })).metadata).toEqual({
      tier: 'silver',
      age: 30,
    })
  })
})
