import { describe, expect, it } from 'vitest'
import { engineContext } from '../../src/engine'
import type { LoyaltyTiersExpiration } from '../../src/model/loyalty'
import { mutate } from '../../src/operations/kernel/unit-of-work'
import { transitionTier } from '../../src/rules/tiers'
import { member, program } from '../operations/loyalty/fixtures'
import { testEngine } from '../support/engine'

const tiers = [
  { id: 'silver', points: { from: 100, to: 499 } },
  { id: 'gold', points: { from: 500 } },
]
const base = { tiers, customerId: 'cust_1', campaignId: 'camp_1' }

function reach(config: LoyaltyTiersExpiration, now: string, timeZone = 'UTC') {
  return transitionTier({ ...base, config, current: null, points: 600, now: new Date(now), timeZone })
}

const custom = (type: 'MONTH' | 'QUARTER' | 'HALF_YEAR' | 'YEAR'): LoyaltyTiersExpiration => ({
  qualification_type: 'BALANCE',
  expiration_date: { type: 'CUSTOM', extend: 'P1M', rounding: { type, strategy: 'END' } },
})

describe('tier dates are YYYY-MM-DD calendar dates in the engine zone', () => {
  it.each([
    ['MONTH', '2025-08-31'],
    ['QUARTER', '2025-09-30'],
    ['HALF_YEAR', '2025-12-31'],
    ['YEAR', '2025-12-31'],
  ] as const)('reached 20 July, P1M rounded to the end of the %s: held through %s', (type, last) => {
    const r = reach(custom(type), '2025-07-20T10:00:00Z')
    expect(r.standing.expiration).toMatchObject({ start_date: '2025-07-20', expiration_date: last })
  })

  it('END_OF_PERIOD in New York: reached at 02:00 UTC on 1 April (31 March locally) is held through 31 March', () => {
    const cfg: LoyaltyTiersExpiration = {
      qualification_type: 'POINTS_IN_PERIOD',
      qualification_period: 'MONTH',
      expiration_date: { type: 'END_OF_PERIOD' },
    }
    const r = reach(cfg, '2025-04-01T02:00:00Z', 'America/New_York')
    expect(r.standing.expiration).toMatchObject({ start_date: '2025-03-31', expiration_date: '2025-03-31' })
  })

  it('the tier stays valid through the whole expiration day (engine zone), and lapses at the next local midnight', () => {
    const zone = 'America/New_York'
    const cfg = custom('QUARTER')
    const gold = reach(cfg, '2025-07-20T15:00:00Z', zone).standing
    expect(gold.expiration?.expiration_date).toBe('2025-09-30')
    const at = (now: string) =>
      transitionTier({ ...base, config: cfg, current: gold, points: 150, now: new Date(now), timeZone: zone })
    // 30 September 23:59:59 in New York is 1 October 03:59:59 UTC: still Gold.
    expect(at('2025-10-01T03:59:59Z').changed).toBe(false)
    const lapsed = at('2025-10-01T04:00:00Z')
    expect(lapsed.standing.tier_id).toBe('silver')
    expect(lapsed.events[0]?.type).toBe('customer.loyalty.tier.downgraded')
  })

  it("the member's tier shows the dates as the hosted API does", async () => {
    const { engine, clock } = testEngine()
    clock.set('2026-05-14T09:30:00.000Z')
    const club = await program(engine, {
      loyalty_tiers_expiration: {
        qualification_type: 'BALANCE',
        expiration_date: { type: 'CUSTOM', extend: 'P2M', rounding: { type: 'QUARTER', strategy: 'END' } },
      },
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 600 }, code_config: { pattern: 'CLUB-####' } },
    })
    await engine.loyalties.createTiers(club.id, [{ name: 'Gold', points: { from: 500 } }])
    const card = await member(engine, club.id)
    expect((await engine.loyalties.getMemberTier(null, card.id))?.expiration).toMatchObject({
      start_date: '2026-05-14',
      expiration_date: '2026-09-30',
      created_at: '2026-05-14T09:30:00.000Z',
    })
  })
})

describe('a member tier stored with instants (before dates) reads as dates', () => {
  it('held until 8 April 00:00 Warsaw shows held through 2026-04-07', async () => {
    const { engine, clock, store } = testEngine({ timezone: 'Europe/Warsaw' })
    clock.set('2026-03-10T12:00:00.000Z')
    const club = await program(engine, {
      loyalty_tiers_expiration: {
        qualification_type: 'BALANCE',
        expiration_date: { type: 'CUSTOM', extend: 'P1M' },
      },
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 600 }, code_config: { pattern: 'CLUB-####' } },
    })
    await engine.loyalties.createTiers(club.id, [{ name: 'Gold', points: { from: 500 } }])
    const card = await member(engine, club.id)
    const row = (await store.member_tiers.list({ where: { voucher_id: card.id } })).data[0]
    if (!row?.value.expiration) throw new Error('the member holds no tier')
    // As an earlier version stored it: instants, the expiry being the local midnight after the last day.
    const old = {
      ...row.value,
      expiration: {
        ...row.value.expiration,
        start_date: '2026-03-10T12:00:00.000Z',
        expiration_date: '2026-04-07T22:00:00.000Z',
      },
    }
    await mutate(engineContext(engine), async (tx) => {
      tx.update('member_tiers', row, old)
    })
    expect((await engine.loyalties.getMemberTier(null, card.id))?.expiration).toMatchObject({
      start_date: '2026-03-10',
      expiration_date: '2026-04-07',
    })
  })
})
