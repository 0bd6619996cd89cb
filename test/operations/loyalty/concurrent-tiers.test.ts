import { describe, expect, it } from 'vitest'
import { sameTierBounds } from '../../../src/rules/tiers'
import { testEngine } from '../../support/engine'
import { outcomeOf, tally } from '../../support/hot-rows'
import { member, program } from './fixtures'

/*
 * A member's BALANCE tier under their own concurrent paid orders
 * (docs/storage.md#loyalty-cards-and-their-buckets): each order decides the tier on the balance it
 * read, and guards the balance it leaves within that tier's range, so the member ends in the tier
 * their final balance qualifies for, however the orders interleave, each in about one commit
 * (docs/storage.md#a-members-tier).
 */

describe('sameTierBounds', () => {
  const tiers = [
    { id: 'bronze', points: { from: 1, to: 99 } },
    { id: 'silver', points: { from: 100, to: 199 } },
    { id: 'gold', points: { from: 200 } },
  ]
  it('gives the range over which the same tier qualifies', () => {
    expect(sameTierBounds(tiers, 0)).toEqual({ max: 0 })
    expect(sameTierBounds(tiers, 95)).toEqual({ min: 1, max: 99 })
    expect(sameTierBounds(tiers, 100)).toEqual({ min: 100, max: 199 })
    expect(sameTierBounds(tiers, 5000)).toEqual({ min: 200 })
    // A gap between ranges is a range of its own (no tier).
    expect(
      sameTierBounds(
        [
          { id: 'a', points: { from: 10, to: 19 } },
          { id: 'b', points: { from: 30 } },
        ],
        25,
      ),
    ).toEqual({
      min: 20,
      max: 29,
    })
  })
})

const commitsOf = (store: unknown) => (store as { stats?: { commits: number } }).stats?.commits ?? 0

describe("a member's tier under their concurrent paid orders", () => {
  for (const n of [2, 5, 12]) {
    it(`${n} concurrent orders of 10 points each from 80 points: all earn, the tier is the final balance's`, async () => {
      const { engine, store } = testEngine()
      const club = await program(engine)
      await engine.loyalties.createEarningRule(club.id, [
        { event: 'order.paid', loyalty: { type: 'FIXED', points: 10 } },
      ])
      await engine.loyalties.createTiers(club.id, [
        { name: 'Bronze', points: { from: 1, to: 99 } },
        { name: 'Silver', points: { from: 100, to: 199 } },
        { name: 'Gold', points: { from: 200 } },
      ])
      const card = await member(engine, club.id)
      for (let i = 0; i < 8; i++)
        await engine.orders.create({ customer: { source_id: 'alice' }, status: 'PAID', amount: 1000 })
      await engine.loyalties.createMember(club.id, { customer: { source_id: 'alice' } })
      expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(80)
      const commits = commitsOf(store)
      const outcomes = await Promise.all(
        Array.from({ length: n }, () =>
          outcomeOf(() => engine.orders.create({ customer: { source_id: 'alice' }, status: 'PAID', amount: 1000 })),
        ),
      )
      expect(tally(outcomes)).toEqual({ ok: n })
      // One commit per request: another order's move or an edge crossed meanwhile is answered in the
      // commit (docs/storage.md#a-members-tier).
      if ('stats' in store) expect(commitsOf(store) - commits).toBeLessThanOrEqual(Math.ceil(1.2 * n))
      const balance = 80 + 10 * n
      expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(balance)
      const expected = balance >= 200 ? 'Gold' : balance >= 100 ? 'Silver' : 'Bronze'
      expect((await engine.loyalties.getMemberTier(null, card.id))?.name).toBe(expected)
    })
  }
})

describe("a program's tier refresh beside its members' earning", () => {
  it('30 members earn while the refresh after createTiers runs: every order earns, every member ends in the tier of their points', async () => {
    const { engine, store } = testEngine()
    const club = await program(engine)
    await engine.loyalties.createEarningRule(club.id, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 50 } }])
    const ids = Array.from({ length: 30 }, (_, i) => `m${i}`)
    const paid = (sourceId: string) =>
      engine.orders.create({ customer: { source_id: sourceId }, status: 'PAID', amount: 1000 })
    const cards = []
    for (const id of ids) {
      cards.push(await member(engine, club.id, id))
      await paid(id)
    }
    await engine.loyalties.createTiers(club.id, [
      { name: 'Bronze', points: { from: 1, to: 99 } },
      { name: 'Silver', points: { from: 100 } },
    ])
    // The refresh (Bronze for everyone at 50 points) and a second order each (100 points: Silver) at once.
    const [run, ...orders] = await Promise.all([
      engine.asyncActions.runPending(),
      ...ids.map((id) => outcomeOf(() => paid(id))),
    ])
    expect(tally(orders)).toEqual({ ok: 30 })
    // A page that met an order's commit ran again, or went back to the queue for the next run.
    expect(run?.failed).toBe(0)
    await engine.asyncActions.runPending()
    const refresh = (await store.async_actions.list()).data.find(
      (a) => a.value.type === 'CAMPAIGN.LOYALTY_TIERS_REFRESH',
    )
    expect(refresh?.value.status).toBe('DONE')
    for (const card of cards) {
      expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(100)
      expect((await engine.loyalties.getMemberTier(null, card.id))?.name).toBe('Silver')
    }
  })
})
