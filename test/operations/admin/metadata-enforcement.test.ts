import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'

/** An engine whose `relatedObject` schema requires `size` in S/M/L and allows defined properties only. */
async function withSchema(relatedObject: string) {
  const t = testEngine()
  await t.engine.metadataSchemas.create({
    related_object: relatedObject,
    properties: { size: { type: 'string', eq: ['S', 'M', 'L'], optional: false } },
    allow_defined_only: true,
  })
  return t
}

const campaignBody = (metadata: Record<string, unknown>) => ({
  name: 'C',
  campaign_type: 'DISCOUNT_COUPONS',
  metadata,
  voucher: { discount: { type: 'AMOUNT', amount_off: 100 } },
})

const voucherBody = (metadata: Record<string, unknown>) => ({
  code: 'V1',
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'AMOUNT', amount_off: 100 },
  metadata,
})

const promotionBody = (metadata: Record<string, unknown>) => ({
  name: 'P',
  campaign_type: 'PROMOTION',
  promotion: { tiers: [{ name: 'T1', action: { discount: { type: 'AMOUNT', amount_off: 100 } }, metadata }] },
})

describe('metadata schemas are enforced on writes', () => {
  type Engine = ReturnType<typeof testEngine>['engine']
  const cases: [string, string, (e: Engine, m: Record<string, unknown>) => Promise<{ metadata?: unknown }>, string][] =
    [
      ['campaigns.create', 'campaign', (e, m) => e.raw.campaigns.create(campaignBody(m)), 'metadata'],
      ['vouchers.create', 'voucher', (e, m) => e.raw.vouchers.create(voucherBody(m)), 'metadata'],
      ['products.create', 'product', (e, m) => e.products.create({ name: 'Shirt', metadata: m }), 'metadata'],
      [
        'promotions.create (tier)',
        'promotion_tier',
        async (e, m) => {
          const p = await e.raw.promotions.create(promotionBody(m))
          return p.promotion.tiers[0] ?? {}
        },
        'promotion.tiers[0].metadata',
      ],
    ]

  it.each(cases)('%s accepts metadata the %s schema allows', async (_op, related, run) => {
    const { engine } = await withSchema(related)
    expect((await run(engine, { size: 'M' })).metadata).toEqual({ size: 'M' })
  })

  it.each(cases)('%s refuses metadata the %s schema does not, naming the property', async (_op, related, run, at) => {
    const { engine, store } = await withSchema(related)
    const before = await snapshot(store)
    await expect(run(engine, { size: 'XL' })).rejects.toMatchObject({
      code: 400,
      key: 'invalid_metadata',
      path: `${at}.size`,
      details: `Property .${at}.size must be one of ["S","M","L"]`,
    })
    await expect(run(engine, {})).rejects.toMatchObject({ code: 400, path: `${at}.size` })
    await expect(run(engine, { size: 'S', colour: 'red' })).rejects.toMatchObject({ code: 400, path: `${at}.colour` })
    expect(await snapshot(store)).toBe(before)
  })

  it('checks a product upsert on the merged metadata', async () => {
    const { engine, store } = await withSchema('product')
    await engine.products.create({ source_id: 'shirt', name: 'Shirt', metadata: { size: 'S' } })
    expect((await engine.products.create({ source_id: 'shirt', metadata: { size: 'L' } })).metadata).toEqual({
      size: 'L',
    })
    const before = await snapshot(store)
    await expect(engine.products.create({ source_id: 'shirt', metadata: { size: 1 } })).rejects.toMatchObject({
      code: 400,
      path: 'metadata.size',
    })
    expect(await snapshot(store)).toBe(before)
  })

  it('checks SKU metadata against a custom `sku` schema when one is defined, and not against `product`', async () => {
    const { engine, store } = await withSchema('product')
    await engine.products.create({ source_id: 'shirt', name: 'Shirt', metadata: { size: 'S' } })
    // The product schema does not apply to SKUs.
    expect((await engine.products.createSku('shirt', { sku: 'Red', metadata: { colour: 'red' } })).metadata).toEqual({
      colour: 'red',
    })
    await engine.metadataSchemas.create({
      related_object: 'sku',
      properties: { colour: { type: 'string', optional: false } },
    })
    const before = await snapshot(store)
    await expect(engine.products.createSku('shirt', { sku: 'Blue', metadata: {} })).rejects.toMatchObject({
      code: 400,
      path: 'metadata.colour',
    })
    expect(await snapshot(store)).toBe(before)
  })

  it('without a schema any metadata is accepted', async () => {
    const { engine } = testEngine()
    expect((await engine.raw.vouchers.create(voucherBody({ anything: [1, 2] }))).metadata).toEqual({ anything: [1, 2] })
  })
})

describe('undeclared metadata properties', () => {
  it('are stored and returned unchanged when the schema allows undefined properties (the default)', async () => {
    const { engine } = testEngine()
    await engine.metadataSchemas.create({ related_object: 'customer', properties: { vip: { type: 'boolean' } } })
    const customer = await engine.customers.create({ source_id: 'x', metadata: { vip: true, nickname: 'X' } })
    expect(customer.metadata).toEqual({ vip: true, nickname: 'X' })
    expect((await engine.customers.get('x')).metadata).toEqual({ vip: true, nickname: 'X' })
  })

  it('are refused, naming the property, when the schema allows defined properties only; nothing is written', async () => {
    const { engine, store } = testEngine()
    await engine.metadataSchemas.create({
      related_object: 'customer',
      allow_defined_only: true,
      properties: { vip: { type: 'boolean' } },
    })
    const before = await snapshot(store)
    await expect(
      engine.customers.create({ source_id: 'x', metadata: { vip: true, nickname: 'X' } }),
    ).rejects.toMatchObject({
      code: 400,
      key: 'invalid_metadata',
      path: 'metadata.nickname',
    })
    expect(await snapshot(store)).toBe(before)
  })
})
