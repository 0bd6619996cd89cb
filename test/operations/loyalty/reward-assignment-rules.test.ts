import { describe, expect, it } from 'vitest'
import { rulesAssignedTo } from '../../../src/operations/campaigns/rule-assignments'
import { rejection, snapshot, testEngine } from '../../support/engine'
import { member, program } from './fixtures'

async function setup() {
  const t = testEngine()
  const club = await program(t.engine, {
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 6874 }, code_config: { pattern: 'CLUB-####' } },
  })
  const card = await member(t.engine, club.id)
  const coin = await t.engine.rewards.create({
    name: 'Pay',
    type: 'COIN',
    parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } },
  })
  const assignment = await t.engine.rewards.createAssignment(coin.id, { campaign: club.id })
  return { ...t, club, card, coin, assignment }
}

describe('validation rules on reward assignments (docs/concepts.md#rewards, docs/concepts.md#rule-names)', () => {
  it('pay with points limited to 1000 points: 2300 refused with redemption_rules_violated naming the rule, 500 accepted', async () => {
    const { engine, store, club, card, coin, assignment } = await setup()
    const rule = await engine.validationRules.create({
      name: 'At most 1000 points',
      rules: {
        '1': { name: 'redemption.reward.pay_with_points.points_used', conditions: { $less_than_or_equal: [1000] } },
        logic: '1',
      },
      error: { message: 'Pay at most 1000 points' },
    })
    await engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'reward_assignment',
      related_object_id: assignment.id,
    })
    expect((await rulesAssignedTo(store, [assignment.id])).map((r) => r.id)).toEqual([rule.id])
    const before = await snapshot(store)
    const order = { amount: 45000, items: [{ product_id: 'p', quantity: 1, price: 45000 }] }
    const error = await rejection(engine.loyalties.redeemReward(club.id, card.code, { reward: { id: coin.id }, order }))
    expect(error).toMatchObject({
      code: 400,
      key: 'redemption_rules_violated',
      message: 'Pay at most 1000 points',
      details: `Loyalty Card cannot be redeemed because of violated validation rules: ${rule.id} (At most 1000 points)`,
    })
    expect(await snapshot(store)).toBe(before)
    const ok = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: coin.id, points: 500 }, order })
    expect(ok).toMatchObject({ amount: 500, order: { discount_amount: 10000, total_amount: 35000 } })
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(6374)
  })

  it('an order rule on a MATERIAL reward: order_rules_violated below 10000, accepted above', async () => {
    const { engine, store, club, card } = await setup()
    const product = await engine.products.create({ name: 'Mug', source_id: 'mug' })
    const mug = await engine.rewards.create({
      name: 'Mug',
      type: 'MATERIAL',
      parameters: { product: { id: product.id } },
      stock: 3,
    })
    const assignment = await engine.rewards.createAssignment(mug.id, {
      campaign: club.id,
      parameters: { loyalty: { points: 4 } },
    })
    const rule = await engine.validationRules.create({
      name: 'Orders over 100',
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [10000] } }, logic: '1' },
    })
    await engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'reward_assignment',
      related_object_id: assignment.id,
    })
    const before = await snapshot(store)
    for (const body of [{ reward: { id: mug.id } }, { reward: { id: mug.id }, order: { amount: 5000 } }]) {
      expect(await rejection(engine.loyalties.redeemReward(club.id, card.code, body))).toMatchObject({
        code: 400,
        key: 'order_rules_violated',
      })
    }
    expect(await snapshot(store)).toBe(before)
    const ok = await engine.loyalties.redeemReward(club.id, card.code, {
      reward: { id: mug.id },
      order: { amount: 20000 },
    })
    expect(ok.amount).toBe(4)
  })
})
