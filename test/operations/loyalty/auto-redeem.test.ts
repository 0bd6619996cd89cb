import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import type { Redemption } from '../../../src/model/redemption'
import { testEngine } from '../../support/engine'
import { member, mugReward, program } from './fixtures'

type Engine = ReturnType<typeof testEngine>['engine']

const paid = (sourceId: string, amount: number) => ({
  source_id: sourceId,
  status: 'PAID',
  customer: { source_id: 'alice' },
  amount,
})

/** A program earning 1 point per cent paid, with a Gold tier at a 100-point balance and a 100-point mug. */
async function club(engine: Engine, options: { autoRedeem: boolean; stock?: number }) {
  const c = await program(engine)
  await engine.loyalties.createEarningRule(c.id, [
    {
      event: 'order.paid',
      loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1, points: 1 } } },
    },
  ])
  await engine.loyalties.createTiers(c.id, [{ name: 'Gold', points: { from: 100 } }])
  const mug = await mugReward(engine, c.id, options)
  const card = await member(engine, c.id)
  return { club: c, card, mug }
}

async function autoRedemptions(engine: Engine): Promise<Redemption[]> {
  const page = await engineContext(engine).store.redemptions.list({ where: { 'channel.channel_type': 'AUTO_REDEEM' } })
  return page.data.map((s) => s.value)
}

async function balance(engine: Engine, cardId: string) {
  return (await engine.loyalties.getMember(null, cardId)).loyalty_card?.balance
}

describe('auto-redeem (docs/concepts.md#tiers, docs/concepts.md#rewards)', () => {
  it('auto-redeem at 100 points with a Gold tier at a 100-point balance: the customer never reaches Gold', async () => {
    const { engine } = testEngine()
    const { card, mug } = await club(engine, { autoRedeem: true })
    await engine.raw.orders.create(paid('o1', 100))
    expect(await balance(engine, card.id)).toBe(0)
    expect(await engine.loyalties.getMemberTier(null, card.id)).toBeNull()
    const [r] = await autoRedemptions(engine)
    expect(r).toMatchObject({
      result: 'SUCCESS',
      amount: 100,
      loyalty_card: { points: 100 },
      related_object_id: card.id,
      channel: { channel_type: 'AUTO_REDEEM' },
      reward: { id: mug.id, redeemed: 1 },
    })
    expect(r?.channel.channel_id).toMatch(/^autor_/)
    expect((await engine.rewards.get(mug.id)).redeemed).toBe(1)
    const types = (await engine.customers.listActivity('alice', { limit: 100 })).data.map((a) => a.type)
    expect(
      types.filter((t) => t.startsWith('customer.reward_redemptions.') || t === 'customer.rewarded').sort(),
    ).toEqual(['customer.reward_redemptions.created', 'customer.reward_redemptions.pending', 'customer.rewarded'])
    expect(types.filter((t) => t.startsWith('customer.loyalty.tier.'))).toEqual([])
  })

  it('control: the same program without auto-redeem reaches Gold', async () => {
    const { engine } = testEngine()
    const { card } = await club(engine, { autoRedeem: false })
    await engine.raw.orders.create(paid('o1', 100))
    expect(await balance(engine, card.id)).toBe(100)
    expect((await engine.loyalties.getMemberTier(null, card.id))?.name).toBe('Gold')
    expect(await autoRedemptions(engine)).toEqual([])
  })

  it('redeems as often as the balance pays for, at most 25 rewards in one transaction; the rest reaches the tier', async () => {
    const { engine } = testEngine()
    const { card, mug } = await club(engine, { autoRedeem: true })
    await engine.raw.orders.create(paid('o1', 250)) // 250 → 2 mugs, 50 left
    expect(await balance(engine, card.id)).toBe(50)
    await engine.raw.orders.create(paid('o2', 3000)) // 3050 → 25 mugs (the cap), 550 left → Gold
    expect(await balance(engine, card.id)).toBe(550)
    expect((await engine.loyalties.getMemberTier(null, card.id))?.name).toBe('Gold')
    const all = await autoRedemptions(engine)
    expect(all).toHaveLength(27)
    // One channel id per transaction: 2 then 25.
    const perRun = new Map<string | null, number>()
    for (const r of all) perRun.set(r.channel.channel_id, (perRun.get(r.channel.channel_id) ?? 0) + 1)
    expect([...perRun.values()].sort((a, b) => a - b)).toEqual([2, 25])
    expect((await engine.rewards.get(mug.id)).redeemed).toBe(27)
  })

  it('stops at the stock of a MATERIAL reward without failing the payment', async () => {
    const { engine } = testEngine()
    const { card, mug } = await club(engine, { autoRedeem: true, stock: 2 })
    await engine.raw.orders.create(paid('o1', 500))
    expect(await balance(engine, card.id)).toBe(300)
    expect((await engine.rewards.get(mug.id)).stock).toBe(0)
    expect(await autoRedemptions(engine)).toHaveLength(2)
  })

  it('at most 10 auto-redemptions per customer per calendar day in the engine time zone', async () => {
    const { engine, clock } = testEngine({ timezone: 'Europe/Warsaw' })
    const { card } = await club(engine, { autoRedeem: true })
    for (let i = 1; i <= 10; i++) {
      clock.set(`2026-01-15T12:${String(i).padStart(2, '0')}:00.000Z`)
      await engine.raw.orders.create(paid(`o${i}`, 100))
    }
    expect(await autoRedemptions(engine)).toHaveLength(10)
    expect(await balance(engine, card.id)).toBe(0)
    // 23:30 in Warsaw, still 15 January: the 11th is not auto-redeemed, so the balance reaches Gold.
    clock.set('2026-01-15T22:30:00.000Z')
    await engine.raw.orders.create(paid('o11', 100))
    expect(await autoRedemptions(engine)).toHaveLength(10)
    expect(await balance(engine, card.id)).toBe(100)
    expect((await engine.loyalties.getMemberTier(null, card.id))?.name).toBe('Gold')
    // 00:30 in Warsaw on 16 January (still the 15th in UTC): a new day, both rewards go in one run.
    clock.set('2026-01-15T23:30:00.000Z')
    await engine.raw.orders.create(paid('o12', 100))
    const all = await autoRedemptions(engine)
    expect(all).toHaveLength(12)
    const newDay = all.filter((r) => r.date === '2026-01-15T23:30:00.000Z')
    expect(newDay).toHaveLength(2)
    expect(new Set(newDay.map((r) => r.channel.channel_id)).size).toBe(1)
    expect(await balance(engine, card.id)).toBe(0)
    expect(await engine.loyalties.getMemberTier(null, card.id)).toBeNull()
  })

  it('a member joining with card points that pay for the reward is auto-redeemed before their tier is set', async () => {
    const { engine } = testEngine()
    const c = await program(engine, {
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 120 }, code_config: { pattern: 'CLUB-####' } },
    })
    await engine.loyalties.createTiers(c.id, [
      { name: 'Bronze', points: { from: 0, to: 99 } },
      { name: 'Gold', points: { from: 100 } },
    ])
    const coupons = await engine.campaigns.create({
      name: 'Coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    })
    const coupon = await engine.rewards.create({
      name: 'Coupon',
      type: 'CAMPAIGN',
      parameters: { campaign: { id: coupons.id } },
    })
    await engine.rewards.createAssignment(coupon.id, {
      campaign: c.id,
      parameters: { loyalty: { points: 100, auto_redeem: true } },
    })
    const card = await member(engine, c.id)
    expect(card.loyalty_card?.balance).toBe(20)
    expect((await engine.loyalties.getMemberTier(null, card.id))?.name).toBe('Bronze')
    const [r] = await autoRedemptions(engine)
    const alice = await engine.customers.get('alice')
    expect(r?.reward).toMatchObject({ id: coupon.id, voucher: { campaign_id: coupons.id, holder_id: alice.id } })
  })
})

describe('the points estimate runs the same cascade as the payment, auto-redeem included', () => {
  it('an order of 250 estimated, then paid: the estimate names the mugs and the balance the payment leaves', async () => {
    const { engine } = testEngine()
    const { club: c, card, mug } = await club(engine, { autoRedeem: true })
    const estimate = await engine.raw.loyalties.qualifications(c.id, {
      customer: { source_id: 'alice' },
      order: { amount: 250 },
    })
    expect(estimate.points_estimation).toBe(250)
    expect(estimate.cascade).toMatchObject({
      voucher_id: card.id,
      points: 250,
      balance_before: 0,
      balance_after: 50,
      tier_before: null,
      tier_after: null,
      rewards: [{ reward_id: mug.id, times: 2, points: 100 }],
      tier_events: [],
    })
    // Nothing was written by the estimate; the payment then does exactly what it said.
    expect(await autoRedemptions(engine)).toHaveLength(0)
    await engine.raw.orders.create(paid('o1', 250))
    expect(await balance(engine, card.id)).toBe(50)
    expect(await autoRedemptions(engine)).toHaveLength(2)
  })

  it('without auto-redeem the same order reaches Gold, in the estimate and in the payment', async () => {
    const { engine } = testEngine()
    const { club: c, card } = await club(engine, { autoRedeem: false })
    const estimate = await engine.raw.loyalties.qualifications(c.id, {
      customer: { source_id: 'alice' },
      order: { amount: 250 },
    })
    expect(estimate.cascade.rewards).toEqual([])
    expect(estimate.cascade.balance_after).toBe(250)
    expect(estimate.cascade.tier_events.map((e) => e.type)).toEqual(['customer.loyalty.tier.joined'])
    await engine.raw.orders.create(paid('o1', 250))
    expect((await engine.loyalties.getMemberTier(null, card.id))?.id).toBe(estimate.cascade.tier_after)
  })
})
