import { describe, expect, it } from 'vitest'
import { rejection, snapshot, testEngine } from '../../support/engine'

describe('products.create', () => {
  it('creates a product and upserts it by source_id', async () => {
    const { engine, clock } = testEngine()
    const product = await engine.products.create({
      source_id: 'tshirt',
      name: 'T-shirt',
      price: 2500,
      attributes: ['color', 'size'],
      metadata: { brand: 'Acme' },
    })
    expect(product).toEqual({
      id: expect.stringMatching(/^prod_[0-9A-Za-z]{24}$/),
      source_id: 'tshirt',
      name: 'T-shirt',
      price: 2500,
      attributes: ['color', 'size'],
      image_url: null,
      metadata: { brand: 'Acme' },
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'product',
    })
    clock.advance(60_000)
    const updated = await engine.products.create({ source_id: 'tshirt', price: 2200, metadata: { season: 'summer' } })
    expect(updated).toEqual({
      ...product,
      price: 2200,
      metadata: { brand: 'Acme', season: 'summer' },
      updated_at: '2026-01-15T10:01:00.000Z',
    })
  })

  it.each([
    ['a missing name for a new product', { source_id: 'x' }, 'name'],
    ['a price as a string', { name: 'X', price: '10' }, 'price'],
    ['a negative price', { name: 'X', price: -1 }, 'price'],
    ['attributes that are not strings', { name: 'X', attributes: [1] }, 'attributes[0]'],
    ['metadata that is not an object', { name: 'X', metadata: 'vip' }, 'metadata'],
  ])('rejects %s naming the field and writes nothing', async (_label, body, path) => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    const error = await rejection(engine.raw.products.create(body))
    expect(error).toMatchObject({ code: 400, path })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('products.createSku', () => {
  it('adds a SKU to a product found by id or source_id, and upserts it by source_id', async () => {
    const { engine } = testEngine()
    const product = await engine.products.create({ source_id: 'tshirt', name: 'T-shirt', attributes: ['color'] })
    const sku = await engine.products.createSku('tshirt', {
      sku: 'T-shirt red',
      source_id: 'tshirt-red',
      price: 2600,
      currency: 'EUR',
      attributes: { color: 'red' },
      image_url: 'https://example.com/red.png',
    })
    expect(sku).toEqual({
      id: expect.stringMatching(/^sku_[0-9A-Za-z]{24}$/),
      source_id: 'tshirt-red',
      product_id: product.id,
      sku: 'T-shirt red',
      price: 2600,
      currency: 'EUR',
      attributes: { color: 'red' },
      image_url: 'https://example.com/red.png',
      metadata: {},
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'sku',
    })
    const again = await engine.products.createSku(product.id, { source_id: 'tshirt-red', price: 2400 })
    expect(again).toMatchObject({ id: sku.id, price: 2400, sku: 'T-shirt red', updated_at: '2026-01-15T10:00:00.000Z' })
  })

  it('rejects a SKU source_id used under another product with 409', async () => {
    const { engine, store } = testEngine()
    await engine.products.create({ source_id: 'a', name: 'A' })
    await engine.products.create({ source_id: 'b', name: 'B' })
    await engine.products.createSku('a', { sku: 'A1', source_id: 'sku-1' })
    const before = await snapshot(store)
    await expect(engine.products.createSku('b', { sku: 'B1', source_id: 'sku-1' })).rejects.toMatchObject({
      code: 409,
      key: 'duplicate_found',
      path: 'source_id',
    })
    expect(await snapshot(store)).toBe(before)
  })

  it.each([
    ['a missing sku name', 'p', { source_id: 'new' }, 'sku', 400],
    ['a price of the wrong type', 'p', { sku: 'S', price: '1' }, 'price', 400],
    ['a currency that is not ISO 4217', 'p', { sku: 'S', currency: 'euro' }, 'currency', 400],
    ['attribute values that are not strings', 'p', { sku: 'S', attributes: { size: 4 } }, 'attributes.size', 400],
    ['an empty productId', '', { sku: 'S' }, 'productId', 400],
    ['an unknown product', 'nope', { sku: 'S' }, 'productId', 404],
  ])('rejects %s, writing nothing', async (_label, productId, body, path, code) => {
    const { engine, store } = testEngine()
    await engine.products.create({ source_id: 'p', name: 'P' })
    const before = await snapshot(store)
    const error = await rejection(engine.raw.products.createSku(productId, body))
    expect(error).toMatchObject({ code, path })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('products.listSkus', () => {
  async function withSkus() {
    const t = testEngine()
    const product = await t.engine.products.create({ source_id: 'p', name: 'P' })
    const other = await t.engine.products.create({ source_id: 'q', name: 'Q' })
    for (const name of ['c', 'a', 'b']) {
      await t.engine.products.createSku('p', { sku: name, source_id: `p-${name}` })
      t.clock.advance(1000)
    }
    await t.engine.products.createSku(other.id, { sku: 'other' })
    return { ...t, product }
  }
  const names = (list: { skus: { sku: string | null }[] }) => list.skus.map((s) => s.sku)

  it('lists a product’s SKUs in the service interface’s envelope, oldest first by default', async () => {
    const { engine } = await withSkus()
    const list = await engine.products.listSkus('p')
    expect(list).toMatchObject({ object: 'list', data_ref: 'skus', total: 3 })
    expect(Object.keys(list).sort()).toEqual(['data_ref', 'object', 'skus', 'total'])
    expect(names(list)).toEqual(['c', 'a', 'b'])
  })

  it('orders, pages and filters by creation date (bounds inclusive)', async () => {
    const { engine, product } = await withSkus()
    expect(names(await engine.products.listSkus(product.id, { order: '-created_at' }))).toEqual(['b', 'a', 'c'])
    expect(names(await engine.products.listSkus('p', { order: 'code' }))).toEqual(['a', 'b', 'c'])
    expect(names(await engine.products.listSkus('p', { order: '-code' }))).toEqual(['c', 'b', 'a'])
    expect(names(await engine.products.listSkus('p', { order: 'campaign' }))).toEqual(['c', 'a', 'b'])
    const page2 = await engine.products.listSkus('p', { limit: 2, page: 2 })
    expect(names(page2)).toEqual(['b'])
    expect(page2.total).toBe(3)
    expect(names(await engine.products.listSkus('p', { limit: '1', page: '3' }))).toEqual(['b'])
    const window = await engine.products.listSkus('p', {
      start_date: '2026-01-15T10:00:01.000Z',
      end_date: '2026-01-15T10:00:02.000Z',
    })
    expect(names(window)).toEqual(['a', 'b'])
    expect(window.total).toBe(2)
  })

  it.each([
    ['limit 0', { limit: 0 }, 'limit'],
    ['limit 101', { limit: 101 }, 'limit'],
    ['a fractional limit', { limit: 1.5 }, 'limit'],
    ['page 0', { page: 0 }, 'page'],
    ['page 101', { page: 101 }, 'page'],
    ['an unknown order', { order: 'price' }, 'order'],
    ['a bad start_date', { start_date: 'yesterday' }, 'start_date'],
  ])('rejects %s naming the parameter', async (_label, query, path) => {
    const { engine } = await withSkus()
    await expect(engine.products.listSkus('p', query)).rejects.toMatchObject({ code: 400, path })
  })

  it('gives 404 for an unknown product', async () => {
    const { engine } = testEngine()
    await expect(engine.products.listSkus('nope')).rejects.toMatchObject({ code: 404, resource_type: 'product' })
  })
})

describe('products collections', () => {
  it('stores a STATIC collection with resolved members and reads it back', async () => {
    const { engine } = testEngine()
    const product = await engine.products.create({ source_id: 'p', name: 'P' })
    const sku = await engine.products.createSku('p', { sku: 'S' })
    const collection = await engine.products.createCollection({
      name: 'Summer picks',
      type: 'STATIC',
      products: [
        { id: product.id, object: 'product' },
        { id: sku.id, object: 'sku' },
      ],
    })
    expect(collection).toEqual({
      id: expect.stringMatching(/^pc_/),
      name: 'Summer picks',
      type: 'STATIC',
      products: [
        { id: product.id, object: 'product' },
        { id: sku.id, product_id: product.id, object: 'sku' },
      ],
      created_at: '2026-01-15T10:00:00.000Z',
      object: 'products_collection',
    })
    expect(await engine.products.getCollection(collection.id)).toEqual(collection)
  })

  it.each([
    ['a missing name', { type: 'STATIC', products: [] }, 'name'],
    ['an AUTO_UPDATE collection', { name: 'X', type: 'AUTO_UPDATE', products: [] }, 'type'],
    [
      'an unknown member',
      { name: 'X', type: 'STATIC', products: [{ id: 'prod_nope', object: 'product' }] },
      'products[0].id',
    ],
    [
      'a member of an unknown kind',
      { name: 'X', type: 'STATIC', products: [{ id: 'x', object: 'order' }] },
      'products[0].object',
    ],
  ])('rejects %s naming the field and writes nothing', async (_label, body, path) => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    await expect(engine.raw.products.createCollection(body)).rejects.toMatchObject({ code: 400, path })
    expect(await snapshot(store)).toBe(before)
  })
})
