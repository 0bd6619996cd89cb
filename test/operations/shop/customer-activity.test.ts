import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'
import { member, program } from '../loyalty/fixtures'

describe('customers.listActivity', () => {
  it('filters by type, campaign, category and dates, pages with a cursor, and shapes items as the service interface', async () => {
    const { engine, clock } = testEngine()
    const club = await program(engine)
    await engine.loyalties.createEarningRule(club.id, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 5 } }])
    await member(engine, club.id) // 10:00 customer.created + publication
    clock.set('2026-01-16T10:00:00.000Z')
    await engine.orders.create({ source_id: 'o1', status: 'PAID', customer: { source_id: 'alice' }, amount: 100 })
    const all = await engine.customers.listActivity('alice', { limit: 100, order: 'created_at' })
    expect(all.data.map((a) => a.type)).toEqual(
      expect.arrayContaining([
        'customer.created',
        'customer.publication.succeeded',
        'customer.order.created',
        'customer.order.paid',
      ]),
    )
    const item = all.data[0]
    expect(Object.keys(item ?? {}).sort()).toEqual(['created_at', 'data', 'group_id', 'id', 'type'])
    expect(item?.data.event_source).toEqual({ channel: 'API' })
    const loyalty = await engine.customers.listActivity('alice', {
      campaign_id: club.id,
      campaign_type: 'LOYALTY_PROGRAM',
      limit: 100,
    })
    expect(loyalty.data.every((a) => a.type.includes('publication') || a.type.includes('loyalty'))).toBe(true)
    const effects = await engine.customers.listActivity('alice', { category: 'EFFECT', limit: 100 })
    expect(effects.data.map((a) => a.type).sort()).toEqual([
      'customer.rewarded.loyalty_points',
      'customer.voucher.loyalty_card.points_added',
    ])
    const day1 = await engine.customers.listActivity('alice', {
      start_date: '2026-01-15T10:00:00.000Z',
      end_date: '2026-01-15T10:00:00.000Z',
      limit: 100,
    })
    expect(day1.data.map((a) => a.type).sort()).toEqual(['customer.created', 'customer.publication.succeeded'])
    const first = await engine.customers.listActivity('alice', { limit: 2 })
    expect(first).toMatchObject({ has_more: true })
    const rest = await engine.customers.listActivity('alice', {
      limit: 100,
      starting_after_id: first.more_starting_after ?? '',
    })
    expect(first.data.length + rest.data.length).toBe(all.data.length)
    expect(rest.has_more).toBe(false)
    expect(rest.more_starting_after).toBeNull()
  })

  it('rejects bad queries and unknown customers', async () => {
    const { engine } = testEngine()
    await engine.customers.create({ source_id: 'alice' })
    for (const q of [
      { limit: 0 },
      { limit: 101 },
      { order: 'type' },
      { category: 'OTHER' },
      { campaign_type: 'X' },
      { start_date: 'yesterday' },
    ]) {
      await expect(engine.raw.customers.listActivity('alice', q)).rejects.toMatchObject({ code: 400 })
    }
    await expect(engine.customers.listActivity('nobody')).rejects.toMatchObject({ code: 404 })
  })
})
