import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { createPostgresStore, type PoolLike, type QueryResultLike } from '../../src/postgres'
import { manualClock } from '../support/engine'
import { emptySchema, useClonedPool } from './database'

/*
 * The commit on PostgreSQL (docs/postgres.md#commit): what a one-line redemption writes, listed and
 * counted (no speed may come from skipping work); guards bounded by a stored field; the change feed
 * without a row every commit takes (a reader never misses a late commit).
 */

const db = useClonedPool(4)

/** A pool that keeps every query it sends: the commit's payload is the changeset as the server applies it. */
function recordingPool(inner: pg.Pool) {
  const sent: { text: string; values?: unknown[] }[] = []
  const record = <R>(run: (text: string, values?: unknown[]) => Promise<unknown>) => {
    return (text: string, values?: unknown[]) => {
      sent.push({ text, ...(values ? { values } : {}) })
      return run(text, values) as Promise<QueryResultLike<R>>
    }
  }
  const pool: PoolLike = {
    query: <R>(text: string, values?: unknown[]) => record<R>((t, v) => inner.query(t, v))(text, values),
    async connect() {
      const client = await inner.connect()
      return {
        query: <R>(text: string, values?: unknown[]) => record<R>((t, v) => client.query(t, v))(text, values),
        release: (error?: Error | boolean) => client.release(error),
      }
    },
    end: () => inner.end(),
  }
  return { pool, sent }
}

interface StepSent {
  c: string
  rows: { op: string; id: string }[]
}

/** The writes of the last commit sent, as `collection op` per entity, and the feed position it got. */
function writesOf(sent: { text: string; values?: unknown[] }[]): string[] {
  const commit = sent.filter((q) => q.text.includes('pe_commit(')).at(-1)
  const payload = JSON.parse(String(commit?.values?.[0])) as { steps: StepSent[] }
  return payload.steps.flatMap((s) => s.rows.map((r) => `${s.c} ${r.op}`))
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

    sent.length = 0
    const feedBefore = await store.changes({ limit: 1_000_000 })
    sent.length = 0
    const result = await engine.raw.redemptions.redeemStackable(body)
    expect(result.parent_redemption.result).toBe('SUCCESS')
    const writes = writesOf(sent)
    const redemptionQueries = sent.length
    // Three activities (redemption succeeded, voucher redeemed, order created), eight counter rows
    // (the code's, the campaign's, the customer's: docs/storage.md#counters), the order, the parent and
    // child redemptions, and the code's redeemed quantity, guarded: 15 writes in 5 steps.
    expect(writes).toEqual([
      ...Array(3).fill('activities ins'),
      ...Array(8).fill('counters inc'),
      'orders ins',
      'redemptions ins',
      'redemptions ins',
      'vouchers inc',
    ])
    const feed = await store.changes({ after: feedBefore.next_after, limit: 1_000_000 })
    // One change per entity written, all of one commit (one sequence number).
    expect(new Set(feed.data.map((c) => c.seq)).size).toBe(1)
    expect(feed.data.map((c) => `${c.collection} ${c.op} v${c.version}`).sort()).toEqual([
      ...Array(3).fill('activities put v1'),
      ...Array(8).fill('counters put v2'),
      'orders put v1',
      'redemptions put v1',
      'redemptions put v1',
      'vouchers put v3',
    ])
    console.log(JSON.stringify(sent.map((q) => [q.text.slice(0, 160), q.values]), null, 1))
    expect({ validationQueries, redemptionQueries }).toEqual({ validationQueries: 0, redemptionQueries: 0 })
  })
})
