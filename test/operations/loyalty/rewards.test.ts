import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'
import { member, program } from './fixtures'

async function setup(initialPoints = 6874) {
  const t = testEngine()
  const club = await program(t.engine, {
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: initialPoints }, code_config: { pattern: 'CLUB-####' } },
  })
  const card = await member(t.engine, club.id)
  return { ...t, club, card }
}

describe('rewards.create / createAssignment', () => {
  it('creates CAMPAIGN (type resolved), COIN and MATERIAL rewards; rejects bad input without writing', async () => {
    const { engine, store, club } = await setup()
    const coupons = await engine.campaigns.create({
      name: 'Coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    })
    const r = await engine.rewards.create({
      name: '10% off',
      type: 'CAMPAIGN',
      parameters: { campaign: { id: coupons.id } },
    })
    expect(r).toMatchObject({
      object: 'reward',
      type: 'CAMPAIGN',
      parameters: { campaign: { id: coupons.id, balance: null, type: 'DISCOUNT_COUPONS' } },
      redeemed: 0,
      stock: null,
    })
    const coin = await engine.rewards.create({
      name: 'Pay',
      type: 'COIN',
      parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } },
    })
    expect((await engine.rewards.get(coin.id)).parameters.coin).toEqual({ exchange_ratio: 20, points_ratio: 100 })
    const product = await engine.products.create({ name: 'Mug', source_id: 'mug' })
    const mug = await engine.rewards.create({
      name: 'Mug',
      type: 'MATERIAL',
      parameters: { product: { id: product.id } },
      stock: 2,
      attributes: { description: 'A mug' },
    })
    expect(mug).toMatchObject({ stock: 2, redeemed: 0 })
    expect(mug.attributes).toEqual({ image_url: null, description: 'A mug' })
    const plain = await engine.rewards.create({
      name: 'Plain mug',
      type: 'MATERIAL',
      parameters: { product: { id: product.id } },
    })
    expect((await engine.rewards.get(plain.id)).attributes).toEqual({ image_url: null, description: null })
    expect(coin).not.toHaveProperty('attributes')
    const a = await engine.rewards.createAssignment(mug.id, {
      campaign: club.id,
      parameters: { loyalty: { points: 4 } },
    })
    expect(a).toMatchObject({
      reward_id: mug.id,
      related_object_id: club.id,
      related_object_type: 'campaign',
      parameters: { loyalty: { points: 4 } },
    })
    const before = await snapshot(store)
    const bad: unknown[] = [
      { name: 'x', type: 'CAMPAIGN', parameters: {} },
      { name: 'x', type: 'COIN', parameters: {} },
      { name: 'x', type: 'COIN', parameters: { coin: { exchange_ratio: -1, points_ratio: 1 } } },
      { name: 'x', type: 'MATERIAL', parameters: {} },
      { name: 'x', type: 'OTHER', parameters: {} },
      { type: 'COIN', parameters: { coin: { exchange_ratio: 1, points_ratio: 1 } } },
      { name: 'x', type: 'CAMPAIGN', parameters: { campaign: { id: club.id } } },
    ]
    for (const body of bad) await expect(engine.raw.rewards.create(body)).rejects.toMatchObject({ code: 400 })
    await expect(
      engine.rewards.create({ name: 'x', type: 'CAMPAIGN', parameters: { campaign: { id: 'camp_x' } } }),
    ).rejects.toMatchObject({ code: 404 })
    await expect(
      engine.rewards.createAssignment(coin.id, { campaign: club.id, parameters: { loyalty: { points: 5 } } }),
    ).rejects.toMatchObject({ code: 400 })
    await expect(
      engine.rewards.createAssignment(mug.id, { campaign: club.id, parameters: { loyalty: { points: 4 } } }),
    ).rejects.toMatchObject({ code: 409 })
    await expect(engine.rewards.createAssignment(r.id, { campaign: club.id })).rejects.toMatchObject({ code: 400 })
    await expect(engine.rewards.createAssignment('rew_x', { campaign: club.id })).rejects.toMatchObject({ code: 404 })
    await expect(engine.rewards.get('rew_x')).rejects.toMatchObject({ code: 404 })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('loyalties.redeemReward', () => {
  it('pays with points: 45000 at {20, 100} with balance 6874 takes 2300 points, leaving 4574 (docs/concepts.md#pay-with-points)', async () => {
    const { engine, club, card } = await setup()
    const coin = await engine.rewards.create({
      name: 'Pay',
      type: 'COIN',
      parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } },
    })
    const assignment = await engine.rewards.createAssignment(coin.id, { campaign: club.id })
    const r = await engine.loyalties.redeemReward(club.id, card.code, {
      reward: { id: coin.id },
      order: { amount: 45000, items: [{ product_id: 'p', quantity: 1, price: 45000 }] },
    })
    expect(r).toMatchObject({
      object: 'redemption',
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      amount: 2300,
      loyalty_card: { points: 2300 },
      order: { amount: 45000, discount_amount: 45000, total_amount: 0 },
      reward: { id: coin.id, assignment_id: assignment.id, customer: { source_id: 'alice' } },
    })
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card).toMatchObject({
      points: 6874,
      balance: 4574,
    })
    expect((await engine.loyalties.getMember(null, card.id)).redemption).toMatchObject({
      redeemed_points: 2300,
      redeemed_quantity: 1,
    })
    // With points given: 100 points are worth 2000 cents.
    const r2 = await engine.loyalties.redeemReward(null, card.id, {
      reward: { id: coin.id, points: 100 },
      order: { amount: 5000 },
    })
    expect(r2.order).toMatchObject({ discount_amount: 2000, total_amount: 3000 })
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(4474)
    // More points than the balance: only the available points are applied (spec), not refused.
    const r3 = await engine.loyalties.redeemReward(null, card.id, {
      reward: { id: coin.id, points: 5000 },
      order: { amount: 100000 },
    })
    expect(r3).toMatchObject({ amount: 4474, order: { discount_amount: 89480, total_amount: 10520 } })
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(0)
    await expect(engine.loyalties.redeemReward(null, card.id, { reward: { id: coin.id } })).rejects.toMatchObject({
      code: 400,
      path: 'order',
    })
  })

  it('MATERIAL: stock decremented, redeemed incremented, redemption pending; out of stock and too few points refused', async () => {
    const { engine, store, club, card } = await setup(10)
    const product = await engine.products.create({ name: 'Mug', source_id: 'mug' })
    const mug = await engine.rewards.create({
      name: 'Mug',
      type: 'MATERIAL',
      parameters: { product: { id: product.id } },
      stock: 1,
    })
    await engine.rewards.createAssignment(mug.id, { campaign: club.id, parameters: { loyalty: { points: 4 } } })
    const r = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: mug.id } })
    expect(r).toMatchObject({ amount: 4, reward: { id: mug.id, stock: 0, redeemed: 1 } })
    // The hashed customer source id, as stacked redemptions give (never the source id itself).
    expect(r.tracking_id).toBe('track_K9gGyX8OAK8aH8Myj6djqSaX')
    expect(await engine.rewards.get(mug.id)).toMatchObject({ stock: 0, redeemed: 1 })
    const types = (await engine.customers.listActivity('alice', { limit: 100 })).data.map((a) => a.type)
    expect(types).toEqual(
      expect.arrayContaining([
        'customer.reward_redemptions.created',
        'customer.reward_redemptions.pending',
        'customer.rewarded',
      ]),
    )
    const before = await snapshot(store)
    await expect(engine.loyalties.redeemReward(club.id, card.code, { reward: { id: mug.id } })).rejects.toMatchObject({
      code: 400,
      key: 'reward_out_of_stock',
    })
    const big = await engine.rewards.create({
      name: 'Bike',
      type: 'MATERIAL',
      parameters: { product: { id: product.id } },
      stock: 5,
    })
    const after = await snapshot(store)
    await engine.rewards.createAssignment(big.id, { campaign: club.id, parameters: { loyalty: { points: 7 } } })
    const withAssignment = await snapshot(store)
    await expect(engine.loyalties.redeemReward(club.id, card.code, { reward: { id: big.id } })).rejects.toMatchObject({
      code: 400,
      key: 'loyalty_card_points_exceeded',
    })
    expect(await snapshot(store)).toBe(withAssignment)
    expect(before).not.toBe(after)
    const unassigned = await engine.rewards.create({
      name: 'Cap',
      type: 'MATERIAL',
      parameters: { product: { id: product.id } },
      stock: 5,
    })
    await expect(
      engine.loyalties.redeemReward(club.id, card.code, { reward: { id: unassigned.id } }),
    ).rejects.toMatchObject({ code: 400, key: 'reward_not_assigned' })
    await expect(engine.loyalties.redeemReward(club.id, card.code, { reward: { id: 'rew_x' } })).rejects.toMatchObject({
      code: 404,
    })
    await expect(engine.loyalties.redeemReward(club.id, 'NOPE', { reward: { id: mug.id } })).rejects.toMatchObject({
      code: 404,
    })
    await expect(engine.raw.loyalties.redeemReward(club.id, card.code, { reward: {} })).rejects.toMatchObject({
      code: 400,
    })
  })

  it('CAMPAIGN rewards: a coupon published, gift credits added, points on another program; tier mapping changes the cost', async () => {
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
    const coupon = await engine.rewards.create({
      name: 'Coupon',
      type: 'CAMPAIGN',
      parameters: { campaign: { id: coupons.id } },
    })
    const credit = await engine.rewards.create({
      name: 'Credit',
      type: 'CAMPAIGN',
      parameters: { campaign: { id: gifts.id, balance: 2500 } },
    })
    expect(credit.parameters.campaign).toEqual({ id: gifts.id, balance: 2500, type: 'GIFT_VOUCHERS' })
    const partner = await engine.rewards.create({
      name: 'Partner pts',
      type: 'CAMPAIGN',
      parameters: { campaign: { id: other.id, balance: 30 } },
    })
    for (const [reward, points] of [
      [coupon, 100],
      [credit, 200],
      [partner, 50],
    ] as const) {
      await engine.rewards.createAssignment(reward.id, { campaign: club.id, parameters: { loyalty: { points } } })
    }
    await expect(
      engine.rewards.createAssignment(partner.id, { campaign: other.id, parameters: { loyalty: { points: 1 } } }),
    ).rejects.toMatchObject({ code: 400 })
    const alice = await engine.customers.get('alice')
    const c = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: coupon.id } })
    expect(c.reward).toMatchObject({
      parameters: { campaign: { type: 'DISCOUNT_COUPONS' } },
      voucher: { campaign_id: coupons.id, holder_id: alice.id },
    })
    const g = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: credit.id } })
    expect(g.reward).toMatchObject({ voucher: { gift: { amount: 2500, balance: 2500 } } })
    const g2 = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: credit.id } })
    expect(g2.reward).toMatchObject({ voucher: { gift: { amount: 5000, balance: 5000 } } })
    // Each gift credit reward emits customer.voucher.gift.balance_added (docs/behaviour.md#events) for the gift card.
    const added = (await engine.customers.listActivity('alice', { type: 'customer.voucher.gift.balance_added' })).data
    expect(added).toHaveLength(2)
    expect(
      added.map((a) => [a.data.amount, (a.data.voucher as { gift: { balance: number } }).gift.balance]).sort(),
    ).toEqual([
      [2500, 2500],
      [2500, 5000],
    ])
    expect(added[0]).toMatchObject({
      data: { voucher: { id: (g.reward as { voucher: { id: string } }).voucher.id } },
    })
    const forGifts = await engine.customers.listActivity('alice', {
      campaign_id: gifts.id,
      type: 'customer.voucher.gift.balance_added',
    })
    expect(forGifts.data).toHaveLength(2)
    const p = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: partner.id } })
    expect(p.reward).toMatchObject({
      parameters: { campaign: { type: 'LOYALTY_PROGRAM' } },
      voucher: { campaign_id: other.id, loyalty_card: { points: 30, balance: 30 } },
    })
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(1000 - 100 - 200 - 200 - 50)
  })

  it('concurrent redemptions on one card never overspend points or stock', async () => {
    const { engine, club, card } = await setup(20)
    const product = await engine.products.create({ name: 'Mug', source_id: 'mug' })
    const mug = await engine.rewards.create({
      name: 'Mug',
      type: 'MATERIAL',
      parameters: { product: { id: product.id } },
      stock: 3,
    })
    await engine.rewards.createAssignment(mug.id, { campaign: club.id, parameters: { loyalty: { points: 4 } } })
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => engine.loyalties.redeemReward(club.id, card.code, { reward: { id: mug.id } })),
    )
    const ok = outcomes.filter((o) => o.status === 'fulfilled').length
    expect(ok).toBe(3)
    expect(await engine.rewards.get(mug.id)).toMatchObject({ stock: 0, redeemed: 3 })
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(8)
  })
})
