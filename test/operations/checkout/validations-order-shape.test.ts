import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'

async function catalogue() {
  const t = testEngine()
  const mug = await t.engine.products.create({
    source_id: 'mug',
    name: 'Mug',
    price: 1500,
    metadata: { color: 'red' },
  })
  const big = await t.engine.products.createSku('mug', { source_id: 'mug-big', sku: 'Big mug', price: 2000 })
  await t.engine.vouchers.create({
    code: 'TEN',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' },
  })
  return { t, mug, big }
}

describe('calculated order in validation results', () => {
  it('status is CREATED when the request sends none, on the order and on each redeemable’s order', async () => {
    const { t } = await catalogue()
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { amount: 5000 },
    })
    expect(result.order.status).toBe('CREATED')
    expect(result.redeemables[0]?.order?.status).toBe('CREATED')
  })

  it('status is the request’s when it sends one', async () => {
    const { t } = await catalogue()
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { amount: 5000, status: 'PAID' },
    })
    expect(result.order.status).toBe('PAID')
    expect(result.redeemables[0]?.order?.status).toBe('PAID')
  })

  it('a line naming a stored product by source_id carries the catalogue product object', async () => {
    const { t, mug } = await catalogue()
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { items: [{ source_id: 'mug', related_object: 'product', quantity: 2 }] },
    })
    expect(result.order.items[0]).toMatchObject({
      product_id: mug.id,
      price: 1500,
      amount: 3000,
      metadata: {},
      product: { id: mug.id, source_id: 'mug', override: false, name: 'Mug', metadata: { color: 'red' }, price: 1500 },
    })
    expect(result.order.items[0]?.sku).toBeUndefined()
    expect(result.order.total_amount).toBe(2000)
  })

  it('a line naming a stored SKU carries sku_id, the sku object and its product', async () => {
    const { t, mug, big } = await catalogue()
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { items: [{ source_id: 'mug-big', related_object: 'sku', quantity: 1, metadata: { gift: true } }] },
    })
    const item = result.order.items[0]
    expect(item).toMatchObject({ sku_id: big.id, product_id: mug.id, price: 2000, metadata: { gift: true } })
    expect(item?.sku).toEqual({
      id: big.id,
      source_id: 'mug-big',
      override: false,
      sku: 'Big mug',
      price: 2000,
      metadata: {},
    })
    expect(item?.product).toEqual({
      id: mug.id,
      source_id: 'mug',
      override: false,
      name: 'Mug',
      metadata: { color: 'red' },
      price: 1500,
    })
    expect(result.redeemables[0]?.order?.items[0]?.sku?.sku).toBe('Big mug')
  })

  it('what the request embedded wins field by field; the catalogue fills the rest', async () => {
    const { t, mug } = await catalogue()
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { items: [{ product_id: mug.id, product: { name: 'Promo mug', price: 1200, override: true } }] },
    })
    expect(result.order.items[0]).toMatchObject({ price: 1200, amount: 1200 })
    expect(result.order.items[0]?.product).toEqual({
      id: mug.id,
      source_id: 'mug',
      override: true,
      name: 'Promo mug',
      metadata: { color: 'red' },
      price: 1200,
    })
  })

  it('a line naming nothing stored carries no product or sku object', async () => {
    const { t } = await catalogue()
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { items: [{ product_id: 'prod_unknown', price: 3000 }] },
    })
    const item = result.order.items[0]
    expect(item).toMatchObject({ product_id: 'prod_unknown', price: 3000, metadata: {} })
    expect(item?.product).toBeUndefined()
    expect(item?.sku).toBeUndefined()
  })

  it('the redemption stores the order with its product objects and status PAID', async () => {
    const { t, mug } = await catalogue()
    const redemption = await t.engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { items: [{ source_id: 'mug', related_object: 'product', quantity: 2 }] },
    })
    expect(redemption.order?.status).toBe('PAID')
    expect(redemption.order?.items[0]?.product).toMatchObject({ id: mug.id, name: 'Mug', price: 1500 })
  })
})
