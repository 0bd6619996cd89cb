import { describe, expect, it } from 'vitest'
import type { LoyaltyTiersExpiration } from '../../src/model/loyalty'
import {
  effectiveTierId,
  type MemberTierStanding,
  pointsInPeriod,
  qualifyingPoints,
  qualifyTier,
  tierDates,
  transitionTier,
} from '../../src/rules/tiers'

// Bottom 1–249, Middle 250–499, Top 500–1000.
const tiers = [
  { id: 'bottom', points: { from: 1, to: 249 } },
  { id: 'middle', points: { from: 250, to: 499 } },
  { id: 'top', points: { from: 500, to: 1000 } },
]
const UTC = 'UTC'
const d = (iso: string) => new Date(iso)
const iso = (x: Date | null) => (x === null ? null : x.toISOString())

describe('qualifyTier (inclusive ranges)', () => {
  it('bounds are inclusive and contiguous', () => {
    const id = (p: number) => qualifyTier(tiers, p)?.id ?? null
    expect([id(0), id(1), id(249), id(250), id(499), id(500), id(1000), id(1001)]).toEqual([
      null,
      'bottom',
      'bottom',
      'middle',
      'middle',
      'top',
      'top',
      null,
    ])
  })
  it('an open top tier has no ceiling', () => {
    expect(qualifyTier([...tiers.slice(0, 2), { id: 'top', points: { from: 500, to: null } }], 1_000_000)?.id).toBe(
      'top',
    )
  })
})

describe('tierDates (reached on 10 March, monthly POINTS_IN_PERIOD)', () => {
  const now = d('2025-03-10T14:00:00Z')
  const cfg = (over: Partial<LoyaltyTiersExpiration> = {}): LoyaltyTiersExpiration => ({
    qualification_type: 'POINTS_IN_PERIOD',
    qualification_period: 'MONTH',
    ...over,
  })
  it('IMMEDIATE: from 10 March; NEXT_PERIOD: from 1 April', () => {
    expect(iso(tierDates({ config: cfg(), timeZone: UTC }, now, 'IMMEDIATE').start)).toBe('2025-03-10T14:00:00.000Z')
    expect(iso(tierDates({ config: cfg(), timeZone: UTC }, now, 'NEXT_PERIOD').start)).toBe('2025-04-01T00:00:00.000Z')
  })
  it('END_OF_PERIOD: held through 31 March', () => {
    const c = cfg({ expiration_date: { type: 'END_OF_PERIOD' } })
    expect(iso(tierDates({ config: c, timeZone: UTC }, now, 'IMMEDIATE').expiration)).toBe('2025-04-01T00:00:00.000Z')
  })
  it('END_OF_NEXT_PERIOD: held through 30 April', () => {
    const c = cfg({ expiration_date: { type: 'END_OF_NEXT_PERIOD' } })
    expect(iso(tierDates({ config: c, timeZone: UTC }, now, 'IMMEDIATE').expiration)).toBe('2025-05-01T00:00:00.000Z')
  })
  it('END_OF_PERIOD extended by P7D: held through 7 April', () => {
    const c = cfg({ expiration_date: { type: 'END_OF_PERIOD', extend: 'P7D' } })
    expect(iso(tierDates({ config: c, timeZone: UTC }, now, 'IMMEDIATE').expiration)).toBe('2025-04-08T00:00:00.000Z')
  })
  it('quarterly, half-yearly and yearly periods', () => {
    const end = (qualification_period: 'QUARTER' | 'HALF_YEAR' | 'YEAR') =>
      iso(
        tierDates(
          { config: cfg({ qualification_period, expiration_date: { type: 'END_OF_PERIOD' } }), timeZone: UTC },
          now,
          'IMMEDIATE',
        ).expiration,
      )
    expect(end('QUARTER')).toBe('2025-04-01T00:00:00.000Z')
    expect(end('HALF_YEAR')).toBe('2025-07-01T00:00:00.000Z')
    expect(end('YEAR')).toBe('2026-01-01T00:00:00.000Z')
  })
  it('in a time zone: 1 April 00:00 Warsaw is 31 March 22:00 UTC (summer time)', () => {
    const c = cfg({ expiration_date: { type: 'END_OF_PERIOD' } })
    expect(iso(tierDates({ config: c, timeZone: 'Europe/Warsaw' }, now, 'IMMEDIATE').expiration)).toBe(
      '2025-03-31T22:00:00.000Z',
    )
  })
})

describe('tierDates: CUSTOM', () => {
  const now = d('2025-07-20T10:00:00Z')
  const custom = (extend: string, rounding?: NonNullable<LoyaltyTiersExpiration['expiration_date']>['rounding']) => ({
    config: {
      qualification_type: 'BALANCE' as const,
      expiration_date: { type: 'CUSTOM' as const, extend, ...(rounding === undefined ? {} : { rounding }) },
    },
    timeZone: UTC,
  })
  it('P1M from 20 July: held until 19 August 23:59:59, i.e. until 20 August 00:00', () => {
    expect(iso(tierDates(custom('P1M'), now, 'IMMEDIATE').expiration)).toBe('2025-08-20T00:00:00.000Z')
  })
  it('rounded up to the end of the month: until 31 August 23:59:59', () => {
    expect(iso(tierDates(custom('P1M', { type: 'MONTH', strategy: 'END' }), now, 'IMMEDIATE').expiration)).toBe(
      '2025-09-01T00:00:00.000Z',
    )
  })
  it('rounding to a quarter, to its start, and to a particular month (0 = January)', () => {
    expect(iso(tierDates(custom('P1M', { type: 'QUARTER', strategy: 'END' }), now, 'IMMEDIATE').expiration)).toBe(
      '2025-10-01T00:00:00.000Z',
    )
    expect(iso(tierDates(custom('P1M', { type: 'MONTH', strategy: 'START' }), now, 'IMMEDIATE').expiration)).toBe(
      '2025-08-01T00:00:00.000Z',
    )
    expect(
      iso(
        tierDates(custom('P3M', { type: 'CUSTOM', strategy: 'END', unit: 'MONTH', value: 0 }), now, 'IMMEDIATE')
          .expiration,
      ),
    ).toBe('2026-02-01T00:00:00.000Z')
  })
  it('rejects a malformed extend', () => {
    expect(() => tierDates(custom('3 months'), now, 'IMMEDIATE')).toThrow(RangeError)
  })
})

describe('transitionTier', () => {
  const base = { tiers, timeZone: UTC, customerId: 'cust_1', campaignId: 'camp_1' }
  const balance: LoyaltyTiersExpiration = { qualification_type: 'BALANCE', expiration_date: { type: 'BALANCE_DROP' } }

  it('BALANCE_DROP: joins, upgrades, downgrades and leaves at once', () => {
    const now = d('2025-03-10T14:00:00Z')
    const j = transitionTier({ ...base, config: balance, current: null, points: 100, now })
    expect(j.events).toEqual([
      { type: 'customer.loyalty.tier.joined', tier_id: 'bottom', from_tier_id: null, to_tier_id: 'bottom' },
    ])
    expect(j.standing.expiration).toEqual({
      customer_id: 'cust_1',
      campaign_id: 'camp_1',
      tier_id: 'bottom',
      created_at: '2025-03-10T14:00:00.000Z',
      start_date: '2025-03-10',
      expiration_date: null,
      updated_at: '2025-03-10T14:00:00.000Z',
    })
    const u = transitionTier({ ...base, config: balance, current: j.standing, points: 600, now })
    expect(u.standing.tier_id).toBe('top')
    // One event per real move: an upgrade is not also a left + joined pair.
    expect(u.events).toEqual([
      { type: 'customer.loyalty.tier.upgraded', tier_id: 'top', from_tier_id: 'bottom', to_tier_id: 'top' },
    ])
    const dn = transitionTier({ ...base, config: balance, current: u.standing, points: 300, now })
    expect(dn.standing.tier_id).toBe('middle')
    expect(dn.events[0]).toEqual({
      type: 'customer.loyalty.tier.downgraded',
      tier_id: 'middle',
      from_tier_id: 'top',
      to_tier_id: 'middle',
    })
    const l = transitionTier({ ...base, config: balance, current: dn.standing, points: 0, now })
    expect(l.standing).toEqual({ tier_id: null, previous_tier_id: null, expiration: null })
    expect(l.events).toEqual([
      { type: 'customer.loyalty.tier.left', tier_id: 'middle', from_tier_id: 'middle', to_tier_id: null },
    ])
    const same = transitionTier({ ...base, config: balance, current: dn.standing, points: 400, now })
    expect(same.changed).toBe(false)
    expect(same.events).toEqual([])
    // Back in after dropping out of every tier: a move up, not a second `joined`.
    const back = transitionTier({ ...base, config: balance, current: l.standing, points: 100, now })
    expect(back.events).toEqual([
      { type: 'customer.loyalty.tier.upgraded', tier_id: 'bottom', from_tier_id: null, to_tier_id: 'bottom' },
    ])
  })

  it('no configuration means BALANCE with BALANCE_DROP', () => {
    const r = transitionTier({ ...base, config: undefined, current: null, points: 250, now: d('2025-03-10T00:00:00Z') })
    expect(r.standing.tier_id).toBe('middle')
    expect(r.standing.expiration?.expiration_date).toBeNull()
  })

  it('an expiring tier is kept when points drop, then re-evaluated when it lapses', () => {
    const cfg: LoyaltyTiersExpiration = {
      qualification_type: 'POINTS_IN_PERIOD',
      qualification_period: 'MONTH',
      start_date: { type: 'IMMEDIATE' },
      expiration_date: { type: 'END_OF_PERIOD' },
    }
    const up = transitionTier({ ...base, config: cfg, current: null, points: 300, now: d('2025-03-10T14:00:00Z') })
    expect(up.standing.expiration?.expiration_date).toBe('2025-03-31')
    const kept = transitionTier({
      ...base,
      config: cfg,
      current: up.standing,
      points: 10,
      now: d('2025-03-31T23:00:00Z'),
    })
    expect(kept.changed).toBe(false)
    const lapsed = transitionTier({
      ...base,
      config: cfg,
      current: up.standing,
      points: 10,
      now: d('2025-04-01T00:00:00Z'),
    })
    expect(lapsed.standing.tier_id).toBe('bottom')
    expect(lapsed.standing.expiration?.expiration_date).toBe('2025-04-30')
    expect(lapsed.events[0]?.type).toBe('customer.loyalty.tier.downgraded')
  })

  it('POINTS_IN_PERIOD with END_OF_NEXT_PERIOD: qualifying again in April prolongs to the end of May', () => {
    const cfg: LoyaltyTiersExpiration = {
      qualification_type: 'POINTS_IN_PERIOD',
      qualification_period: 'MONTH',
      expiration_date: { type: 'END_OF_NEXT_PERIOD' },
    }
    const up = transitionTier({ ...base, config: cfg, current: null, points: 300, now: d('2025-03-10T14:00:00Z') })
    expect(up.standing.expiration?.expiration_date).toBe('2025-04-30')
    const again = transitionTier({
      ...base,
      config: cfg,
      current: up.standing,
      points: 300,
      now: d('2025-03-20T14:00:00Z'),
    })
    expect(again.changed).toBe(false)
    const pro = transitionTier({
      ...base,
      config: cfg,
      current: up.standing,
      points: 260,
      now: d('2025-04-05T09:00:00Z'),
    })
    expect(pro.events).toEqual([
      { type: 'customer.loyalty.tier.prolonged', tier_id: 'middle', from_tier_id: 'middle', to_tier_id: 'middle' },
    ])
    expect(pro.standing.expiration).toMatchObject({
      start_date: '2025-03-10',
      expiration_date: '2025-05-31',
      created_at: '2025-03-10T14:00:00.000Z',
      updated_at: '2025-04-05T09:00:00.000Z',
    })
  })

  it('an expiring tier moves up at once', () => {
    const cfg: LoyaltyTiersExpiration = {
      qualification_type: 'BALANCE',
      expiration_date: { type: 'CUSTOM', extend: 'P1M' },
    }
    const a = transitionTier({ ...base, config: cfg, current: null, points: 300, now: d('2025-07-20T10:00:00Z') })
    const b = transitionTier({ ...base, config: cfg, current: a.standing, points: 700, now: d('2025-07-25T10:00:00Z') })
    expect(b.standing.tier_id).toBe('top')
    expect(b.standing.expiration?.expiration_date).toBe('2025-08-24')
    // Dropping back keeps Top until it lapses (docs/behaviour.md#tiers: downgrade waits for the grace period).
    const c = transitionTier({ ...base, config: cfg, current: b.standing, points: 50, now: d('2025-08-01T10:00:00Z') })
    expect(c.changed).toBe(false)
  })

  it('NEXT_PERIOD defers the start and keeps the previous tier in force until then', () => {
    const cfg: LoyaltyTiersExpiration = {
      qualification_type: 'POINTS_IN_PERIOD',
      qualification_period: 'MONTH',
      start_date: { type: 'NEXT_PERIOD' },
      expiration_date: { type: 'END_OF_PERIOD' },
    }
    const current: MemberTierStanding = {
      tier_id: 'bottom',
      previous_tier_id: null,
      expiration: {
        customer_id: 'cust_1',
        campaign_id: 'camp_1',
        tier_id: 'bottom',
        created_at: '2025-02-01T00:00:00.000Z',
        start_date: '2025-03-01',
        expiration_date: '2025-03-31',
        updated_at: null,
      },
    }
    const r = transitionTier({ ...base, config: cfg, current, points: 300, now: d('2025-03-10T14:00:00Z') })
    expect(r.standing).toMatchObject({ tier_id: 'middle', previous_tier_id: 'bottom' })
    expect(r.standing.expiration).toMatchObject({
      start_date: '2025-04-01',
      expiration_date: '2025-04-30',
    })
    expect(effectiveTierId(r.standing, d('2025-03-31T23:59:59Z'), UTC)).toBe('bottom')
    expect(effectiveTierId(r.standing, d('2025-04-01T00:00:00Z'), UTC)).toBe('middle')
  })

  it('a removed tier is lost at once', () => {
    const cur: MemberTierStanding = { tier_id: 'gone', previous_tier_id: null, expiration: null }
    const r = transitionTier({ ...base, config: balance, current: cur, points: 300, now: d('2025-03-10T00:00:00Z') })
    expect(r.standing.tier_id).toBe('middle')
    expect(r.events.map((e) => e.type)).toEqual(['customer.loyalty.tier.upgraded'])
  })

  it('refresh re-dates a kept tier with expiration.changed', () => {
    const cfg1: LoyaltyTiersExpiration = {
      qualification_type: 'BALANCE',
      expiration_date: { type: 'CUSTOM', extend: 'P3M' },
    }
    const cfg2: LoyaltyTiersExpiration = {
      qualification_type: 'BALANCE',
      expiration_date: { type: 'CUSTOM', extend: 'P1M' },
    }
    const a = transitionTier({ ...base, config: cfg1, current: null, points: 300, now: d('2025-01-10T00:00:00Z') })
    const b = transitionTier({
      ...base,
      config: cfg2,
      current: a.standing,
      points: 300,
      now: d('2025-01-20T00:00:00Z'),
      refresh: true,
    })
    expect(b.events.map((e) => e.type)).toEqual(['customer.loyalty.tier.expiration.changed'])
    expect(b.standing.expiration?.expiration_date).toBe('2025-02-19')
  })
})

describe('qualifying points', () => {
  const buckets = [
    { points: 100, created_at: '2025-02-28T23:59:59Z', source: { type: 'earning_rule' as const } },
    { points: 200, created_at: '2025-03-01T00:00:00Z', source: { type: 'earning_rule' as const } },
    { points: 50, created_at: '2025-03-15T00:00:00Z', source: { type: 'rollback' as const } },
    { points: 30, created_at: '2025-03-31T23:59:59Z', source: { type: 'manual' as const } },
    { points: 999, created_at: '2025-04-01T00:00:00Z', source: { type: 'earning_rule' as const } },
  ]
  it('POINTS_IN_PERIOD counts the credits of the current calendar period', () => {
    expect(pointsInPeriod(buckets, 'MONTH', d('2025-03-10T00:00:00Z'), UTC)).toBe(230)
    expect(pointsInPeriod(buckets, 'QUARTER', d('2025-03-10T00:00:00Z'), UTC)).toBe(330)
  })
  it('BALANCE uses the balance', () => {
    expect(
      qualifyingPoints({ qualification_type: 'BALANCE' }, { balance: 42, buckets }, d('2025-03-10T00:00:00Z'), UTC),
    ).toBe(42)
    expect(
      qualifyingPoints(
        { qualification_type: 'POINTS_IN_PERIOD', qualification_period: 'MONTH' },
        { balance: 42, buckets },
        d('2025-03-10T00:00:00Z'),
        UTC,
      ),
    ).toBe(230)
  })
})
