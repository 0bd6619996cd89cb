import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'

type T = ReturnType<typeof testEngine>

// docs/concepts.md#gift-cards, docs/errors.md#result-keys: a gift card with `gift.effect: APPLY_TO_ITEMS` pays only for the matched items.
async function itemsCard(t: T, products?: string[]) {
  const card = await t.engine.vouchers.create({
    code: 'ITEMS-CARD',
    type: 'GIFT_VOUCHER',
    gift: { amount: 10000, effect: 'APPLY_TO_ITEMS' },
  })
  if (products) {
    const rule = await t.engine.validationRules.create({
      name: 'Books only',
      rules: {},
      applicable_to: { included: products.map((id) => ({ object: 'product', id })) },
    })
    await t.engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'voucher',
      related_object_id: card.id,
    })
  }
  return card
}

const order = {
  items: [
    { product_id: 'prod_book', price: 2000, quantity: 2 }, // 4000
    { product_id: 'prod_pen', price: 500, quantity: 1 }, // 500
    { product_id: 'prod_book', price: 1500, quantity: 1 }, // 1500
  ],
}

describe('gift card with gift.effect APPLY_TO_ITEMS', () => {
  it('the credits cover only the matched lines, spread by what is left on each', async () => {
    const t = testEngine()
    await itemsCard(t, ['prod_book'])
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'ITEMS-CARD', gift: { credits: 1000 } }],
      order,
    })
    const r = result.redeemables[0]
    expect(r?.status).toBe('APPLICABLE')
    expect(r?.result).toEqual({ gift: { credits: 1000, balance: 10000 } })
    // 1000 over 4000 and 1500: 727.27… and 272.72… → 727 and 273.
    expect(result.order.items?.map((i) => i.applied_discount_amount)).toEqual([727, 0, 273])
    expect(result.order).toMatchObject({
      amount: 6000,
      discount_amount: 0,
      items_discount_amount: 1000,
      total_discount_amount: 1000,
      total_amount: 5000,
    })
    expect(r?.applicable_to?.data).toEqual([
      expect.objectContaining({ object: 'product', id: 'prod_book', order_item_indices: [0, 2] }),
    ])
  })

  it('more credits than the matched lines hold: only their amount is credited, and that much is redeemed', async () => {
    const t = testEngine()
    await itemsCard(t, ['prod_book'])
    const redeemed = await t.engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'ITEMS-CARD', gift: { credits: 8000 } }],
      order,
    })
    expect(redeemed.redemptions[0]).toMatchObject({ amount: 5500, gift: { amount: 5500 } })
    expect(redeemed.order).toMatchObject({ total_discount_amount: 5500, total_amount: 500 })
    const card = await t.engine.vouchers.get('ITEMS-CARD')
    expect(card.gift).toMatchObject({ balance: 4500, subtracted_amount: 0 })
    expect(card.redemption.redeemed_amount).toBe(5500)
  })

  it('without gift.credits the card pays what it can of the matched lines', async () => {
    const t = testEngine()
    await itemsCard(t, ['prod_pen'])
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'ITEMS-CARD' }],
      order,
    })
    expect(result.redeemables[0]?.result).toEqual({ gift: { credits: 500, balance: 10000 } })
    expect(result.order.total_amount).toBe(5500)
  })

  it('with no validation rule it covers every line', async () => {
    const t = testEngine()
    await itemsCard(t)
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'ITEMS-CARD', gift: { credits: 600 } }],
      order,
    })
    expect(result.order.items?.map((i) => i.applied_discount_amount)).toEqual([400, 50, 150])
  })

  it('missing_order_items_amount when no matched item has an amount', async () => {
    const t = testEngine()
    await itemsCard(t, ['prod_book'])
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'ITEMS-CARD', gift: { credits: 1000 } }],
      order: { items: [{ product_id: 'prod_pen', price: 500, quantity: 1 }] },
    })
    const r = result.redeemables[0]
    expect(result.valid).toBe(false)
    expect(r?.status).toBe('INAPPLICABLE')
    expect(r?.result).toEqual({
      error: {
        code: 400,
        key: 'missing_order_items_amount',
        message: 'Missing applicable order items',
        details: 'At least one applicable order item with amount is required to redeem this GIFT_VOUCHER',
        request_id: null,
      },
      details: { key: 'missing_order_items_amount', message: 'Missing applicable order items' },
    })
    expect(r?.explanation).toMatchObject({ check: 'gift.effect', actual: 0 })
  })

  it('missing_order_items_amount for an order sent as an amount with no items', async () => {
    const t = testEngine()
    await itemsCard(t)
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'ITEMS-CARD', gift: { credits: 1000 } }],
      order: { amount: 5000 },
    })
    expect(result.redeemables[0]?.result).toMatchObject({ error: { key: 'missing_order_items_amount' } })
  })

  it('an APPLY_TO_ORDER card on the same order stays an order-level discount', async () => {
    const t = testEngine()
    await t.engine.vouchers.create({ code: 'ORDER-CARD', type: 'GIFT_VOUCHER', gift: { amount: 10000 } })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'ORDER-CARD', gift: { credits: 1000 } }],
      order,
    })
    expect(result.order).toMatchObject({ discount_amount: 1000, items_discount_amount: 0, total_amount: 5000 })
  })
})
