import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import { mutate } from '../../../src/operations/kernel/unit-of-work'
import { spendCard } from '../../../src/operations/loyalty/card-spend'
import { creditCard, expireCard, loadCard } from '../../../src/operations/loyalty/points-ledger'
import { expiryDay } from '../../../src/rules/ledger'
import { testEngine } from '../../support/engine'
import { propertyRuns } from '../../support/store'
import { member, program } from './fixtures'

type Step =
  | { kind: 'earn'; points: number; days: number | null }
  | { kind: 'spend'; points: number }
  | { kind: 'wait'; hours: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('earn' as const),
    points: fc.integer({ min: 1, max: 500 }),
    days: fc.option(fc.integer({ min: 1, max: 20 })),
  }),
  fc.record({ kind: fc.constant('spend' as const), points: fc.integer({ min: 0, max: 600 }) }),
  fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 240 }) }),
)

// 1.7 s on a 2-core machine at load 18–26: a safety limit, no timing is asserted.
describe('persisted ledger', { timeout: 60_000 }, () => {
  it('the card summary equals the buckets and the balance never goes negative across earn/spend/expire', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const { engine, clock, store } = testEngine()
        const club = await program(engine)
        const card = await member(engine, club.id)
        const stored = async () => {
          const v = await store.vouchers.get(card.id)
          if (!v) throw new Error('card missing')
          return v
        }
        for (const s of steps) {
          if (s.kind === 'wait') {
            clock.advance(s.hours * 3_600_000)
            await engine.asyncActions.runPending()
            continue
          }
          await mutate(engineContext(engine), async (tx) => {
            const c = await loadCard(tx, await stored())
            if (s.kind === 'earn') {
              const expiresAt = s.days === null ? null : new Date(tx.now.getTime() + s.days * 86_400_000)
              creditCard(tx, c, { points: s.points, expiresAt, source: { type: 'manual' } })
            } else {
              await spendCard(tx, c, s.points)
            }
            await expireCard(tx, c)
          })
          const v = (await stored()).value
          const buckets = (await store.points_buckets.list({ where: { voucher_id: card.id } })).data.map((b) => b.value)
          const lc = v.loyalty_card
          expect(lc?.balance).toBe(buckets.reduce((n, b) => n + b.remaining, 0))
          expect(lc?.points).toBe(buckets.reduce((n, b) => n + b.points, 0))
          expect(lc?.expired_points).toBe(buckets.reduce((n, b) => n + b.expired, 0))
          expect(lc?.balance ?? -1).toBeGreaterThanOrEqual(0)
          expect(
            (lc?.points ?? 0) -
              (lc?.expired_points ?? 0) -
              (lc?.subtracted_points ?? 0) -
              (v.redemption.redeemed_points ?? 0),
          ).toBe(lc?.balance)
          // The next expiration, kept by increments and sets, is what the buckets say (by day).
          const now = clock.now().getTime()
          const due = buckets.filter(
            (b) => b.status === 'ACTIVE' && b.remaining > 0 && b.expires_at !== null && Date.parse(b.expires_at) > now,
          )
          const days = due.map((b) => expiryDay(b.expires_at as string, 'UTC')).sort()
          const first = days[0] ?? null
          expect(lc?.next_expiration_date ?? null).toBe(first)
          expect(lc?.next_expiration_points ?? null).toBe(
            first === null
              ? null
              : due
                  .filter((b) => expiryDay(b.expires_at as string, 'UTC') === first)
                  .reduce((n, b) => n + b.remaining, 0),
          )
        }
      }),
      { numRuns: propertyRuns(60) },
    )
  })
})
