import { describe, expect, it } from 'vitest'
import { member, program } from '../operations/loyalty/fixtures'
import { snapshot, testEngine } from '../support/engine'

describe('a tier lapses at the end of its expiration day, dated then however late the runner is', () => {
  /** Gold earned on 10 March (held through 31 March); optionally another order later; the runner at `runAt`. */
  async function gold(runAt: string, secondOrderAt?: string) {
    const t = testEngine()
    t.clock.set('2026-03-10T12:00:00.000Z')
    const club = await program(t.engine, {
      loyalty_tiers_expiration: {
        qualification_type: 'POINTS_IN_PERIOD',
        qualification_period: 'MONTH',
        expiration_date: { type: 'END_OF_PERIOD' },
      },
    })
    await t.engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 600 } },
    ])
    await t.engine.loyalties.createTiers(club.id, [{ name: 'Gold', points: { from: 500 } }])
    const card = await member(t.engine, club.id)
    await t.engine.orders.create({ source_id: 'o1', status: 'PAID', customer: { source_id: 'alice' }, amount: 1000 })
    if (secondOrderAt !== undefined) {
      t.clock.set(secondOrderAt)
      await t.engine.orders.create({ source_id: 'o2', status: 'PAID', customer: { source_id: 'alice' }, amount: 1000 })
    }
    t.clock.set(runAt)
    await t.engine.asyncActions.runPending()
    return { ...t, card }
  }

  it('Gold held through 31 March leaves at 1 April 00:00, run on time or nine hours late', async () => {
    const onTime = await gold('2026-04-01T00:00:00.000Z')
    const late = await gold('2026-04-01T09:00:00.000Z')
    expect(await snapshot(late.store)).toBe(await snapshot(onTime.store))
    expect(await late.engine.loyalties.getMemberTier(null, late.card.id)).toBeNull()
    const left = await late.engine.customers.listActivity('alice', { type: 'customer.loyalty.tier.left' })
    expect(left.data.map((a) => a.created_at)).toEqual(['2026-04-01T00:00:00.000Z'])
  })

  it('a lapse a later order already handled (5 April, re-qualifying) adds no event when the runner comes', async () => {
    const { engine } = await gold('2026-04-10T12:00:00.000Z', '2026-04-05T12:00:00.000Z')
    const feed = (await engine.customers.listActivity('alice', { limit: 100 })).data
    const tierEvents = feed
      .filter((a) => a.type.startsWith('customer.loyalty.tier.'))
      .map((a) => `${a.created_at} ${a.type}`)
    expect(tierEvents.sort()).toEqual([
      '2026-03-10T12:00:00.000Z customer.loyalty.tier.joined',
      '2026-04-05T12:00:00.000Z customer.loyalty.tier.prolonged',
    ])
  })

  it('not before: at 31 March 23:59:59.999 the member is still Gold', async () => {
    const { engine, card } = await gold('2026-03-31T23:59:59.999Z')
    expect((await engine.loyalties.getMemberTier(null, card.id))?.name).toBe('Gold')
  })
})
