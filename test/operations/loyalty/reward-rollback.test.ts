import { describe, expect, it } from 'vitest'
import type { EngineOptions } from '../../../src/engine'
import { rejection, snapshot, testEngine } from '../../support/engine'

/** What a refused rollback writes: the failed rollback and its activity. */
// A refused rollback is recorded, and counted in its customer's summary (docs/behaviour.md#customer-summary).
const REFUSAL_RECORDS = ['redemption_rollbacks', 'activities', 'counters']

import { member, program } from './fixtures'

async function setup(initialPoints: number, options: EngineOptions = {}) {
  const t = testEngine(options)
  const club = await program(t.engine, {
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: initialPoints }, code_config: { pattern: 'CLUB-####' } },
  })
  const card = await member(t.engine, club.id)
  const product = await t.engine.products.create({ name: 'Mug', source_id: 'mug' })
  const mug = await t.engine.rewards.create({
    name: 'Mug',
    type: 'MATERIAL',
    parameters: { product: { id: product.id } },
    stock: 1,
  })
  await t.engine.rewards.createAssignment(mug.id, { campaign: club.id, parameters: { loyalty: { points: 4 } } })
  const coin = await t.engine.rewards.create({
    name: 'Pay',
    type: 'COIN',
    parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } },
  })
  await t.engine.rewards.createAssignment(coin.id, { campaign: club.id })
  return { ...t, club, card, mug, coin }
}

describe('redemptions.rollback (single, docs/concepts.md#rollbacks)', () => {
  it('a MATERIAL reward: points back to their buckets, stock +1, redeemed −1, rr_ object with negative points', async () => {
    const { engine, store, club, card, mug } = await setup(10)
    const r = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: mug.id } })
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(6)
    const rb = await engine.redemptions.rollback(r.id, { reason: 'returned', metadata: { desk: 2 } })
    expect(rb).toMatchObject({
      object: 'redemption_rollback',
      redemption: r.id,
      reason: 'returned',
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      amount: -4,
      loyalty_card: { points: -4 },
      reward: { id: mug.id, type: 'MATERIAL', name: 'Mug' },
      related_object_type: 'voucher',
      related_object_id: card.id,
      metadata: { desk: 2 },
    })
    expect(rb.id.startsWith('rr_')).toBe(true)
    expect(await engine.rewards.get(mug.id)).toMatchObject({ stock: 1, redeemed: 0 })
    const after = await engine.loyalties.getMember(null, card.id)
    expect(after.loyalty_card).toMatchObject({ points: 10, balance: 10 })
    expect(after.redemption).toMatchObject({ redeemed_points: 0, redeemed_quantity: 0 })
    const buckets = await store.points_buckets.list({ where: { voucher_id: card.id } })
    expect(buckets.data.map((b) => b.value.remaining)).toEqual([10])
    expect(await engine.redemptions.get(r.id)).toMatchObject({
      status: 'ROLLED_BACK',
      related_redemptions: { rollbacks: [{ id: rb.id, rollback_order_mode: 'WITH_ORDER' }] },
    })
    expect(await engine.redemptions.get(rb.id)).toMatchObject({ id: rb.id, amount: -4 })
    const types = (await engine.customers.listActivity('alice', { limit: 100 })).data.map((a) => a.type)
    expect(types).toEqual(
      expect.arrayContaining(['customer.redemption.rollback.succeeded', 'customer.reward_redemptions.rolledback']),
    )
    // The stock is back: the mug can be redeemed again.
    expect((await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: mug.id } })).amount).toBe(4)
  })

  it('twice → already_rolled_back; a foreign customer → invalid_customer; older than 3 months → rollback_period_expired', async () => {
    const { engine, store, clock, club, card, mug } = await setup(10)
    const r = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: mug.id } })
    const before = await snapshot(store, REFUSAL_RECORDS)
    expect((await rejection(engine.redemptions.rollback(r.id, { customer: { source_id: 'bob' } }))).key).toBe(
      'invalid_customer',
    )
    expect((await rejection(engine.redemptions.rollback(r.id, { order: { id: 'ord_x' } }))).key).toBe('invalid_order')
    clock.set('2026-04-15T10:00:00.001Z')
    expect(await rejection(engine.redemptions.rollback(r.id))).toMatchObject({
      code: 400,
      key: 'rollback_period_expired',
    })
    expect(await snapshot(store, REFUSAL_RECORDS)).toBe(before)
    // Each refusal is recorded (docs/behaviour.md#events): a failed rollback and customer.redemption.rollback.failed.
    const failed = (await store.redemption_rollbacks.list()).data.map((s) => s.value)
    expect(failed.map((f) => f.failure_code).sort()).toEqual([
      'invalid_customer',
      'invalid_order',
      'rollback_period_expired',
    ])
    for (const f of failed) {
      expect(f).toMatchObject({ redemption: r.id, result: 'FAILURE', status: 'FAILED' })
      expect(f.id.startsWith('rrf_')).toBe(true)
      expect(f).not.toHaveProperty('loyalty_card')
    }
    const events = await engine.customers.listActivity('alice', { type: 'customer.redemption.rollback.failed' })
    expect(events.data).toHaveLength(3)
    clock.set('2026-04-15T10:00:00.000Z')
    await engine.redemptions.rollback(r.id, { customer: { source_id: 'alice' } })
    const rolled = await snapshot(store, REFUSAL_RECORDS)
    expect(await rejection(engine.redemptions.rollback(r.id))).toMatchObject({ code: 400, key: 'already_rolled_back' })
    expect(await snapshot(store, REFUSAL_RECORDS)).toBe(rolled)
    expect((await store.redemption_rollbacks.list()).data.filter((s) => s.value.result === 'FAILURE')).toHaveLength(4)
    expect((await rejection(engine.redemptions.rollback('r_nope'))).code).toBe(404)
    // The stacked endpoint refuses a single redemption (it has no children to give back).
    const again = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: mug.id } })
    const kept = await snapshot(store, REFUSAL_RECORDS)
    expect(await rejection(engine.redemptions.rollbackStackable(again.id))).toMatchObject({
      code: 400,
      key: 'invalid_redemption',
    })
    expect(await snapshot(store, REFUSAL_RECORDS)).toBe(kept)
  })

  it('a stacked parent or child is refused with invalid_redemption', async () => {
    const { engine, store } = await setup(10)
    await engine.vouchers.create({
      code: 'TEN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' },
    })
    const stacked = await engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { amount: 5000 },
      customer: { source_id: 'alice' },
    })
    const before = await snapshot(store, REFUSAL_RECORDS)
    for (const id of [stacked.parent_redemption.id, stacked.redemptions[0]?.id as string]) {
      expect(await rejection(engine.redemptions.rollback(id))).toMatchObject({
        code: 400,
        key: 'invalid_redemption',
        details: 'You can rollback only a single redemption. Use different endpoint for stacked redemption.',
      })
    }
    expect(await snapshot(store, REFUSAL_RECORDS)).toBe(before)
  })

  it('pay with points: WITH_ORDER returns the order without the discount and CANCELED; WITHOUT_ORDER keeps it', async () => {
    const order = { amount: 45000, items: [{ product_id: 'p', quantity: 1, price: 45000 }] }
    const a = await setup(6874)
    const r = await a.engine.loyalties.redeemReward(a.club.id, a.card.code, { reward: { id: a.coin.id }, order })
    const rb = await a.engine.redemptions.rollback(r.id)
    expect(rb).toMatchObject({ amount: -2300, loyalty_card: { points: -2300 } })
    expect(rb.order).toMatchObject({ amount: 45000, discount_amount: 0, total_amount: 45000, status: 'CANCELED' })
    expect((await a.engine.loyalties.getMember(null, a.card.id)).loyalty_card?.balance).toBe(6874)
    const b = await setup(6874, { stackingRules: { redeemables_rollback_order_mode: 'WITHOUT_ORDER' } })
    const r2 = await b.engine.loyalties.redeemReward(b.club.id, b.card.code, { reward: { id: b.coin.id }, order })
    const rb2 = await b.engine.redemptions.rollback(r2.id)
    expect(rb2.order).toMatchObject({ discount_amount: 45000, total_amount: 0 })
    expect((await b.engine.loyalties.getMember(null, b.card.id)).loyalty_card?.balance).toBe(6874)
  })

  it('CAMPAIGN rewards: the coupon is disabled, gift credits and partner points are taken back', async () => {
    const { engine, club, card } = await setup(1000)
    const coupons = await engine.campaigns.create({
      name: 'Coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    })
    const gifts = await engine.campaigns.create({
      name: 'Gifts',
      campaign_type: 'GIFT_VOUCHERS',
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 0 } },
    })
    const other = await program(engine, { name: 'Partner' })
    const rewards = [
      await engine.rewards.create({ name: 'Coupon', type: 'CAMPAIGN', parameters: { campaign: { id: coupons.id } } }),
      await engine.rewards.create({
        name: 'Credit',
        type: 'CAMPAIGN',
        parameters: { campaign: { id: gifts.id, balance: 2500 } },
      }),
      await engine.rewards.create({
        name: 'Partner pts',
        type: 'CAMPAIGN',
        parameters: { campaign: { id: other.id, balance: 30 } },
      }),
    ]
    for (const reward of rewards) {
      await engine.rewards.createAssignment(reward.id, { campaign: club.id, parameters: { loyalty: { points: 100 } } })
    }
    const issued: string[] = []
    for (const reward of rewards) {
      const r = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: reward.id } })
      issued.push((r.reward as { voucher: { id: string } }).voucher.id)
      await engine.redemptions.rollback(r.id)
    }
    const [coupon, gift, partner] = await Promise.all(issued.map((id) => engine.vouchers.get(id)))
    expect(coupon).toMatchObject({ active: false, holder_id: card.holder_id })
    expect(gift?.gift).toMatchObject({ amount: 2500, subtracted_amount: 2500, balance: 0 })
    expect(partner?.loyalty_card).toMatchObject({ points: 30, balance: 0, subtracted_points: 30 })
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(1000)
    for (const reward of rewards) expect((await engine.rewards.get(reward.id)).redeemed).toBe(0)
  })
})
