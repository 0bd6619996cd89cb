import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { PointsBucket } from '../../src/model/loyalty'
import { availablePoints, cardBalance, credit, expire, refund, spend, type TakenPoints } from '../../src/rules/ledger'

const T0 = Date.parse('2025-01-01T00:00:00Z')
const DAY = 86_400_000

type Op =
  | { kind: 'credit'; points: number; expiresInDays: number | null }
  | { kind: 'spend'; points: number }
  | { kind: 'expire' }
  | { kind: 'refund' }
  | { kind: 'wait'; days: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('credit' as const),
    points: fc.integer({ min: 1, max: 1000 }),
    expiresInDays: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('spend' as const), points: fc.integer({ min: 0, max: 1500 }) }),
  fc.record({ kind: fc.constant('expire' as const) }),
  fc.record({ kind: fc.constant('refund' as const) }),
  fc.record({ kind: fc.constant('wait' as const), days: fc.integer({ min: 1, max: 20 }) }),
)

function sumRemaining(buckets: readonly PointsBucket[]): number {
  return buckets.reduce((s, b) => s + b.remaining, 0)
}

describe('ledger properties', () => {
  it('balance equals the ledger sum, obeys the card formula and never goes negative', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let buckets: PointsBucket[] = []
        let now = T0
        let credited = 0
        let spent = 0
        let expiredTotal = 0
        const spends: TakenPoints[][] = []
        let n = 0
        for (const o of ops) {
          switch (o.kind) {
            case 'credit':
              buckets = credit(buckets, {
                id: `b${n++}`,
                points: o.points,
                expiresAt: o.expiresInDays === null ? null : new Date(now + o.expiresInDays * DAY + DAY),
                createdAt: new Date(now),
                voucherId: 'v',
                campaignId: 'c',
              })
              credited += o.points
              break
            case 'spend': {
              const before = availablePoints(buckets, new Date(now))
              const r = spend(buckets, o.points, { now: new Date(now) })
              if (r.ok) {
                buckets = r.buckets
                spent += o.points
                spends.push(r.taken)
                expect(r.taken.reduce((s, t) => s + t.points, 0)).toBe(o.points)
              } else {
                expect(o.points).toBeGreaterThan(before)
                expect(r.shortfall).toBe(o.points - before)
              }
              break
            }
            case 'expire': {
              const r = expire(buckets, new Date(now))
              buckets = r.buckets
              expiredTotal += r.expired
              break
            }
            case 'refund': {
              const taken = spends.pop()
              if (taken === undefined) break
              const r = refund(buckets, taken, new Date(now))
              buckets = r.buckets
              spent -= r.restored + r.expired
              expiredTotal += r.expired
              break
            }
            case 'wait':
              now += o.days * DAY
              break
          }
          const summary = cardBalance(buckets)
          expect(summary.balance).toBe(sumRemaining(buckets))
          expect(summary.balance).toBeGreaterThanOrEqual(0)
          for (const b of buckets) expect(b.remaining).toBeGreaterThanOrEqual(0)
          expect(summary.points).toBe(credited)
          expect(summary.expired_points).toBe(expiredTotal)
          expect(summary.balance).toBe(
            summary.points - summary.expired_points - summary.subtracted_points - summary.redeemed_points,
          )
          expect(summary.redeemed_points).toBe(spent)
        }
      }),
      { numRuns: 200 },
    )
  })

  it('spend then refund restores the balance and the buckets', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            points: fc.integer({ min: 1, max: 500 }),
            days: fc.option(fc.integer({ min: 1, max: 90 }), { nil: null }),
          }),
          {
            minLength: 1,
            maxLength: 12,
          },
        ),
        fc.nat(),
        (credits, pick) => {
          let buckets: PointsBucket[] = []
          credits.forEach((c, i) => {
            buckets = credit(buckets, {
              id: `b${i}`,
              points: c.points,
              expiresAt: c.days === null ? null : new Date(T0 + c.days * DAY),
              createdAt: new Date(T0 + i),
              voucherId: 'v',
              campaignId: 'c',
            })
          })
          const total = availablePoints(buckets)
          const amount = pick % (total + 1)
          const r = spend(buckets, amount, { now: new Date(T0) })
          if (!r.ok) throw new Error('spend within the balance must succeed')
          expect(cardBalance(r.buckets).balance).toBe(total - amount)
          const back = refund(r.buckets, r.taken, new Date(T0))
          expect(back.restored).toBe(amount)
          expect(cardBalance(back.buckets).balance).toBe(total)
          expect(back.buckets).toEqual(buckets)
        },
      ),
      { numRuns: 200 },
    )
  })
})
