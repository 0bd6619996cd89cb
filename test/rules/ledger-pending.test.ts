import { describe, expect, it } from 'vitest'
import { activate, availablePoints, cardBalance, creditPending, expire, spend } from '../../src/rules/ledger'
import { pendingActivationDate } from '../../src/rules/points-expiry'
import { pointsInPeriod } from '../../src/rules/tiers'

const card = { voucherId: 'v_1', campaignId: 'camp_1', customerId: 'cust_1' }
const d = (iso: string) => new Date(iso)

describe('pending buckets', () => {
  const pending = creditPending([], {
    ...card,
    id: 'b_p',
    points: 70,
    createdAt: d('2025-01-10T09:00:00Z'),
    activatesAt: d('2025-01-13T00:00:00Z'),
  })

  it('count only as pending_points: not spendable, not expirable, not in points, balance or a period', () => {
    expect(pending[0]).toMatchObject({ status: 'PENDING', remaining: 0, activates_at: '2025-01-13T00:00:00.000Z' })
    expect(availablePoints(pending)).toBe(0)
    expect(spend(pending, 1)).toMatchObject({ ok: false, available: 0 })
    expect(expire(pending, d('2030-01-01T00:00:00Z')).expired).toBe(0)
    expect(cardBalance(pending)).toMatchObject({ points: 0, balance: 0, pending_points: 70, redeemed_points: 0 })
    expect(pointsInPeriod(pending, 'MONTH', d('2025-01-20T00:00:00Z'), 'UTC')).toBe(0)
  })

  it('activate: spendable from now, expiry as given, created_at = activation; a second activation changes nothing', () => {
    const now = d('2025-01-13T00:00:00Z')
    const { buckets, activated } = activate(pending, 'b_p', { now, expiresAt: d('2025-02-14T00:00:00Z') })
    expect(activated).toBe(70)
    expect(buckets[0]).toMatchObject({
      status: 'ACTIVE',
      remaining: 70,
      created_at: '2025-01-13T00:00:00.000Z',
      expires_at: '2025-02-14T00:00:00.000Z',
    })
    expect(cardBalance(buckets)).toMatchObject({ points: 70, balance: 70, pending_points: 0 })
    expect(activate(buckets, 'b_p', { now, expiresAt: null }).activated).toBe(0)
    expect(() => activate(buckets, 'b_x', { now, expiresAt: null })).toThrow(RangeError)
  })

  it('pendingActivationDate: 00:00 local of the N-th day after the earning day', () => {
    expect(pendingActivationDate(d('2026-01-15T10:00:00Z'), { period_type: 'DAY', period_value: 7 }, 'UTC')).toEqual(
      d('2026-01-22T00:00:00Z'),
    )
    expect(
      pendingActivationDate(d('2026-01-31T23:30:00Z'), { period_type: 'DAY', period_value: 1 }, 'Europe/Warsaw'),
    ).toEqual(d('2026-02-01T23:00:00Z'))
  })
})
