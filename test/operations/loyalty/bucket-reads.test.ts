import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import { createMemoryStore } from '../../../src/memory/memory-store'
import type { PointsBucket } from '../../../src/model/loyalty'
import { mutate } from '../../../src/operations/kernel/unit-of-work'
import { creditCard, loadCard, SPEND_PAGE } from '../../../src/operations/loyalty/points-ledger'
import type { Page, Store, Stored } from '../../../src/storage/ports'
import { testEngine } from '../../support/engine'
import { cardPayingWithPoints } from './fixtures'

/*
 * What a member's card costs to read (docs/storage.md#loyalty-cards-and-their-buckets): a spend reads
 * the buckets it takes from (soonest-expiring first) and at most one page more, earning reads none,
 * whatever the number of live buckets. Counted in rows returned by the store, not in time.
 */

const DAY = 86_400_000

/** A memory store counting the bucket rows every read returns. */
function countingStore() {
  const memory = createMemoryStore()
  const read = { rows: 0, lists: 0 }
  const inner = memory.points_buckets
  const counted = <T>(page: Page<T>) => {
    read.rows += page.data.length
    read.lists++
    return page
  }
  const store: Store = {
    ...memory,
    points_buckets: {
      ...inner,
      list: async (q) => counted(await inner.list(q)),
      getMany: async (ids) => {
        const rows = await inner.getMany(ids)
        read.rows += rows.length
        return rows
      },
      get: async (id) => {
        const row = await inner.get(id)
        read.rows += row ? 1 : 0
        return row
      },
    },
  }
  return { store, read }
}

/** alice's card (500 points, never expiring) with `count` more buckets of 10 points, one expiring each day. */
async function member(count: number) {
  const { store, read } = countingStore()
  const { engine, clock } = testEngine({ store })
  const fx = await cardPayingWithPoints(engine)
  await mutate(engineContext(engine), async (tx) => {
    const stored = await tx.store.vouchers.get(fx.card.id)
    if (!stored) throw new Error('card missing')
    const card = await loadCard(tx, stored)
    for (let i = 0; i < count; i++) {
      creditCard(tx, card, {
        points: 10,
        expiresAt: new Date(tx.now.getTime() + (count - i) * DAY),
        source: { type: 'manual' },
      })
    }
  })
  const buckets = async () =>
    (await store.points_buckets.list({ where: { voucher_id: fx.card.id } })).data.map(
      (b: Stored<PointsBucket>) => b.value,
    )
  return { engine, clock, store, read, fx, buckets }
}

async function counting<T>(read: { rows: number }, run: () => Promise<T>): Promise<{ rows: number; result: T }> {
  const before = read.rows
  const result = await run()
  return { rows: read.rows - before, result }
}

// A thousand buckets credited in one transaction first: seconds on a loaded machine.
describe('loyalty buckets: reads per operation', { timeout: 60_000 }, () => {
  for (const count of [10, 1000]) {
    it(`with ${count} live buckets, a paid order earning points reads no bucket`, async () => {
      const { engine, read, fx } = await member(count)
      const { rows } = await counting(read, () =>
        engine.orders.create({ customer: { source_id: 'alice' }, status: 'PAID', amount: 20000 }),
      )
      expect(rows).toBe(0)
      expect((await engine.loyalties.getMember(null, fx.card.id)).loyalty_card?.balance).toBe(500 + count * 10 + 20)
    })

    it(`with ${count} live buckets, paying 95 points reads the soonest-expiring buckets covering them and at most a page more`, async () => {
      const { engine, read, fx, buckets } = await member(count)
      const soonest = (await buckets())
        .filter((b) => b.expires_at !== null)
        .sort((a, b) => Date.parse(a.expires_at as string) - Date.parse(b.expires_at as string))
        .slice(0, 10)
        .map((b) => b.id)
      const { rows } = await counting(read, () =>
        engine.loyalties.redeemReward(fx.club.id, fx.card.id, {
          reward: { id: fx.coin.id, points: 95 },
          order: { amount: 10000 },
        }),
      )
      expect(rows).toBeLessThanOrEqual(10 + SPEND_PAGE)
      // The points came from the ten soonest-expiring buckets: nine emptied, five left in the tenth.
      const byId = new Map((await buckets()).map((b) => [b.id, b]))
      expect(soonest.map((id) => byId.get(id)?.remaining)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 5])
      expect([...byId.values()].filter((b) => b.remaining < b.points).length).toBe(10)
      const after = await engine.loyalties.getMember(null, fx.card.id)
      expect(after.loyalty_card?.balance).toBe(500 + count * 10 - 95)
    })

    it(`with ${count} live buckets, paying 5 points (fewer than the next expiry day holds): the store takes them from the soonest bucket at commit, past the first half pages read early`, async () => {
      const { engine, read, fx, buckets } = await member(count)
      const soonest = (await buckets())
        .filter((b) => b.expires_at !== null)
        .sort((a, b) => Date.parse(a.expires_at as string) - Date.parse(b.expires_at as string))[0]
      const { rows } = await counting(read, () =>
        engine.loyalties.redeemReward(fx.club.id, fx.card.id, {
          reward: { id: fx.coin.id, points: 5 },
          order: { amount: 10000 },
        }),
      )
      // A card with points expiring reads the first half page of each order beside its own reads, in
      // case the spend empties the next expiry day; this one does not, and reads no further.
      expect(rows).toBeLessThanOrEqual(SPEND_PAGE)
      const byId = new Map((await buckets()).map((b) => [b.id, b]))
      expect(byId.get(soonest?.id as string)?.remaining).toBe(5)
      expect([...byId.values()].filter((b) => b.remaining < b.points).length).toBe(1)
      const after = await engine.loyalties.getMember(null, fx.card.id)
      expect(after.loyalty_card?.balance).toBe(500 + count * 10 - 5)
      expect(after.loyalty_card?.next_expiration_points).toBe(5)
    })
  }

  it('a reward paid from never-expiring points reads no bucket, and the redemption names the buckets the store took', async () => {
    const { engine, read, fx, store } = await member(0)
    const { rows, result } = await counting(read, () =>
      engine.loyalties.redeemReward(fx.club.id, fx.card.id, {
        reward: { id: fx.coin.id, points: 120 },
        order: { amount: 10000 },
      }),
    )
    expect(rows).toBe(0)
    const stored = await store.redemptions.get(result.id)
    const [only] = (await store.points_buckets.list({ where: { voucher_id: fx.card.id } })).data
    expect(stored?.value.points_taken).toEqual([{ bucketId: only?.value.id, points: 120 }])
    expect(only?.value.remaining).toBe(380)
  })

  it('a spend past the expiring buckets goes on to the never-expiring ones, oldest first, a page at a time', async () => {
    const { engine, read, fx, buckets } = await member(40)
    const { rows, result } = await counting(read, () =>
      engine.redemptions.redeemStackable({
        redeemables: [{ object: 'voucher', id: fx.card.code, reward: { id: fx.coin.id, points: 450 } }],
        order: { amount: 100000 },
        customer: { source_id: 'alice' },
      }),
    )
    expect(result.redemptions[0]?.result).toBe('SUCCESS')
    // 40 expiring buckets (half a page, then a page), and the never-expiring ones (half a page).
    expect(rows).toBeLessThanOrEqual(41 + SPEND_PAGE)
    const left = await buckets()
    expect(left.filter((b) => b.expires_at !== null && b.status === 'ACTIVE')).toEqual([])
    // The 500 points of the paid order gave 50 (the order earned a bucket of its own besides).
    expect(left.find((b) => b.expires_at === null && b.points === 500)?.remaining).toBe(500 - 50)
  })

  it('a refused payment reads at most the first page it started early, when the stored balance cannot pay', async () => {
    const { engine, read, fx } = await member(1000)
    const { rows, result } = await counting(read, () =>
      engine.redemptions.redeemStackable({
        redeemables: [{ object: 'voucher', id: fx.card.code, reward: { id: fx.coin.id, points: 20_000 } }],
        order: { amount: 10_000_000 },
        customer: { source_id: 'alice' },
      }),
    )
    expect(result.parent_redemption.result).toBe('FAILURE')
    // The first half page of each order, read beside the request's own reads.
    expect(rows).toBeLessThanOrEqual(SPEND_PAGE)
  })
})
