import { describe, expect, it } from 'vitest'
import type { PointsBucket } from '../../src/model/loyalty'
import { cardBalance, credit, expire, refund, spend, spendingOrder } from '../../src/rules/ledger'

const card = { voucherId: 'v_1', campaignId: 'camp_1', customerId: 'cust_1' }
const d = (iso: string) => new Date(iso)

function ledger(): PointsBucket[] {
  let b: PointsBucket[] = []
  b = credit(b, { ...card, id: 'b_never', points: 100, expiresAt: null, createdAt: d('2025-01-01T00:00:00Z') })
  b = credit(b, {
    ...card,
    id: 'b_mar',
    points: 50,
    expiresAt: d('2025-03-01T00:00:00Z'),
    createdAt: d('2025-01-02T00:00:00Z'),
  })
  b = credit(b, {
    ...card,
    id: 'b_feb',
    points: 30,
    expiresAt: d('2025-02-01T00:00:00Z'),
    createdAt: d('2025-01-03T00:00:00Z'),
  })
  b = credit(b, {
    ...card,
    id: 'b_mar2',
    points: 20,
    expiresAt: d('2025-03-01T00:00:00Z'),
    createdAt: d('2025-01-01T12:00:00Z'),
  })
  return b
}

describe('ledger', () => {
  it('spends the soonest-expiring points first, never-expiring last, ties by creation', () => {
    expect(spendingOrder(ledger()).map((b) => b.id)).toEqual(['b_feb', 'b_mar2', 'b_mar', 'b_never'])
    const r = spend(ledger(), 70)
    if (!r.ok) throw new Error('expected ok')
    expect(r.taken).toEqual([
      { bucketId: 'b_feb', points: 30 },
      { bucketId: 'b_mar2', points: 20 },
      { bucketId: 'b_mar', points: 20 },
    ])
    expect(cardBalance(r.buckets).balance).toBe(130)
    expect(r.buckets.find((b) => b.id === 'b_feb')?.status).toBe('SPENT')
  })

  it('reports the shortfall and leaves the ledger alone when points are missing', () => {
    expect(spend(ledger(), 201)).toEqual({
      ok: false,
      reason: 'insufficient_points',
      requested: 201,
      available: 200,
      shortfall: 1,
    })
  })

  it('does not spend points past their expiry even before the job ran', () => {
    const r = spend(ledger(), 180, { now: d('2025-02-01T00:00:00Z') })
    expect(r).toEqual({ ok: false, reason: 'insufficient_points', requested: 180, available: 170, shortfall: 10 })
  })

  it('expires what is due at now (the instant itself included)', () => {
    const r = expire(ledger(), d('2025-02-01T00:00:00Z'))
    expect(r.expired).toBe(30)
    expect(r.expiredBuckets).toEqual([{ bucketId: 'b_feb', points: 30 }])
    expect(cardBalance(r.buckets)).toMatchObject({ points: 200, balance: 170, expired_points: 30 })
    expect(expire(ledger(), d('2025-01-31T23:59:59.999Z')).expired).toBe(0)
  })

  it('summarises the card: balance = points − expired − subtracted − redeemed', () => {
    const s1 = spend(ledger(), 40)
    if (!s1.ok) throw new Error('expected ok')
    const e = expire(s1.buckets, d('2025-03-01T00:00:00Z'))
    // 40 spent from b_feb (30) and b_mar2 (10); then b_mar2's 10 and b_mar's 50 expire.
    expect(e.expired).toBe(60)
    expect(cardBalance(e.buckets, { subtracted: 15, timeZone: 'UTC' })).toEqual({
      points: 200,
      pending_points: 0,
      balance: 100,
      expired_points: 60,
      subtracted_points: 15,
      redeemed_points: 25,
      next_expiration_date: null,
      next_expiration_points: null,
    })
  })

  it('next expiration: the last usable day and the points expiring then', () => {
    expect(cardBalance(ledger(), { timeZone: 'UTC' })).toMatchObject({
      next_expiration_date: '2025-01-31',
      next_expiration_points: 30,
    })
    expect(cardBalance(ledger(), { timeZone: 'UTC', now: d('2025-02-01T00:00:00Z') })).toMatchObject({
      next_expiration_date: '2025-02-28',
      next_expiration_points: 70,
    })
  })

  it('refund returns points to the buckets they came from, keeping their expiry', () => {
    const s = spend(ledger(), 70)
    if (!s.ok) throw new Error('expected ok')
    const r = refund(s.buckets, s.taken, d('2025-01-15T00:00:00Z'))
    expect(r).toMatchObject({ restored: 70, expired: 0 })
    expect(r.buckets).toEqual(ledger())
  })

  it('refund into a bucket that has expired since records the points as expired', () => {
    const s = spend(ledger(), 40)
    if (!s.ok) throw new Error('expected ok')
    const r = refund(s.buckets, s.taken, d('2025-02-15T00:00:00Z'))
    // 30 went back to b_feb (expired on 1 Feb), 10 to b_mar2 (still valid).
    expect(r).toMatchObject({ restored: 10, expired: 30 })
    expect(cardBalance(r.buckets)).toMatchObject({ points: 200, balance: 170, expired_points: 30, redeemed_points: 0 })
  })

  it('refund into a bucket past expiry that still holds points leaves those to the expiry job', () => {
    let b: PointsBucket[] = credit([], {
      ...card,
      id: 'b1',
      points: 2,
      expiresAt: d('2025-01-02T00:00:00Z'),
      createdAt: d('2025-01-01T00:00:00Z'),
    })
    const s = spend(b, 1)
    if (!s.ok) throw new Error('expected ok')
    const r = refund(s.buckets, s.taken, d('2025-01-02T00:00:00Z'))
    expect(r).toMatchObject({ restored: 0, expired: 1 })
    expect(r.buckets[0]).toMatchObject({ remaining: 1, expired: 1, status: 'ACTIVE' })
    const e = expire(r.buckets, d('2025-01-02T00:00:00Z'))
    expect(e.expired).toBe(1)
    b = e.buckets
    expect(cardBalance(b)).toMatchObject({ points: 2, balance: 0, expired_points: 2, redeemed_points: 0 })
  })

  it('refuses to refund more than was spent from a bucket', () => {
    expect(() => refund(ledger(), [{ bucketId: 'b_feb', points: 1 }], d('2025-01-15T00:00:00Z'))).toThrow(RangeError)
    expect(() => refund(ledger(), [{ bucketId: 'nope', points: 1 }], d('2025-01-15T00:00:00Z'))).toThrow(RangeError)
  })

  it('a rollback of 20 points returns them to the card', () => {
    let b: PointsBucket[] = credit([], {
      ...card,
      id: 'b1',
      points: 8800,
      expiresAt: null,
      createdAt: d('2025-01-01T00:00:00Z'),
    })
    const s = spend(b, 80)
    if (!s.ok) throw new Error('expected ok')
    b = s.buckets
    expect(cardBalance(b).balance).toBe(8720)
    const r = refund(b, [{ bucketId: 'b1', points: 20 }], d('2025-01-02T00:00:00Z'))
    expect(cardBalance(r.buckets)).toMatchObject({ points: 8800, balance: 8740 })
  })

  it('credit rejects non-positive points and duplicate ids', () => {
    expect(() =>
      credit([], { ...card, id: 'x', points: 0, expiresAt: null, createdAt: d('2025-01-01T00:00:00Z') }),
    ).toThrow(RangeError)
    expect(() =>
      credit(ledger(), { ...card, id: 'b_feb', points: 1, expiresAt: null, createdAt: d('2025-01-01T00:00:00Z') }),
    ).toThrow(RangeError)
  })
})
