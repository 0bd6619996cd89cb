import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'
import { member, program } from './loyalty/fixtures'

/** A host passes a parsed query string: numeric strings are numbers for every list's limit and page. */
describe('limit/page accept numeric strings', () => {
  async function setup() {
    const { engine } = testEngine()
    const club = await program(engine)
    await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 1 } },
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 2 } },
    ])
    await engine.loyalties.createTiers(club.id, [
      { name: 'Bronze', points: { from: 0, to: 99 } },
      { name: 'Silver', points: { from: 100, to: 199 } },
    ])
    await member(engine, club.id)
    return { engine, club }
  }

  it('loyalties.list', async () => {
    const { engine } = await setup()
    await program(engine, { name: 'Other' })
    const page = await engine.loyalties.list({ limit: '1', page: '2', order: 'name' })
    expect(page.campaigns.map((c) => c.name)).toEqual(['Other'])
  })

  it('loyalties.listEarningRules', async () => {
    const { engine, club } = await setup()
    const pages = [
      await engine.loyalties.listEarningRules(club.id, { limit: '1', page: '1' }),
      await engine.loyalties.listEarningRules(club.id, { limit: '1', page: '2' }),
    ]
    const points = pages.flatMap((p) => p.data.map((r) => (r.loyalty.type === 'FIXED' ? r.loyalty.points : 0)))
    expect(points.sort()).toEqual([1, 2])
  })

  it('loyalties.listTiers', async () => {
    const { engine, club } = await setup()
    const pages = [
      await engine.loyalties.listTiers(club.id, { limit: '1', page: '1' }),
      await engine.loyalties.listTiers(club.id, { limit: '1', page: '2' }),
    ]
    expect(pages.flatMap((p) => p.data.map((t) => t.name)).sort()).toEqual(['Bronze', 'Silver'])
  })

  it('customers.listActivity', async () => {
    const { engine } = await setup()
    const page = await engine.customers.listActivity('alice', { limit: '1' })
    expect(page.data).toHaveLength(1)
    await expect(engine.customers.listActivity('alice', { limit: '1.5' })).rejects.toMatchObject({ code: 400 })
  })
})
