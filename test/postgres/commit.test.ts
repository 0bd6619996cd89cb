import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { createPostgresStore, type PoolLike, type QueryConfigLike, type QueryResultLike } from '../../src/postgres'
import { manualClock } from '../support/engine'
import { emptySchema, useClonedPool } from './database'

/*
 * The commit on PostgreSQL (docs/postgres.md#commit): what a one-line redemption writes, listed and
 * counted (no speed may come from skipping work); guards bounded by a stored field; the change feed
 * numbered in commit order (a reader never misses a late commit).
 */

const db = useClonedPool(4)

/** A pool that keeps every query it sends: the commit's payload is the changeset as the server applies it. */
function recordingPool(inner: pg.Pool) {
  const sent: { text: string; values?: unknown[] }[] = []
  const record = (q: string | QueryConfigLike, values?: unknown[]) => {
    const config = typeof q === 'string' ? { text: q, ...(values ? { values } : {}) } : q
    sent.push({ text: config.text, ...(config.values ? { values: config.values } : {}) })
    return config
  }
  const pool: PoolLike = {
    query: <R>(q: string | QueryConfigLike, values?: unknown[]) =>
      inner.query(record(q, values)) as unknown as Promise<QueryResultLike<R>>,
    async connect() {
      const client = await inner.connect()
      return {
        query: <R>(q: string | QueryConfigLike, values?: unknown[]) =>
          client.query(record(q, values)) as unknown as Promise<QueryResultLike<R>>,
        release: (error?: Error | boolean) => client.release(error),
      }
    },
    end: () => inner.end(),
  }
  return { pool, sent }
}

interface StepSent {
  c: string
  rows: { op: string; id: string; n?: number }[]
}

/** The last commit sent, as the function takes it. */
function payloadOf(sent: { text: string; values?: unknown[] }[]): { steps: StepSent[]; uk?: string[] } {
  const commit = sent.filter((q) => q.text.includes('pe_commit(')).at(-1)
  return JSON.parse(String(commit?.values?.[0])) as { steps: StepSent[]; uk?: string[] }
}

/** The last commit sent, as the function applies it: its steps. */
function stepsOf(sent: { text: string; values?: unknown[] }[]): StepSent[] {
  return payloadOf(sent).steps
}

/** The writes of the last commit sent, as `collection op` per write (an increment merged into another counts). */
function writesOf(sent: { text: string; values?: unknown[] }[]): string[] {
  return stepsOf(sent).flatMap((s) => s.rows.flatMap((r) => Array(r.n ?? 1).fill(`${s.c} ${r.op}`)))
}

describe.sequential('the commit on PostgreSQL', () => {
  it('a one-line redemption: its writes and change-feed rows, listed and counted; queries per operation', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const { pool, sent } = recordingPool(db.pool)
    const store = createPostgresStore({ pool })
    const engine = createEngine({ store, clock: manualClock(), random: seededRandom(1) })
    await engine.raw.vouchers.create({
      code: 'ONE',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      redemption: { quantity: 1000 },
    })
    const body = {
      redeemables: [{ object: 'voucher' as const, id: 'ONE' }],
      order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
      customer: { source_id: 'shopper' },
    }
    // The first redemption creates the customer; the second is the steady state measured.
    await engine.raw.redemptions.redeemStackable(body)

    sent.length = 0
    const validation = await engine.raw.validations.validateStackable(body)
    expect(validation.valid).toBe(true)
    // A validation without a session: one activity appended, no version check, no lock of another row.
    expect(writesOf(sent)).toEqual(['activities ins'])
    const validationQueries = sent.length
    // Internal reads count nothing (docs/postgres.md#loads): no count(*) on the request's path.
    expect(sent.filter((q) => q.text.includes('count(*)'))).toEqual([])
    // No natural key changed: no unique check runs (docs/postgres.md#commit).
    expect(payloadOf(sent).uk).toBeUndefined()

    sent.length = 0
    const feedBefore = await store.changes({ limit: 1_000_000 })
    sent.length = 0
    const result = await engine.raw.redemptions.redeemStackable(body)
    expect(result.parent_redemption.result).toBe('SUCCESS')
    const writes = writesOf(sent)
    const steps = stepsOf(sent)
    const redemptionQueries = sent.length
    expect(sent.filter((q) => q.text.includes('count(*)'))).toEqual([])
    // Only the new order's natural key is checked at the end.
    expect(payloadOf(sent).uk).toEqual(['orders'])
    // Three activities (redemption succeeded, voucher redeemed, order created), the order, the parent
    // and child redemptions; then the counter rows (docs/storage.md#counters): the code's redemptions
    // (r:) in total, per day, week and month, the customer's summary (cs:, twice: its redemption and
    // its order) and, guarded, the customer's redemptions of the code (rc:); last the code's redeemed
    // quantity, guarded: 17 writes.
    expect(writes).toEqual([
      ...Array(3).fill('activities ins'),
      'orders ins',
      'redemptions ins',
      'redemptions ins',
      ...Array(10).fill('counters inc'),
      'vouchers inc',
    ])
    // As applied: the summary's two increments as one row write (docs/postgres.md#commit), 16 rows in
    // 5 steps (activities, orders, redemptions inserted; counters, then the code, by guarded upserts).
    expect(steps.map((s) => `${s.c} ${s.rows.length}`)).toEqual([
      'activities 3',
      'orders 1',
      'redemptions 2',
      'counters 9',
      'vouchers 1',
    ])
    const feed = await store.changes({ after: feedBefore.next_after, limit: 1_000_000 })
    // One change per entity written (the summary counter once, at its last write), all of one commit.
    expect(new Set(feed.data.map((c) => c.seq)).size).toBe(1)
    const perCollection = (list: string[]) =>
      list.reduce<Record<string, number>>((n, c) => Object.assign(n, { [c]: (n[c] ?? 0) + 1 }), {})
    expect(perCollection(feed.data.map((c) => `${c.collection} ${c.op}`))).toEqual({
      'activities put': 3,
      'orders put': 1,
      'redemptions put': 2,
      'counters put': 9,
      'vouchers put': 1,
    })
    expect(
      feed.data
        .filter((c) => c.version === 1)
        .map((c) => c.collection)
        .sort(),
    ).toEqual([...Array(3).fill('activities'), 'orders', 'redemptions', 'redemptions'])
    // Each level of reads is one statement (docs/postgres.md#loads): two levels, then the commit.
    expect({ validationQueries, redemptionQueries }).toEqual({ validationQueries: 3, redemptionQueries: 3 })
  })
  it('a guard bounded by a stored field (maxOf) and by other fields added to it (plus)', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    const seed = await store.commit({
      writes: [
        {
          op: 'put',
          collection: 'counters',
          value: { id: 'c1', used: 0, held: 2, cap: { quantity: 5 } } as never,
          expectedVersion: null,
        },
      ],
    })
    expect(seed.ok).toBe(true)
    const take = (by: number) =>
      store.commit({
        writes: [
          {
            op: 'increment',
            collection: 'counters',
            id: 'c1',
            by: { used: by },
            guard: { used: { maxOf: 'cap.quantity', plus: ['held'] } },
          },
        ],
      })
    // used + held ≤ cap.quantity: 0 + 3 + 2 fits, one more does not.
    expect((await take(3)).ok).toBe(true)
    const refused = await take(1)
    expect(refused).toEqual({
      ok: false,
      conflict: {
        collection: 'counters',
        id: 'c1',
        reason: 'guard',
        guard: { path: 'used', value: 6, maxOf: 'cap.quantity', plus: ['held'], max: 5 },
      },
    })
    // The bound is read as stored at commit: raised, the next increment fits.
    await store.commit({
      writes: [{ op: 'increment', collection: 'counters', id: 'c1', by: {}, set: { 'cap.quantity': 6 } }],
    })
    expect((await take(1)).ok).toBe(true)
    // A missing bound is no bound.
    await store.commit({
      writes: [{ op: 'increment', collection: 'counters', id: 'c1', by: {}, set: { cap: null } }],
    })
    expect((await take(100)).ok).toBe(true)
  })

  it('the change feed: numbers in commit order; a commit after an open one waits for it, none appears late', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    const client = await db.pool.connect()
    const put = (id: string) => ({
      writes: [
        {
          op: 'put' as const,
          collection: 'categories' as const,
          value: { id, name: id } as never,
          expectedVersion: null,
        },
      ],
    })
    try {
      // A host's transaction commits twice and stays open: it holds the feed's counter.
      await client.query('BEGIN')
      const host = createPostgresStore({ client })
      const late = await host.commit(put('late'))
      const second = await host.commit(put('late2'))
      expect(late.ok && second.ok && second.seq > late.seq).toBe(true)
      // Another commit queues behind it; a reader meanwhile sees nothing, so its cursor skips nothing.
      const early = store.commit(put('early'))
      const before = await store.changes()
      expect(before).toEqual({ data: [], has_more: false, next_after: 0 })
      await client.query('COMMIT')
      const queued = await early
      expect(queued.ok).toBe(true)
      const after = await store.changes({ after: before.next_after })
      expect(after.data.map((c) => c.id)).toEqual(['late', 'late2', 'early'])
      expect(after.data.map((c) => c.seq)).toEqual([
        late.ok && late.seq,
        second.ok && second.seq,
        queued.ok && queued.seq,
      ])
    } finally {
      client.release()
    }
  })
})
