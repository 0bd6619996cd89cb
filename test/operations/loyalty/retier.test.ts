import { describe, expect, it } from 'vitest'
import { rejection, snapshot, testEngine } from '../../support/engine'
import { member, program } from './fixtures'

describe('createTiers re-tiers the members (docs/concepts.md#tiers)', () => {
  it('a member holding 300 points joins Silver when Bronze/Silver are created; tier events and tier rules fire', async () => {
    const { engine, store } = testEngine()
    const club = await program(engine)
    await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 300 } },
      {
        event: 'customer.loyalty.tier.joined',
        loyalty_tier: { id: '__ANY__' },
        loyalty: { type: 'FIXED', points: 10 },
      },
    ])
    const alice = await member(engine, club.id, 'alice')
    const bob = await member(engine, club.id, 'bob')
    await engine.orders.create({ source_id: 'o1', status: 'PAID', customer: { source_id: 'alice' }, amount: 1000 })
    expect((await engine.loyalties.getMember(null, alice.id)).loyalty_card?.balance).toBe(300)
    expect(await engine.loyalties.getMemberTier(null, alice.id)).toBeNull()

    const before = await snapshot(store)
    const clash = await rejection(
      engine.loyalties.createTiers(club.id, [
        { name: 'Bronze', points: { from: 1, to: 249 } },
        { name: 'Other', points: { from: 200, to: 300 } },
      ]),
    )
    expect({ code: clash.code, path: clash.path }).toEqual({ code: 400, path: '[1].points' })
    expect(await snapshot(store)).toBe(before)

    const [, silver] = await engine.loyalties.createTiers(club.id, [
      { name: 'Bronze', points: { from: 1, to: 249 } },
      { name: 'Silver', points: { from: 250, to: 999 } },
    ])
    expect((await engine.loyalties.getMemberTier(null, alice.id))?.name).toBe('Silver')
    // The joined event fired the tier rule: 300 + 10.
    expect((await engine.loyalties.getMember(null, alice.id)).loyalty_card?.balance).toBe(310)
    const joined = await engine.customers.listActivity('alice', { type: 'customer.loyalty.tier.joined' })
    expect(joined.data.map((a) => a.data)).toEqual([
      expect.objectContaining({ tier: { id: silver?.id, name: 'Silver' } }),
    ])
    // Bob holds no points: no tier, no event.
    expect(await engine.loyalties.getMemberTier(null, bob.id)).toBeNull()
    expect((await engine.customers.listActivity('bob', { type: 'customer.loyalty.tier.joined' })).data).toEqual([])

    // A tier above everyone's points changes nobody.
    await engine.loyalties.createTiers(club.id, [{ name: 'Gold', points: { from: 1000 } }])
    expect((await engine.loyalties.getMemberTier(null, alice.id))?.name).toBe('Silver')
    expect((await engine.customers.listActivity('alice', { type: 'customer.loyalty.tier.joined' })).data).toHaveLength(
      1,
    )
  })
})
