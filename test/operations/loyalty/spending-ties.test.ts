import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import { createIdGenerator, seededRandom } from '../../../src/ids'
import type { PointsBucket } from '../../../src/model/loyalty'
import { mutate } from '../../../src/operations/kernel/unit-of-work'
import { creditCard, loadCard, SPEND_PAGE } from '../../../src/operations/loyalty/points-ledger'
import { spendingOrder } from '../../../src/rules/ledger'
import { takeOrder } from '../../../src/storage/ports'
import { testEngine } from '../../support/engine'
import { cardPayingWithPoints } from './fixtures'

/*
 * One spending order (docs/storage.md#taking-points): the buckets a spend the engine chooses takes
 * (guarded decrements of the buckets it read) are those the store's `take` takes from the same state,
 * ties in expiry broken by creation, then by id, even when the tied day runs past the page the engine
 * read first (that page is in expiry-then-id order).
 */

const DAY = 86_400_000

/**
 * alice's card (500 never-expiring points) with one bucket of 10 expiring tomorrow and `tied` buckets
 * of 10 expiring the day after, each credited a second after the one before; bucket ids fall as they
 * are made, so the first made of the tied day has the highest id and is not in the first page read.
 */
async function tiedCard(tied: number) {
  let n = 100_000
  const base = createIdGenerator(seededRandom(9))
  const ids = (prefix: string) => (prefix === 'lpb_' ? `lpb_${n--}` : base(prefix))
  const t = testEngine({ ids })
  const fx = await cardPayingWithPoints(t.engine)
  const credit = (expiresInDays: number) =>
    mutate(engineContext(t.engine), async (tx) => {
      const stored = await tx.store.vouchers.get(fx.card.id)
      if (!stored) throw new Error('card missing')
      creditCard(tx, await loadCard(tx, stored), {
        points: 10,
        expiresAt: new Date(tx.now.getTime() - (tx.now.getTime() % DAY) + expiresInDays * DAY),
        source: { type: 'manual' },
      })
    })
  await credit(1)
  for (let i = 0; i < tied; i++) {
    t.clock.advance(1000)
    await credit(2)
  }
  const buckets = async () =>
    (await t.store.points_buckets.list({ where: { voucher_id: fx.card.id } })).data.map((b) => b.value as PointsBucket)
  return { ...t, fx, buckets }
}

describe('one spending order for the engine and the store', () => {
  it('ties in expiry break by creation then id, never by the order the buckets were read', () => {
    const bucket = (id: string, created_at: string) =>
      ({
        id,
        voucher_id: 'v',
        status: 'ACTIVE',
        points: 10,
        remaining: 10,
        expired: 0,
        expires_at: '2026-02-01T00:00:00.000Z',
        created_at,
      }) as PointsBucket
    // Read as given: the later one first, and a tie in creation with the lower id last.
    const read = [
      bucket('lpb_3', '2026-01-02T00:00:00.000Z'),
      bucket('lpb_2', '2026-01-01T00:00:00.000Z'),
      bucket('lpb_1', '2026-01-01T00:00:00.000Z'),
    ]
    expect(spendingOrder(read).map((b) => b.id)).toEqual(['lpb_1', 'lpb_2', 'lpb_3'])
    expect(spendingOrder(read)).toEqual([...read].sort(takeOrder))
  })

  const tied = SPEND_PAGE
  it(`a spend emptying the next expiry day takes the rest from the first made of ${tied} tied buckets, as a take of the same state does`, async () => {
    // The engine's choice: the spend empties tomorrow's bucket, so it decides from the buckets it reads.
    const chosen = await tiedCard(tied)
    const redemption = await chosen.engine.loyalties.redeemReward(chosen.fx.club.id, chosen.fx.card.id, {
      reward: { id: chosen.fx.coin.id, points: 15 },
      order: { amount: 10000 },
    })
    const stored = await chosen.store.redemptions.get(redemption.id)
    // The store's take, on a twin built by the same calls.
    const taken = await tiedCard(tied)
    const result = await taken.store.commit({
      writes: [
        {
          op: 'take',
          collection: 'points_buckets',
          id: taken.fx.card.id,
          amount: 15,
          now: taken.clock.now().toISOString(),
        },
      ],
    })
    expect(result.ok).toBe(true)
    const left = (bs: PointsBucket[]) =>
      Object.fromEntries(bs.filter((b) => b.remaining < b.points).map((b) => [b.id, b.remaining]))
    const takenLeft = left(await taken.buckets())
    expect(left(await chosen.buckets())).toEqual(takenLeft)
    // What that is: tomorrow's bucket emptied, 5 from the first made of the day after (the highest id
    // of that day: the paid order's bucket was made first of all).
    const first = (await taken.buckets()).filter((b) => b.expires_at !== null).sort(takeOrder)
    expect(takenLeft).toEqual({ [first[0]?.id as string]: 0, [first[1]?.id as string]: 5 })
    expect(first[1]?.id).toBe('lpb_99998')
    // And the redemption reports what was taken.
    expect(stored?.value.points_taken).toEqual([
      { bucketId: first[0]?.id, points: 10 },
      { bucketId: first[1]?.id, points: 5 },
    ])
  })
})
