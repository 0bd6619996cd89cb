import { describe, expect, it } from 'vitest'
import { member, program } from '../operations/loyalty-fixtures'
import { snapshot, testEngine } from '../support/engine'

/**
 * Two identical engines: one runs the scheduled work when it falls due, the other hours late. They
 * must end with the same store (ledger, activity dates, expiry dates, tiers), byte for byte.
 */
async function scenario(runs: readonly string[]) {
  const t = testEngine()
  t.clock.set('2026-01-15T10:00:00.000Z')
  const club = await program(t.engine, {
    voucher: {
      type: 'LOYALTY_CARD',
      loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1 } },
    },
  })
  await t.engine.loyalties.createTiers(club.id, [{ name: 'Silver', points: { from: 100 } }])
  await t.engine.loyalties.createEarningRule(club.id, [
    {
      event: 'order.paid',
      loyalty: { type: 'FIXED', points: 120 },
      pending_points: { period_type: 'DAY', period_value: 7 },
    },
  ])
  const card = await member(t.engine, club.id)
  await t.engine.orders.create({ source_id: 'o1', status: 'PAID', customer: { source_id: 'alice' }, amount: 1000 })
  for (const at of runs) {
    t.clock.set(at)
    await t.engine.asyncActions.runPending()
  }
  return { ...t, card }
}

describe('scheduled work is dated by when it was due, not when it ran', () => {
  // Pending points activate on 22 Jan 00:00; activated then, they expire at the end of 22 Feb.
  const onTime = ['2026-01-22T00:00:00.000Z', '2026-02-23T00:00:00.000Z']
  const late = ['2026-01-22T07:30:00.000Z', '2026-02-23T09:15:00.000Z']

  it('activation and expiry run 7–9 hours late leave the same store as on time', async () => {
    const a = await scenario(onTime)
    const b = await scenario(late)
    expect(await snapshot(b.store)).toBe(await snapshot(a.store))
  })

  it('the late run dates the activity at the due instants', async () => {
    const { engine } = await scenario(late)
    const feed = (await engine.customers.listActivity('alice', { limit: 100 })).data
    const at = (type: string) => feed.filter((x) => x.type === type).map((x) => x.created_at)
    expect(at('customer.voucher.loyalty_card.points_added')).toEqual(['2026-01-22T00:00:00.000Z'])
    expect(at('customer.voucher.loyalty_card.points_expired')).toEqual(['2026-02-23T00:00:00.000Z'])
  })

  it('an activation run a day late still counts the expiry from the due day (22 Feb, not 23 Feb)', async () => {
    const { engine, card } = await scenario(['2026-01-23T05:00:00.000Z'])
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card).toMatchObject({
      balance: 120,
      next_expiration_date: '2026-02-22',
    })
  })
})

describe('a tier lapses at the end of its expiration day, dated then however late the runner is', () => {
  async function gold(runAt: string) {
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

  it('not before: at 31 March 23:59:59.999 the member is still Gold', async () => {
    const { engine, card } = await gold('2026-03-31T23:59:59.999Z')
    expect((await engine.loyalties.getMemberTier(null, card.id))?.name).toBe('Gold')
  })
})
