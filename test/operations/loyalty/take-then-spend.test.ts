import { describe, expect, it } from 'vitest'
import type { PointsBucket } from '../../../src/model/loyalty'
import { expiryDay } from '../../../src/rules/ledger'
import { testEngine } from '../../support/engine'
import { mugReward, program } from './fixtures'

/*
 * A `take` and then a spend choosing its buckets, of one card in one transaction
 * (docs/storage.md#taking-points): an auto-redeem reward redeemed twice by one paid order. The first
 * redemption leaves points on the card's next expiration day, so the store takes it at commit; the
 * second empties that day, so it reads the buckets and sets the next day. The take applies after the
 * second spend's decrements, from the front of the spending order: the day the card names must be
 * the one the buckets hold after both.
 */

const paid = (sourceId: string, amount: number) => ({
  source_id: sourceId,
  status: 'PAID' as const,
  customer: { source_id: 'alice' },
  amount,
})

/** The soonest day spendable points expire and how many, from the buckets as stored. */
function nextExpiration(buckets: readonly PointsBucket[]) {
  const live = buckets.filter((b) => b.status === 'ACTIVE' && b.remaining > 0 && b.expires_at !== null)
  const days = live.map((b) => expiryDay(b.expires_at as string, 'UTC')).sort()
  const day = days[0] ?? null
  const points = live
    .filter((b) => expiryDay(b.expires_at as string, 'UTC') === day)
    .reduce((n, b) => n + b.remaining, 0)
  return { next_expiration_date: day, next_expiration_points: day === null ? null : points }
}

describe('a take and then a spend choosing its buckets, of one card in one transaction', () => {
  it('an auto-redeem reward redeemed twice by one paid order: the next expiration is what the buckets hold after both', async () => {
    const { engine, clock, store } = testEngine()
    const club = await program(engine, {
      voucher: {
        type: 'LOYALTY_CARD',
        loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1 } },
        code_config: { pattern: 'CLUB-####' },
      },
    })
    await engine.loyalties.createEarningRule(club.id, [
      {
        event: 'order.paid',
        loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1, points: 1 } } },
      },
    ])
    const card = await engine.loyalties.createMember(club.id, { customer: { source_id: 'alice' } })
    // 150 points expiring in a month, before the reward is auto-redeemed.
    await engine.raw.orders.create(paid('o1', 150))
    await mugReward(engine, club.id)
    // A day later 60 more, expiring a day later: 210 points pay the mug twice in the order's transaction.
    clock.advance(86_400_000)
    await engine.raw.orders.create(paid('o2', 60))
    const auto = await store.redemptions.list({ where: { 'channel.channel_type': 'AUTO_REDEEM' } })
    expect(auto.data.map((r) => r.value.result)).toEqual(['SUCCESS', 'SUCCESS'])
    const buckets = (await store.points_buckets.list({ where: { voucher_id: card.id } })).data.map(
      (b) => b.value as PointsBucket,
    )
    // Both redemptions came off the 150 first (100 + 50), then 50 off the 60: 10 left, on the later day.
    expect(buckets.map((b) => b.remaining).sort((a, b) => a - b)).toEqual([0, 10])
    const lc = (await engine.loyalties.getMember(null, card.id)).loyalty_card
    expect(lc?.balance).toBe(10)
    expect({
      next_expiration_date: lc?.next_expiration_date ?? null,
      next_expiration_points: lc?.next_expiration_points ?? null,
    }).toEqual(nextExpiration(buckets))
    expect(lc?.next_expiration_points).toBe(10)
  })
})
