import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'
import { member, program } from '../loyalty/fixtures'

const order = {
  items: [
    { product_id: 'prod_a', price: 1000, quantity: 1 },
    { product_id: 'prod_b', price: 500, quantity: 1 },
  ],
}

describe('the voucher embedded in a stacked redemption', () => {
  it('carries holder, validation_rules_assignments, applicable_to and inapplicable_to', async () => {
    const { engine } = testEngine()
    const voucher = await engine.vouchers.create({
      code: 'HELD',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS' },
    })
    const rule = await engine.validationRules.create({
      name: 'A not B',
      rules: {},
      applicable_to: {
        included: [{ object: 'product', id: 'prod_a' }],
        excluded: [{ object: 'product', id: 'prod_b' }],
      },
    })
    const assignment = await engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'voucher',
      related_object_id: voucher.id,
    })
    await engine.publications.create({ customer: { source_id: 'ana', metadata: { vip: true } }, voucher: 'HELD' })
    const result = await engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'HELD' }],
      customer: { source_id: 'ana' },
      order,
    })
    const embedded = result.redemptions[0]?.voucher as Record<string, unknown>
    expect(embedded).toMatchObject({ id: voucher.id, code: 'HELD', object: 'voucher' })
    expect(embedded.holder).toEqual({
      id: expect.stringMatching(/^cust_/),
      source_id: 'ana',
      metadata: { vip: true },
      object: 'customer',
    })
    expect(embedded.validation_rules_assignments).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [assignment],
      total: 1,
    })
    expect(embedded.applicable_to).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [{ object: 'product', id: 'prod_a' }],
      total: 1,
    })
    expect(embedded.inapplicable_to).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [{ object: 'product', id: 'prod_b' }],
      total: 1,
    })
    // What redemptions.get returns is the same embedded voucher.
    const again = await engine.redemptions.get(result.redemptions[0]?.id ?? '')
    expect(again.voucher).toEqual(embedded)
  })

  it('a code with no holder and no rules: no holder, empty lists', async () => {
    const { engine } = testEngine()
    await engine.vouchers.create({
      code: 'FREE',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
    })
    const result = await engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'FREE' }],
      order: { amount: 1000 },
    })
    const embedded = result.redemptions[0]?.voucher as Record<string, unknown>
    expect(embedded).not.toHaveProperty('holder')
    const empty = { object: 'list', data_ref: 'data', data: [], total: 0 }
    expect(embedded.validation_rules_assignments).toEqual(empty)
    expect(embedded.applicable_to).toEqual(empty)
    expect(embedded.inapplicable_to).toEqual(empty)
  })
})

describe('the voucher embedded in a reward redemption', () => {
  it('carries the member as holder and the list objects', async () => {
    const { engine } = testEngine()
    const club = await program(engine, {
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 500 }, code_config: { pattern: 'CLUB-####' } },
    })
    const card = await member(engine, club.id)
    const coin = await engine.rewards.create({
      name: 'Pay',
      type: 'COIN',
      parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } },
    })
    await engine.rewards.createAssignment(coin.id, { campaign: club.id })
    const r = await engine.loyalties.redeemReward(club.id, card.code, {
      reward: { id: coin.id, points: 100 },
      order: { amount: 5000 },
    })
    const embedded = r.voucher as Record<string, unknown>
    expect(embedded).toMatchObject({ id: card.id, loyalty_card: { balance: 400 } })
    expect(embedded.holder).toEqual({ id: card.holder_id, source_id: 'alice', metadata: {}, object: 'customer' })
    expect(embedded.validation_rules_assignments).toEqual({ object: 'list', data_ref: 'data', data: [], total: 0 })
    expect(embedded.applicable_to).toMatchObject({ object: 'list', total: 0 })
    expect(embedded.inapplicable_to).toMatchObject({ object: 'list', total: 0 })
  })
})
