import { describe, expect, it } from 'vitest'
import { rejection, snapshot, testEngine } from '../../support/engine'
import { member, program } from './fixtures'

const PAID = { source_id: 'o1', status: 'PAID', customer: { source_id: 'alice' }, amount: 1000 }

async function setup() {
  const t = testEngine()
  t.clock.set('2026-01-15T10:00:00.000Z')
  const club = await program(t.engine, {
    voucher: {
      type: 'LOYALTY_CARD',
      loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1 } },
    },
  })
  const [bronze, silver] = await t.engine.loyalties.createTiers(club.id, [
    { name: 'Bronze', points: { from: 1, to: 99 } },
    { name: 'Silver', points: { from: 100 } },
  ])
  const [rule] = await t.engine.loyalties.createEarningRule(club.id, [
    {
      event: 'order.paid',
      loyalty: { type: 'FIXED', points: 120 },
      pending_points: { period_type: 'DAY', period_value: 7 },
    },
  ])
  const card = await member(t.engine, club.id)
  return { ...t, club, card, bronze, silver, rule }
}

describe('pending points (docs/concepts.md#the-card-and-its-ledger, docs/concepts.md#earning-rules)', () => {
  it('a pending rule credits pending_points only: not spendable, not in the balance, no tier, no points events', async () => {
    const { engine, club, card, rule } = await setup()
    expect(rule?.pending_points).toEqual({ period_type: 'DAY', period_value: 7 })
    await engine.raw.orders.create(PAID)
    const held = await engine.loyalties.getMember(null, card.id)
    expect(held.loyalty_card).toMatchObject({ points: 0, balance: 0, pending_points: 120, next_expiration_date: null })
    expect(await engine.loyalties.getMemberTier(null, card.id)).toBeNull()
    const product = await engine.products.create({ name: 'Mug', source_id: 'mug' })
    const mug = await engine.rewards.create({
      name: 'Mug',
      type: 'MATERIAL',
      parameters: { product: { id: product.id } },
      stock: 5,
    })
    await engine.rewards.createAssignment(mug.id, { campaign: club.id, parameters: { loyalty: { points: 10 } } })
    expect((await rejection(engine.loyalties.redeemReward(club.id, card.id, { reward: { id: mug.id } }))).key).toBe(
      'loyalty_card_points_exceeded',
    )
    const types = (await engine.customers.listActivity('alice', { limit: 100 })).data.map((a) => a.type)
    expect(types).not.toContain('customer.voucher.loyalty_card.points_added')
  })

  it('activates at 00:00 of the 7th day after earning: balance, expiry from activation, events and tier', async () => {
    const { engine, clock, card, silver } = await setup()
    await engine.raw.orders.create(PAID)
    clock.set('2026-01-21T23:59:59.999Z')
    await engine.asyncActions.runPending()
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card).toMatchObject({
      balance: 0,
      pending_points: 120,
    })
    clock.set('2026-01-22T00:00:00.000Z')
    expect((await engine.asyncActions.runPending()).succeeded).toBe(1)
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card).toMatchObject({
      points: 120,
      balance: 120,
      pending_points: 0,
      // One month counted from the activation day (22 Jan), not from the earning day (15 Jan).
      next_expiration_date: '2026-02-22',
      next_expiration_points: 120,
    })
    expect((await engine.loyalties.getMemberTier(null, card.id))?.id).toBe(silver?.id)
    const added = await engine.customers.listActivity('alice', { type: 'customer.voucher.loyalty_card.points_added' })
    expect(added.data).toHaveLength(1)
    expect(added.data[0]?.data).toMatchObject({ points: 120, balance: 120 })
    const joined = await engine.customers.listActivity('alice', { type: 'customer.loyalty.tier.joined' })
    expect(joined.data[0]?.data).toMatchObject({ tier: { id: silver?.id, name: 'Silver' } })
    // A second run has nothing left to activate.
    expect((await engine.asyncActions.runPending()).ran).toBe(0)
    // Expiry runs from the activation: still usable on 22 Feb, gone on 23 Feb 00:00.
    clock.set('2026-02-23T00:00:00.000Z')
    await engine.asyncActions.runPending()
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card).toMatchObject({
      balance: 0,
      expired_points: 120,
    })
  })

  it('rejects period_type other than DAY, values outside 1..90, and pending points on other events', async () => {
    const { engine, store, club } = await setup()
    const schema = await engine.metadataSchemas.create({ related_object: 'signup', properties: {} })
    const before = await snapshot(store)
    const bad: [unknown, string][] = [
      [{ period_type: 'WEEK', period_value: 1 }, '[0].pending_points.period_type'],
      [{ period_type: 'DAY', period_value: 0 }, '[0].pending_points.period_value'],
      [{ period_type: 'DAY', period_value: 91 }, '[0].pending_points.period_value'],
      [{ period_type: 'DAY', period_value: 1.5 }, '[0].pending_points.period_value'],
    ]
    for (const [pending, path] of bad) {
      const error = await rejection(
        engine.raw.loyalties.createEarningRule(club.id, [
          { event: 'order.paid', loyalty: { type: 'FIXED', points: 1 }, pending_points: pending },
        ]),
      )
      expect({ code: error.code, path: error.path }).toEqual({ code: 400, path })
    }
    const other = await rejection(
      engine.loyalties.createEarningRule(club.id, [
        {
          event: 'signup',
          custom_event: { schema_id: schema.id },
          loyalty: { type: 'FIXED', points: 1 },
          pending_points: { period_type: 'DAY', period_value: 3 },
        },
      ]),
    )
    expect({ code: other.code, path: other.path }).toEqual({ code: 400, path: '[0].pending_points' })
    expect(await snapshot(store)).toBe(before)
  })
})

/**
 * Scheduled work is dated by when it was due: two identical engines, one running the due work on
 * time and one hours late, end with the same store (ledger, activity dates, expiry dates, tiers).
 */
describe('pending points activated and expired late are dated when they were due', () => {
  async function runAt(runs: readonly string[]) {
    const t = await setup()
    await t.engine.raw.orders.create(PAID)
    for (const at of runs) {
      t.clock.set(at)
      await t.engine.asyncActions.runPending()
    }
    return t
  }
  // Pending points activate on 22 Jan 00:00; activated then, they expire at the end of 22 Feb.
  const onTime = ['2026-01-22T00:00:00.000Z', '2026-02-23T00:00:00.000Z']
  const late = ['2026-01-22T07:30:00.000Z', '2026-02-23T09:15:00.000Z']

  it('activation and expiry run 7–9 hours late leave the same store as on time', async () => {
    const a = await runAt(onTime)
    const b = await runAt(late)
    expect(await snapshot(b.store)).toBe(await snapshot(a.store))
  })

  it('the late run dates the activity at the due instants', async () => {
    const { engine } = await runAt(late)
    const feed = (await engine.customers.listActivity('alice', { limit: 100 })).data
    const at = (type: string) => feed.filter((x) => x.type === type).map((x) => x.created_at)
    expect(at('customer.voucher.loyalty_card.points_added')).toEqual(['2026-01-22T00:00:00.000Z'])
    expect(at('customer.voucher.loyalty_card.points_expired')).toEqual(['2026-02-23T00:00:00.000Z'])
  })

  it('an activation run a day late still counts the expiry from the due day (22 Feb, not 23 Feb)', async () => {
    const { engine, card } = await runAt(['2026-01-23T05:00:00.000Z'])
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card).toMatchObject({
      balance: 120,
      next_expiration_date: '2026-02-22',
    })
  })
})
