import { describe, expect, it } from 'vitest'
import { cardPayingWithPoints, program } from '../operations/loyalty/fixtures'
import { testEngine } from '../support/engine'

/** Pay with points inside a stacked redemption, earning on the PAID order, and the rollback of both. */
async function setup() {
  const t = testEngine()
  return { ...t, ...(await cardPayingWithPoints(t.engine)) }
}

describe('loyalty card paying with points in a stacked redemption', () => {
  it('spends the points as an order-level discount, earns on the PAID total, and a rollback restores the balance', async () => {
    const { engine, store, card, coin } = await setup()
    expect((await engine.loyalties.getMember(null, card.code)).loyalty_card).toMatchObject({
      points: 500,
      balance: 500,
    })

    const body = {
      customer: { source_id: 'alice' },
      order: { amount: 20000 },
      redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 300 } }],
    }
    const validation = await engine.raw.validations.validateStackable(body)
    expect(validation.redeemables[0]).toMatchObject({ status: 'APPLICABLE', result: { loyalty_card: { points: 300 } } })
    expect(validation.order).toMatchObject({ discount_amount: 300, total_amount: 19700 })

    const redemption = await engine.raw.redemptions.redeemStackable(body)
    expect(redemption.redemptions[0]).toMatchObject({ amount: 300, loyalty_card: { points: 300 } })
    // 500 − 300 spent + floor(19700 / 1000) = 19 earned on the PAID order.
    expect((await engine.loyalties.getMember(null, card.code)).loyalty_card).toMatchObject({
      points: 519,
      balance: 219,
    })

    const rollback = await engine.redemptions.rollbackStackable(redemption.parent_redemption.id)
    expect(rollback.rollbacks[0]).toMatchObject({ amount: -300, loyalty_card: { points: -300 } })
    const after = await engine.loyalties.getMember(null, card.code)
    expect(after.loyalty_card).toMatchObject({ balance: 519 })
    expect(after.redemption).toMatchObject({ redeemed_quantity: 0, redeemed_points: 0 })
    // The ledger agrees: the points went back to the buckets they were taken from.
    const buckets = await store.points_buckets.list({ where: { voucher_id: after.id } })
    expect(buckets.data.reduce((n, b) => n + b.value.remaining, 0)).toBe(519)
  })

  it('refuses more points than the card holds (loyalty_card_points_exceeded) and a missing reward', async () => {
    const { engine, card, coin } = await setup()
    const over = await engine.validations.validateStackable({
      order: { amount: 20000 },
      redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 501 } }],
    })
    expect(over.redeemables[0]?.result).toMatchObject({
      error: { key: 'loyalty_card_points_exceeded', message: 'loyalty card points exceeded', details: card.code },
    })
    const missing = await engine.validations.validateStackable({
      order: { amount: 20000 },
      redeemables: [{ object: 'voucher', id: card.code }],
    })
    expect(missing.redeemables[0]?.result).toMatchObject({
      error: { key: 'missing_reward', message: 'Missing reward' },
    })
  })
})

describe('a rollback after the spent points would have expired', () => {
  it('returns them to their bucket, where they lapse at once with a points_expired event', async () => {
    const t = testEngine()
    const { engine, store, clock } = t
    const club = await program(engine, {
      voucher: {
        type: 'LOYALTY_CARD',
        loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1 } },
        code_config: { pattern: 'CLUB-####' },
      },
    })
    await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 500 } },
    ])
    const card = await engine.loyalties.createMember(club.id, { customer: { source_id: 'alice' } })
    await engine.orders.create({ customer: { source_id: 'alice' }, status: 'PAID', amount: 1000 })
    const coin = await engine.rewards.create({
      name: 'cents',
      type: 'COIN',
      parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } },
    })
    await engine.rewards.createAssignment(coin.id, { campaign: club.id })
    const redemption = await engine.redemptions.redeemStackable({
      order: { amount: 20000, status: 'CREATED' },
      redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 300 } }],
    })
    // Two months on, the 200 points left have expired; the 300 spent come back past their expiry.
    clock.advance(62 * 86_400_000)
    await engine.asyncActions.runPending()
    expect((await engine.loyalties.getMember(null, card.code)).loyalty_card).toMatchObject({
      balance: 0,
      expired_points: 200,
    })
    await engine.redemptions.rollbackStackable(redemption.parent_redemption.id)
    expect((await engine.loyalties.getMember(null, card.code)).loyalty_card).toMatchObject({
      balance: 0,
      expired_points: 500,
    })
    const customer = await engine.customers.get('alice')
    const expired = await store.activities.list({
      where: { customer_id: customer.id, type: 'customer.voucher.loyalty_card.points_expired' },
      order: { field: 'id', direction: 'asc' },
    })
    expect(expired.data.map((a) => (a.value.data as unknown as { points: number }).points)).toEqual([200, 300])
  })
})
