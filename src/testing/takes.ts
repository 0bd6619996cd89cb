import assert from 'node:assert/strict'
import type { Store, Write } from '../storage/ports'
import { commitConflict, commitOk, insert, mustGet, put, repo, voucher } from './fixtures'

/*
 * Storage contract: a `take` spends a card's points at commit, in spending order
 * (docs/storage.md#taking-points). The store picks the buckets, so concurrent spends of one card
 * need no bucket read and no second round: the card's guarded balance serialises them, and each
 * take sees what the one before it took.
 */

const NOW = '2026-03-01T00:00:00.000Z'

function bucket(
  id: string,
  card: string,
  remaining: number,
  expires: string | null,
  extra: Record<string, unknown> = {},
) {
  return {
    id,
    voucher_id: card,
    status: 'ACTIVE',
    points: remaining,
    remaining,
    expired: 0,
    expires_at: expires,
    created_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  }
}

const spend = (card: string, amount: number): Write => ({
  op: 'increment',
  collection: 'vouchers',
  id: card,
  by: { 'loyalty_card.balance': -amount },
  guard: { 'loyalty_card.balance': { min: 0 } },
})

const take = (card: string, amount: number, record?: string): Write => ({
  op: 'take',
  collection: 'points_buckets',
  id: card,
  amount,
  now: NOW,
  ...(record ? { record: { collection: 'redemptions', id: record, path: 'points_taken' } } : {}),
})

const remaining = async (store: Store, id: string) =>
  (await mustGet(store, 'points_buckets', id)).value as { remaining: number; status: string }

export async function takesInSpendingOrder(store: Store): Promise<void> {
  await insert(store, 'vouchers', voucher('v_card', 'CARD', { loyalty_card: { balance: 75 } }))
  // Spending order: b_soon (April), b_late (May), b_tie_a then b_tie_b (never, same creation: by id),
  // b_never (never, created later); b_past expired already, b_other is another card's.
  for (const b of [
    bucket('b_never', 'v_card', 10, null, { created_at: '2026-02-01T00:00:00.000Z' }),
    bucket('b_tie_b', 'v_card', 10, null),
    bucket('b_late', 'v_card', 20, '2026-05-01T00:00:00.000Z'),
    bucket('b_soon', 'v_card', 10, '2026-04-01T00:00:00.000Z'),
    bucket('b_tie_a', 'v_card', 10, null),
    bucket('b_past', 'v_card', 15, '2026-02-01T00:00:00.000Z'),
    bucket('b_other', 'v_other', 50, '2026-03-15T00:00:00.000Z'),
  ])
    await insert(store, 'points_buckets', b)
  const before = await store.changes()
  const versions = await commitOk(store, [
    put('redemptions', { id: 'r_1', object: 'redemption', created_at: NOW }, null),
    spend('v_card', 35),
    take('v_card', 35, 'r_1'),
  ])
  assert.deepEqual(await remaining(store, 'b_soon'), {
    ...bucket('b_soon', 'v_card', 10, '2026-04-01T00:00:00.000Z'),
    remaining: 0,
    status: 'SPENT',
  })
  assert.equal((await remaining(store, 'b_late')).remaining, 0)
  assert.equal((await remaining(store, 'b_late')).status, 'SPENT')
  assert.deepEqual(await remaining(store, 'b_tie_a'), { ...bucket('b_tie_a', 'v_card', 10, null), remaining: 5 })
  assert.equal((await remaining(store, 'b_tie_b')).remaining, 10, 'ties by creation, then by id')
  assert.equal((await remaining(store, 'b_past')).remaining, 15, 'an expired bucket is not spent')
  assert.equal((await remaining(store, 'b_other')).remaining, 50, "another card's bucket is not spent")
  assert.equal(versions['points_buckets/b_soon'], 2, 'every bucket taken from gets a new version, reported')
  assert.equal(versions['points_buckets/b_tie_a'], 2)
  assert.equal(versions['points_buckets/b_tie_b'], undefined)
  assert.equal(versions['redemptions/r_1'], 1, 'the record keeps the version its write gives it')
  const record = await mustGet(store, 'redemptions', 'r_1')
  assert.equal(record.version, 1)
  assert.deepEqual((record.value as { points_taken: unknown }).points_taken, [
    { bucketId: 'b_soon', points: 10 },
    { bucketId: 'b_late', points: 20 },
    { bucketId: 'b_tie_a', points: 5 },
  ])
  // The feed holds each entity once, as stored.
  const feed = await store.changes({ after: before.next_after })
  const slots = feed.data.map((c) => `${c.collection}/${c.id}`).sort()
  assert.deepEqual(slots, [
    'points_buckets/b_late',
    'points_buckets/b_soon',
    'points_buckets/b_tie_a',
    'redemptions/r_1',
    'vouchers/v_card',
  ])
  for (const c of feed.data) {
    const stored = await mustGet(store, c.collection, c.id)
    assert.deepEqual(
      [c.version, c.value],
      [stored.version, stored.value],
      `${c.collection}/${c.id} in the feed as stored`,
    )
  }

  // Too few spendable points (15 expired ones do not count): a guard conflict on the card, nothing written.
  const left = await store.changes()
  const short = await commitConflict(store, [spend('v_card', 30), take('v_card', 30)])
  assert.deepEqual(short, {
    collection: 'points_buckets',
    id: 'v_card',
    reason: 'guard',
    guard: { path: 'remaining', value: -5, min: 0 },
  })
  assert.equal((await store.changes({ after: left.next_after })).data.length, 0, 'a short take writes nothing')
  assert.equal((await remaining(store, 'b_tie_a')).remaining, 5)
  // Buckets the changeset itself writes are taken from as it leaves them.
  await commitOk(store, [
    put('points_buckets', bucket('b_new', 'v_card', 5, '2026-03-10T00:00:00.000Z'), null),
    take('v_card', 7),
  ])
  assert.deepEqual(
    [(await remaining(store, 'b_new')).remaining, (await remaining(store, 'b_new')).status],
    [0, 'SPENT'],
  )
  assert.equal((await remaining(store, 'b_tie_a')).remaining, 3)
  assert.equal((await repo(store, 'points_buckets').get('b_new'))?.version, 2)

  // Buckets of one expiry: the older first, then by id (the index's order, whatever the ids say).
  await insert(store, 'vouchers', voucher('v_day', 'DAYCARD', { loyalty_card: { balance: 15 } }))
  for (const [id, created] of [
    ['d_a', '2026-01-03T00:00:00.000Z'],
    ['d_c', '2026-01-02T00:00:00.000Z'],
    ['d_b', '2026-01-02T00:00:00.000Z'],
  ] as const)
    await insert(store, 'points_buckets', bucket(id, 'v_day', 5, '2026-04-01T00:00:00.000Z', { created_at: created }))
  await commitOk(store, [
    put('redemptions', { id: 'r_day', object: 'redemption', created_at: NOW }, null),
    spend('v_day', 7),
    take('v_day', 7, 'r_day'),
  ])
  assert.deepEqual(((await mustGet(store, 'redemptions', 'r_day')).value as { points_taken: unknown }).points_taken, [
    { bucketId: 'd_b', points: 5 },
    { bucketId: 'd_c', points: 2 },
  ])
}

/** Concurrent spends of one card: each takes what the previous one left, all land while the points last. */
export async function concurrentTakes(store: Store, n: number): Promise<void> {
  const buckets = Math.ceil(n / 2)
  await insert(store, 'vouchers', voucher('v_hot', 'HOTCARD', { loyalty_card: { balance: 2 * buckets } }))
  for (let i = 0; i < buckets; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0')
    await insert(
      store,
      'points_buckets',
      bucket(`b_${String(i).padStart(4, '0')}`, 'v_hot', 2, `2026-04-${day}T00:00:00.000Z`),
    )
  }
  const results = await Promise.all(
    Array.from({ length: n + 2 }, (_, i) =>
      store.commit({
        writes: [
          put('redemptions', { id: `r_${i}`, object: 'redemption', created_at: NOW }, null),
          spend('v_hot', 1),
          take('v_hot', 1, `r_${i}`),
        ],
      }),
    ),
  )
  const ok = results.filter((r) => r.ok).length
  assert.equal(ok, Math.min(n + 2, 2 * buckets), 'every spend the points cover commits at once')
  for (const r of results) if (!r.ok) assert.equal(r.conflict.reason, 'guard')
  const card = (await mustGet(store, 'vouchers', 'v_hot')).value as { loyalty_card: { balance: number } }
  const page = await repo(store, 'points_buckets').list({ where: { voucher_id: 'v_hot' }, limit: 1000 })
  const rows = page.data.map((s) => s.value as { remaining: number; status: string })
  assert.equal(
    rows.reduce((sum, b) => sum + b.remaining, 0),
    card.loyalty_card.balance,
    "the buckets hold the card's balance",
  )
  assert.ok(rows.every((b) => b.remaining >= 0 && (b.remaining === 0) === (b.status === 'SPENT')))
  let taken = 0
  for (let i = 0; i < n + 2; i++) {
    const r = await repo(store, 'redemptions').get(`r_${i}`)
    if (r)
      taken += ((r.value as { points_taken: { points: number }[] }).points_taken ?? []).reduce(
        (s, p) => s + p.points,
        0,
      )
  }
  assert.equal(taken, ok, 'each record names what its take took')
}
