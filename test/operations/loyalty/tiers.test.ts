import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'
import { member, program } from './fixtures'

const paid = (sourceId: string, amount: number) => ({
  source_id: sourceId,
  status: 'PAID',
  customer: { source_id: 'alice' },
  amount,
})

describe('tiers', () => {
  it('creates and lists tiers, rejects overlaps and bad input without writing', async () => {
    const { engine, store } = testEngine()
    const club = await program(engine)
    const [rule] = await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 1 } },
    ])
    const tiers = await engine.loyalties.createTiers(club.name, [
      {
        name: 'Bottom',
        points: { from: 1, to: 249 },
        earning_rules: { [rule?.id ?? '']: { type: 'MULTIPLY', multiplier: 1 } },
      },
      {
        name: 'Middle',
        points: { from: 250, to: 499 },
        earning_rules: { [rule?.id ?? '']: { type: 'MULTIPLY', multiplier: 2 } },
      },
      {
        name: 'Top',
        points: { from: 500, to: 1000 },
        earning_rules: { [rule?.id ?? '']: { type: 'CUSTOM', points: 200 } },
      },
    ])
    expect(tiers.map((t) => [t.name, t.points.from, t.points.to])).toEqual([
      ['Bottom', 1, 249],
      ['Middle', 250, 499],
      ['Top', 500, 1000],
    ])
    expect(tiers[0]).toMatchObject({
      object: 'loyalty_tier',
      campaign_id: club.id,
      config: { points: { from: 1, to: 249 } },
    })
    // `expiration` is a member's: a program's tier omits it (the hosted response does not send null).
    for (const tier of tiers) expect(tier).not.toHaveProperty('expiration')
    for (const tier of (await engine.loyalties.listTiers(club.id)).data) expect(tier).not.toHaveProperty('expiration')
    expect((await engine.loyalties.listTiers(club.id, { limit: 2 })).data).toHaveLength(2)
    const before = await snapshot(store)
    const bad: [unknown, number][] = [
      [[{ name: 'Overlap', points: { from: 900, to: 1200 } }], 400],
      [[{ points: { from: 2000 } }], 400],
      [[{ name: 'No points' }], 400],
      [[{ name: 'Bad', points: { from: 10, to: 5 } }], 400],
      [[{ name: 'Bad', points: { from: '1' } }], 400],
      [[{ name: 'X', points: { from: 2000 }, earning_rules: { ern_x: { type: 'MULTIPLY', multiplier: 2 } } }], 404],
    ]
    for (const [body, code] of bad)
      await expect(engine.raw.loyalties.createTiers(club.id, body)).rejects.toMatchObject({ code })
    await expect(engine.loyalties.createTiers('camp_x', [{ name: 'A', points: { from: 1 } }])).rejects.toMatchObject({
      code: 404,
    })
    expect(await snapshot(store)).toBe(before)
  })

  it('BALANCE tiers follow the balance; mappings change earning; tier events fire tier rules once', async () => {
    const { engine } = testEngine()
    const club = await program(engine)
    const [rule] = await engine.loyalties.createEarningRule(club.id, [
      {
        event: 'order.paid',
        loyalty: {
          type: 'PROPORTIONAL',
          calculation_type: 'ORDER_AMOUNT',
          order: { amount: { every: 100, points: 1 } },
        },
      },
    ])
    const ruleId = rule?.id ?? ''
    const [, silver] = await engine.loyalties.createTiers(club.id, [
      { name: 'Bronze', points: { from: 1, to: 99 } },
      {
        name: 'Silver',
        points: { from: 100, to: 999 },
        earning_rules: { [ruleId]: { type: 'MULTIPLY', multiplier: 2 } },
      },
    ])
    await engine.loyalties.createEarningRule(club.id, [
      {
        event: 'customer.loyalty.tier.joined',
        loyalty_tier: { id: silver?.id ?? '' },
        loyalty: { type: 'FIXED', points: 10 },
      },
      {
        event: 'customer.loyalty.tier.upgraded',
        loyalty_tier: { id: '__ANY__' },
        loyalty: { type: 'FIXED', points: 1 },
      },
    ])
    const card = await member(engine, club.id)
    await engine.raw.orders.create(paid('o1', 5000)) // 50 points → Bronze (joined)
    expect((await engine.loyalties.getMemberTier(club.id, card.code))?.name).toBe('Bronze')
    // 60 → 110 → Silver: upgraded +1 → 111; "joined Silver" does not fire, alice joined the structure in Bronze.
    await engine.raw.orders.create(paid('o2', 6000))
    const tier = await engine.loyalties.getMemberTier(null, card.id)
    expect(tier).toMatchObject({ name: 'Silver', expiration: { tier_id: silver?.id, expiration_date: null } })
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(111)
    await engine.raw.orders.create(paid('o3', 1000)) // 10 ×2 in Silver = 20 → 131
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(131)
    const types = (await engine.customers.listActivity('alice', { limit: 100, category: 'EFFECT' })).data.map(
      (a) => a.type,
    )
    expect(types.filter((t) => t === 'customer.loyalty.tier.joined')).toHaveLength(1)
    expect(types.filter((t) => t === 'customer.loyalty.tier.upgraded')).toHaveLength(1)
    expect(types.filter((t) => t === 'customer.loyalty.tier.left')).toHaveLength(0)
  })

  it('POINTS_IN_PERIOD monthly, reached 10 March, END_OF_PERIOD with P7D → held until the end of 7 April', async () => {
    const { engine, clock } = testEngine()
    clock.set('2026-03-10T12:00:00.000Z')
    const club = await program(engine, {
      loyalty_tiers_expiration: {
        qualification_type: 'POINTS_IN_PERIOD',
        qualification_period: 'MONTH',
        start_date: { type: 'IMMEDIATE' },
        expiration_date: { type: 'END_OF_PERIOD', extend: 'P7D' },
      },
    })
    await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 100 } },
    ])
    await engine.loyalties.createTiers(club.id, [{ name: 'Gold', points: { from: 100 } }])
    const card = await member(engine, club.id)
    await engine.raw.orders.create(paid('o1', 100))
    expect(await engine.loyalties.getMemberTier(null, card.id)).toMatchObject({
      name: 'Gold',
      expiration: { start_date: '2026-03-10', expiration_date: '2026-04-07' },
    })
  })

  it('a member joins in the tier their card points reach: joined at sign-up (firing tier rules), upgraded later', async () => {
    const { engine, clock } = testEngine()
    const club = await program(engine, {
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 50 }, code_config: { pattern: 'CLUB-####' } },
    })
    const [bronze] = await engine.loyalties.createTiers(club.id, [
      { name: 'Bronze', points: { from: 0, to: 99 } },
      { name: 'Silver', points: { from: 100, to: 999 } },
    ])
    await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 245 } },
      {
        event: 'customer.loyalty.tier.joined',
        loyalty_tier: { id: bronze?.id ?? '' },
        loyalty: { type: 'FIXED', points: 5 },
      },
    ])
    clock.set('2026-01-15T11:00:00.000Z')
    const card = await member(engine, club.id)
    // 50 welcome points → Bronze at once; its tier rule adds 5 in the same transaction.
    expect(card.loyalty_card?.balance).toBe(55)
    expect((await engine.loyalties.getMemberTier(club.id, card.code))?.name).toBe('Bronze')
    clock.set('2026-01-15T12:00:00.000Z')
    await engine.raw.orders.create(paid('o1', 1000)) // +245 → 300 → Silver
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(300)
    expect((await engine.loyalties.getMemberTier(club.id, card.code))?.name).toBe('Silver')
    const tierEvents = (await engine.customers.listActivity('alice', { limit: 100 })).data
      .filter((a) => a.type.startsWith('customer.loyalty.tier.'))
      .map((a) => `${a.created_at.slice(11, 16)} ${a.type} ${(a.data.tier as { name: string }).name}`)
      .sort()
    expect(tierEvents).toEqual([
      '11:00 customer.loyalty.tier.joined Bronze',
      '12:00 customer.loyalty.tier.upgraded Silver',
    ])
  })

  it('auto_join places the new member by their card points, then credits what they earned', async () => {
    const { engine } = testEngine()
    const club = await program(engine, {
      auto_join: true,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 50 }, code_config: { pattern: 'CLUB-####' } },
    })
    await engine.loyalties.createTiers(club.id, [
      { name: 'Bronze', points: { from: 0, to: 99 } },
      { name: 'Silver', points: { from: 100, to: 999 } },
    ])
    await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 250 } },
    ])
    await engine.customers.create({ source_id: 'alice' })
    await engine.raw.orders.create(paid('o1', 1000))
    const events = (await engine.customers.listActivity('alice', { limit: 100 })).data
      .filter((a) => a.type.startsWith('customer.loyalty.tier.'))
      .map((a) => `${a.type} ${(a.data.tier as { name: string }).name}`)
      .sort()
    // Joined Bronze on the 50 card points, then the 250 earned moved them up (upgraded, not joined).
    expect(events).toEqual(['customer.loyalty.tier.joined Bronze', 'customer.loyalty.tier.upgraded Silver'])
  })
})
