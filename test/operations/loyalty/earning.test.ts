import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import { snapshot, testEngine } from '../../support/engine'
import { member, program } from './fixtures'

const PAID = (sourceId: string, amount: number, customer = 'alice') => ({
  source_id: sourceId,
  status: 'PAID',
  customer: { source_id: customer },
  items: [{ product_id: 'prod_1', quantity: 1, price: amount }],
})

describe('earning rules', () => {
  it('creates rules (points as a string stored as an integer) and lists them with limit/page/order', async () => {
    const { engine, store } = testEngine()
    const club = await program(engine)
    const rules = await engine.loyalties.createEarningRule(club.name, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: '5' }, source: { banner: 'Five' } },
      {
        event: 'order.paid',
        loyalty: {
          type: 'PROPORTIONAL',
          calculation_type: 'ORDER_AMOUNT',
          order: { amount: { every: 500, points: 10 } },
        },
        validity_timeframe: { duration: 'PT1H', interval: 'P1D' },
        start_date: '2026-01-01T00:00:00.000Z',
        validity_day_of_week: [0, 1, 2, 3, 4, 5],
      },
    ])
    expect(rules[0]).toMatchObject({
      object: 'earning_rule',
      event: 'order.paid',
      loyalty: { type: 'FIXED', points: 5 },
      source: { banner: 'Five', object_id: club.id, object_type: 'campaign' },
      active: true,
    })
    const page = await engine.loyalties.listEarningRules(club.id, { limit: 1, page: 2, order: '-created_at' })
    expect(page.total).toBe(2)
    expect(page.data).toHaveLength(1)
    const before = await snapshot(store)
    const bad: [unknown, number][] = [
      [[{ event: 'order.paid', loyalty: { type: 'FIXED' } }], 400],
      [[{ event: 'order.paid', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT' } }], 400],
      [[{ event: 'customer.segment.entered', loyalty: { type: 'FIXED', points: 1 } }], 400],
      [[{ event: 'customer.loyalty.tier.joined', loyalty: { type: 'FIXED', points: 1 } }], 400],
      [[{ event: 'visited', loyalty: { type: 'FIXED', points: 1 } }], 400],
      [[{ event: 'visited', custom_event: { schema_id: 'ms_nope' }, loyalty: { type: 'FIXED', points: 1 } }], 404],
      [[{ event: 'order.paid', validation_rule_id: 'val_nope', loyalty: { type: 'FIXED', points: 1 } }], 404],
      [[], 400],
      ['nope', 400],
    ]
    for (const [body, code] of bad)
      await expect(engine.raw.loyalties.createEarningRule(club.id, body)).rejects.toMatchObject({ code })
    await expect(engine.loyalties.createEarningRule('camp_nope', [])).rejects.toMatchObject({ code: 400 })
    await expect(engine.loyalties.listEarningRules(club.id, { limit: 101 })).rejects.toMatchObject({ code: 400 })
    await expect(engine.loyalties.listEarningRules(club.id, { order: 'name' })).rejects.toMatchObject({ code: 400 })
    expect(await snapshot(store)).toBe(before)
  })

  it('an order becoming PAID earns floor(total/every)×points: 45000 at every 500 → 900, with both events', async () => {
    const { engine } = testEngine()
    const club = await program(engine)
    await engine.loyalties.createEarningRule(club.id, [
      {
        event: 'order.paid',
        loyalty: {
          type: 'PROPORTIONAL',
          calculation_type: 'ORDER_TOTAL_AMOUNT',
          order: { total_amount: { every: 500, points: 10 } },
        },
      },
    ])
    const card = await member(engine, club.id)
    const order = await engine.orders.create({ ...PAID('o1', 45000), status: 'CREATED' })
    expect((await engine.loyalties.getMember(club.id, card.code)).loyalty_card?.points).toBe(0)
    await engine.orders.update(order.id, { status: 'PAID' })
    const after = await engine.loyalties.getMember(club.id, card.code)
    expect(after.loyalty_card).toMatchObject({ points: 900, balance: 900 })
    // Updating an already PAID order does not earn again.
    await engine.orders.update('o1', { status: 'PAID', metadata: { x: 1 } })
    expect((await engine.loyalties.getMember(club.id, card.code)).loyalty_card?.points).toBe(900)
    const types = (await engine.customers.listActivity('alice', { limit: 100 })).data.map((a) => a.type)
    expect(types).toContain('customer.voucher.loyalty_card.points_added')
    expect(types).toContain('customer.rewarded.loyalty_points')
    expect(types).toContain('customer.order.paid')
  })

  it('auto_join enrols a customer who fulfils a rule; inactive and out-of-window rules give nothing', async () => {
    const { engine } = testEngine()
    const club = await program(engine, { auto_join: true })
    await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 7 } },
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 100 }, active: false },
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 1000 }, start_date: '2027-01-01T00:00:00.000Z' },
    ])
    await engine.raw.orders.create(PAID('o1', 1000, 'bob'))
    const bob = await engine.customers.get('bob')
    const cards = await engineContext(engine).store.vouchers.list({
      where: { campaign_id: club.id, holder_id: bob.id },
    })
    expect(cards.data.map((s) => s.value.loyalty_card?.points)).toEqual([7])
  })

  it('segment entry and custom events fire their rules; the event name must be a defined schema', async () => {
    const { engine, store } = testEngine()
    const club = await program(engine)
    const schema = await engine.metadataSchemas.create({
      related_object: 'visited_store',
      properties: { visits: { type: 'number' } },
    })
    await engine.loyalties.createEarningRule(club.id, [
      { event: 'customer.segment.entered', segment: { id: 'seg_vip' }, loyalty: { type: 'FIXED', points: 50 } },
      {
        event: 'visited_store',
        custom_event: { schema_id: schema.id },
        loyalty: {
          type: 'PROPORTIONAL',
          calculation_type: 'CUSTOM_EVENT_METADATA',
          custom_event: { metadata: { every: 1, points: 3, property: 'visits' } },
        },
      },
    ])
    const card = await member(engine, club.id)
    await engine.customers.enterSegment('alice', 'seg_vip')
    await engine.customers.enterSegment('alice', 'seg_vip')
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.points).toBe(50)
    const event = await engine.events.create('visited_store', {
      customer: { source_id: 'alice' },
      metadata: { visits: 4 },
    })
    expect(event).toMatchObject({
      object: 'event',
      type: 'visited_store',
      referral: null,
      loyalty: null,
      metadata: { visits: 4 },
    })
    expect(event.customer.source_id).toBe('alice')
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.points).toBe(62)
    // The service interface body as is: the name is its `event` field.
    const spec = await engine.events.create({
      event: 'visited_store',
      customer: { source_id: 'alice' },
      metadata: { visits: 1 },
    })
    expect(spec).toMatchObject({ type: 'visited_store', metadata: { visits: 1 } })
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.points).toBe(65)
    await expect(engine.raw.events.create({ customer: { source_id: 'alice' } })).rejects.toMatchObject({
      code: 400,
      path: 'event',
    })
    await engine.customers.leaveSegment('alice', 'seg_vip')
    expect((await engine.customers.get('alice')).segments).toEqual([])
    const before = await snapshot(store)
    await expect(engine.events.create('unknown_event', { customer: { source_id: 'alice' } })).rejects.toMatchObject({
      code: 404,
      path: 'event',
    })
    await expect(engine.events.create('', { customer: { source_id: 'alice' } })).rejects.toMatchObject({
      code: 400,
      path: 'event',
    })
    await expect(engine.events.create('x'.repeat(301), { customer: { source_id: 'alice' } })).rejects.toMatchObject({
      code: 400,
    })
    await expect(engine.raw.events.create('visited_store', {})).rejects.toMatchObject({ code: 400, path: 'customer' })
    await expect(
      engine.events.create('visited_store', { customer: { source_id: 'alice' }, metadata: { visits: 'many' } }),
    ).rejects.toMatchObject({ code: 400 })
    await expect(engine.customers.enterSegment('nobody', 'seg')).rejects.toMatchObject({ code: 404 })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('points expiry through the ledger', () => {
  it('1 month: earned 25 Jan usable until the end of 25 Feb; runPending at 26 Feb 00:00 expires them', async () => {
    const { engine, clock } = testEngine()
    clock.set('2026-01-25T12:00:00.000Z')
    const club = await program(engine, {
      voucher: {
        type: 'LOYALTY_CARD',
        loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1 } },
      },
    })
    await engine.loyalties.createEarningRule(club.id, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 40 } }])
    const card = await member(engine, club.id)
    await engine.raw.orders.create(PAID('o1', 100))
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card).toMatchObject({
      points: 40,
      balance: 40,
      next_expiration_date: '2026-02-25',
      next_expiration_points: 40,
    })
    clock.set('2026-02-25T23:59:59.999Z')
    await engine.asyncActions.runPending()
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(40)
    clock.set('2026-02-26T00:00:00.000Z')
    await engine.asyncActions.runPending()
    const expired = await engine.loyalties.getMember(null, card.id)
    expect(expired.loyalty_card).toMatchObject({
      points: 40,
      balance: 0,
      expired_points: 40,
      next_expiration_date: null,
    })
    const feed = await engine.customers.listActivity('alice', { type: 'customer.voucher.loyalty_card.points_expired' })
    expect(feed.data[0]?.data).toMatchObject({ points: 40, balance: 0 })
  })

  it('0 months: earned 1 Jan expires 2 Jan 00:00; 31 Jan + 1 month ends 28 Feb; END_OF_MONTH rounding ends 28 Feb; an earning rule overrides the campaign', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['2026-01-01T08:00:00.000Z', { period_type: 'MONTH', period_value: 0 }, '2026-01-01'],
      ['2026-01-31T08:00:00.000Z', { period_type: 'MONTH', period_value: 1 }, '2026-02-28'],
      [
        '2026-01-10T08:00:00.000Z',
        { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' },
        '2026-02-28',
      ],
    ]
    for (const [at, rules, last] of cases) {
      const { engine, clock } = testEngine()
      clock.set(at)
      const club = await program(engine, {
        voucher: {
          type: 'LOYALTY_CARD',
          loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 12 } },
        },
      })
      await engine.raw.loyalties.createEarningRule(club.id, [
        { event: 'order.paid', loyalty: { type: 'FIXED', points: 5 }, expiration_rules: rules },
      ])
      const card = await member(engine, club.id)
      await engine.raw.orders.create(PAID('o1', 100))
      expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.next_expiration_date).toBe(last)
    }
    const { engine, clock } = testEngine()
    clock.set('2026-01-01T08:00:00.000Z')
    const club = await program(engine, {
      voucher: {
        type: 'LOYALTY_CARD',
        loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 0 } },
      },
    })
    await engine.loyalties.createEarningRule(club.id, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 5 } }])
    const card = await member(engine, club.id)
    await engine.raw.orders.create(PAID('o1', 100))
    clock.set('2026-01-02T00:00:00.000Z')
    await engine.asyncActions.runPending()
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card).toMatchObject({
      balance: 0,
      expired_points: 5,
    })
  })
})
