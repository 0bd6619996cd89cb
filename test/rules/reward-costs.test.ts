import { describe, expect, it } from 'vitest'
import {
  autoRedemptions,
  payWithPoints,
  pointsValue,
  pointValue,
  rewardCost,
  tierRewardMapping,
} from '../../src/rules/reward-costs'

describe('pay with points (docs/concepts.md#pay-with-points, docs/behaviour.md#pay-with-points)', () => {
  it('45000 at 100 pts = $20 without points: 2300 points, discount 45000, balance 6874 → 4574', () => {
    const r = payWithPoints({ exchange_ratio: 20, points_ratio: 100 }, { remainingTotal: 45000, balance: 6874 })
    expect(r).toEqual({ ok: true, points: 2300, discount: 45000 })
    if (r.ok) expect(6874 - r.points).toBe(4574)
  })

  it('5 points at {1, 1} pay 500', () => {
    expect(
      payWithPoints(
        { exchange_ratio: 1, points_ratio: 1 },
        { remainingTotal: 10000, balance: 100, requestedPoints: 5 },
      ),
    ).toEqual({
      ok: true,
      points: 5,
      discount: 500,
    })
  })

  it('100 requested points at 100 pts = $20 pay 2000; the discount is capped by the remaining total', () => {
    const coin = { exchange_ratio: 20, points_ratio: 100 }
    expect(payWithPoints(coin, { remainingTotal: 45000, balance: 6874, requestedPoints: 100 })).toEqual({
      ok: true,
      points: 100,
      discount: 2000,
    })
    expect(payWithPoints(coin, { remainingTotal: 1500, balance: 6874, requestedPoints: 100 })).toEqual({
      ok: true,
      points: 100,
      discount: 1500,
    })
  })

  it('requesting more than the balance is loyalty_card_points_exceeded', () => {
    expect(
      payWithPoints({ exchange_ratio: 1, points_ratio: 1 }, { remainingTotal: 10000, balance: 4, requestedPoints: 5 }),
    ).toEqual({
      ok: false,
      reason: 'loyalty_card_points_exceeded',
      requested: 5,
      balance: 4,
    })
    expect(
      payWithPoints({ exchange_ratio: 1, points_ratio: 1 }, { remainingTotal: 10000, balance: 4, requestedPoints: 0 }),
    ).toMatchObject({
      ok: false,
      reason: 'invalid_points',
    })
  })

  it('with capAtBalance (redeemReward), more points than the balance use the balance', () => {
    expect(
      payWithPoints(
        { exchange_ratio: 1, points_ratio: 1 },
        { remainingTotal: 10000, balance: 4, requestedPoints: 5, capAtBalance: true },
      ),
    ).toEqual({ ok: true, points: 4, discount: 400 })
    expect(
      payWithPoints(
        { exchange_ratio: 1, points_ratio: 1 },
        { remainingTotal: 300, balance: 4, requestedPoints: 5, capAtBalance: true },
      ),
    ).toEqual({ ok: true, points: 4, discount: 300 })
  })

  it('without points and a low balance: only the available points apply', () => {
    expect(payWithPoints({ exchange_ratio: 20, points_ratio: 100 }, { remainingTotal: 45000, balance: 1234 })).toEqual({
      ok: true,
      points: 1234,
      discount: 24680,
    })
    expect(payWithPoints({ exchange_ratio: 20, points_ratio: 100 }, { remainingTotal: 0, balance: 1234 })).toEqual({
      ok: true,
      points: 0,
      discount: 0,
    })
  })

  it('point value: {0.01, 1} is one cent; fractions of a cent are not paid out', () => {
    expect(pointValue({ exchange_ratio: 0.01, points_ratio: 1 }).toNumber()).toBe(1)
    expect(pointValue({ exchange_ratio: 20, points_ratio: 100 }).toNumber()).toBe(20)
    // $1 for 3 points: 33.33… cents a point; 10 points are worth 333 cents.
    expect(pointsValue({ exchange_ratio: 1, points_ratio: 3 }, 10)).toBe(333)
    // 0.1 + 0.2 style traps: 0.07 × 100 is exactly 7 cents.
    expect(pointsValue({ exchange_ratio: 0.07, points_ratio: 1 }, 3)).toBe(21)
    expect(payWithPoints({ exchange_ratio: 1, points_ratio: 3 }, { remainingTotal: 250, balance: 100 })).toEqual({
      ok: true,
      points: 9,
      discount: 250,
    })
  })

  it('rejects a malformed coin', () => {
    expect(() => payWithPoints({ exchange_ratio: 0, points_ratio: 1 }, { remainingTotal: 1, balance: 1 })).toThrow(
      RangeError,
    )
  })
})

describe('rewardCost', () => {
  const assignment = { parameters: { loyalty: { points: 75 } } }
  it('the assignment points, multiplied or replaced by the tier mapping', () => {
    expect(rewardCost({ type: 'MATERIAL' }, assignment)).toEqual({ ok: true, points: 75 })
    expect(rewardCost({ type: 'MATERIAL' }, assignment, { type: 'MULTIPLY', multiplier: 4 })).toEqual({
      ok: true,
      points: 300,
    })
    expect(rewardCost({ type: 'CAMPAIGN' }, assignment, { type: 'CUSTOM', points: 300 })).toEqual({
      ok: true,
      points: 300,
    })
    // A fractional cost rounds up.
    expect(rewardCost({ type: 'MATERIAL' }, assignment, { type: 'MULTIPLY', multiplier: 0.5 })).toEqual({
      ok: true,
      points: 38,
    })
  })
  it('CUSTOM is not allowed for pay with points; a missing cost is an error', () => {
    expect(rewardCost({ type: 'COIN' }, {}, { type: 'CUSTOM', points: 10 })).toEqual({
      ok: false,
      reason: 'custom_mapping_not_allowed_for_pay_with_points',
    })
    expect(rewardCost({ type: 'COIN' }, {})).toEqual({ ok: true, points: 0 })
    expect(rewardCost({ type: 'MATERIAL' }, {})).toEqual({ ok: false, reason: 'invalid_points_cost' })
  })
  it('reads the tier mapping of a reward', () => {
    const tier = { rewards: { rew_1: { type: 'MULTIPLY' as const, multiplier: 4 } } }
    expect(tierRewardMapping(tier, 'rew_1')).toEqual({ type: 'MULTIPLY', multiplier: 4 })
    expect(tierRewardMapping(tier, 'rew_2')).toBeNull()
    expect(tierRewardMapping(null, 'rew_1')).toBeNull()
  })
})

describe('autoRedemptions (docs/concepts.md#rewards)', () => {
  const base = { balance: 0, cost: 100, redeemedInTransaction: 0, runOpen: false, runsToday: 0, stock: null }
  it('redeems as many as the balance pays for', () => {
    expect(autoRedemptions({ ...base, balance: 99 })).toBe(0)
    expect(autoRedemptions({ ...base, balance: 100 })).toBe(1)
    expect(autoRedemptions({ ...base, balance: 350 })).toBe(3)
  })
  it('at most 25 rewards in a transaction, counting those already redeemed in it', () => {
    expect(autoRedemptions({ ...base, balance: 3000 })).toBe(25)
    expect(autoRedemptions({ ...base, balance: 3000, redeemedInTransaction: 20, runOpen: true })).toBe(5)
    expect(autoRedemptions({ ...base, balance: 3000, redeemedInTransaction: 25, runOpen: true })).toBe(0)
  })
  it('no new auto-redemption after 10 in the day; an open one carries on', () => {
    expect(autoRedemptions({ ...base, balance: 100, runsToday: 9 })).toBe(1)
    expect(autoRedemptions({ ...base, balance: 100, runsToday: 10 })).toBe(0)
    expect(autoRedemptions({ ...base, balance: 300, runsToday: 10, runOpen: true, redeemedInTransaction: 1 })).toBe(3)
  })
  it('stock bounds it; a cost below one point never auto-redeems', () => {
    expect(autoRedemptions({ ...base, balance: 500, stock: 2 })).toBe(2)
    expect(autoRedemptions({ ...base, balance: 500, stock: 0 })).toBe(0)
    expect(autoRedemptions({ ...base, balance: 500, cost: 0 })).toBe(0)
  })
})
