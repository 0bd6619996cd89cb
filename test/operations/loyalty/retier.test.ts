import { describe, expect, it, vi } from 'vitest'
import { TIERS_REFRESH_PAGE } from '../../../src/operations/loyalty/tier-refresh'
import { rejection, snapshot, testEngine } from '../../support/engine'
import { member, program } from './fixtures'

describe('createTiers re-tiers the members by an async action (docs/behaviour.md#creating-tiers)', () => {
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
    // The tiers are there at once; the members move when the refresh runs.
    expect(await engine.loyalties.getMemberTier(null, alice.id)).toBeNull()
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
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
    await engine.asyncActions.runPending()
    expect((await engine.loyalties.getMemberTier(null, alice.id))?.name).toBe('Silver')
    expect((await engine.customers.listActivity('alice', { type: 'customer.loyalty.tier.joined' })).data).toHaveLength(
      1,
    )
  })

  it('a program of 150 members is re-tiered a page of cards per commit, each member once', async () => {
    const { engine, store } = testEngine()
    const club = await program(engine)
    const members = []
    for (let i = 0; i < 150; i++) members.push(await member(engine, club.id, `m${i}`))
    // 150 cards, each held (the two the program generated went to the first members).
    const [base] = await engine.loyalties.createTiers(club.id, [{ name: 'Base', points: { from: 0, to: 99 } }])
    const list = vi.spyOn(store.vouchers, 'list')
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
    const pages = await Promise.all(
      list.mock.results.map((r) => (r.value as Promise<{ data: unknown[] }>).then((p) => p.data.length)),
    )
    expect(pages).toEqual([TIERS_REFRESH_PAGE, 50])
    const refresh = (await store.async_actions.list()).data.find(
      (a) => a.value.type === 'CAMPAIGN.LOYALTY_TIERS_REFRESH',
    )
    expect(refresh?.value).toMatchObject({ status: 'DONE', result: { campaign_id: club.id, members: 150 } })
    const tiers = await Promise.all(members.map((m) => engine.loyalties.getMemberTier(null, m.id)))
    expect(new Set(tiers.map((t) => t?.id))).toEqual(new Set([base?.id]))
    const joined = await store.activities.list({ where: { type: 'customer.loyalty.tier.joined' } })
    expect(joined.data).toHaveLength(150)
  })

  it('tiers created before any card queue no refresh', async () => {
    const { engine, store } = testEngine()
    const club = await engine.loyalties.create({
      name: 'Empty',
      type: 'AUTO_UPDATE',
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'E-####' } },
    })
    await engine.loyalties.createTiers(club.id, [{ name: 'Base', points: { from: 0, to: 99 } }])
    const types = (await store.async_actions.list()).data.map((a) => a.value.type)
    expect(types).not.toContain('CAMPAIGN.LOYALTY_TIERS_REFRESH')
  })
})
