import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

/*
 * Source: the hosted service's OpenAPI document (repository voucherify-openapi, file OpenAPI.json),
 * schema `OrderCalculated`: `referrer_id`, "Unique referrer ID", and `referrer`, the customer who
 * referred; a redemption of a referral code records the referrer on its order.
 * docs/behaviour.md#referrals.
 */
describe('the order of a referral code redemption carries referrer_id', () => {
  it('in the answer, when read back, and after the order is updated', async () => {
    const t = testEngine()
    await t.engine.campaigns.create({
      name: 'Refer a friend',
      campaign_type: 'REFERRAL_PROGRAM',
      vouchers_count: 1,
      voucher: { discount: { type: 'AMOUNT', amount_off: 1000 }, code_config: { pattern: 'REF-####' } },
      referral_program: { conversion_event_type: 'redemption' },
    })
    const published = await t.engine.referrals.publish('Refer a friend', { customer: { source_id: 'alice' } })
    const alice = await t.engine.customers.get('alice')
    const redeemed = await t.engine.redemptions.redeemStackable({
      customer: { source_id: 'bob' },
      order: { source_id: 'o-1', amount: 5000 },
      redeemables: [{ object: 'voucher', id: published.voucher?.code ?? '' }],
    })
    expect(redeemed.order).toMatchObject({ referrer_id: alice.id, referrer: { id: alice.id, object: 'customer' } })
    expect(await t.engine.orders.get('o-1')).toMatchObject({ referrer_id: alice.id })
    const redemption = await t.engine.redemptions.get(redeemed.parent_redemption.id)
    expect(redemption.order).toMatchObject({ referrer_id: alice.id })
    await t.engine.orders.update('o-1', { amount: 6000 })
    expect(await t.engine.orders.get('o-1')).toMatchObject({ referrer_id: alice.id })
  })

  it('an order redeeming no referral code has none', async () => {
    const t = testEngine()
    await t.engine.vouchers.create({
      code: 'PLAIN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
    })
    const redeemed = await t.engine.redemptions.redeemStackable({
      customer: { source_id: 'bob' },
      order: { amount: 5000 },
      redeemables: [{ object: 'voucher', id: 'PLAIN' }],
    })
    expect(redeemed.order).not.toHaveProperty('referrer_id')
  })
})
