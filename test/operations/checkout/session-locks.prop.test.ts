import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Engine } from '../../../src/engine'
import { EngineError } from '../../../src/errors'
import type { MemoryStore } from '../../../src/memory'
import { testEngine } from '../../support/engine'
import { feedMatchesStore } from '../../support/hot-rows'
import { propertyRuns } from '../../support/store'

/*
 * Session locks as a guarded counter (docs/storage.md#session-locks): concurrent locks never pass a
 * code's quantity, and a holder always gets what was reserved for them, however many shoppers without
 * a lock redeem at the same moment.
 */

const order = { amount: 10_000 }

async function code(engine: Engine, quantity: number, id = 'LOCKED') {
  await engine.vouchers.create({
    code: id,
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100 },
    redemption: { quantity },
  })
}

const lock = (engine: Engine, key: string, id = 'LOCKED') =>
  engine.validations.validateStackable({
    customer: { source_id: key },
    order,
    redeemables: [{ object: 'voucher', id }],
    session: { type: 'LOCK', key },
  })

/** A redemption's outcome: `ok`, its failure code, or the key of the error it threw (a 409 shows here). */
async function redeem(engine: Engine, customer: string, key?: string, id = 'LOCKED'): Promise<string> {
  try {
    const r = await engine.redemptions.redeemStackable({
      customer: { source_id: customer },
      order,
      redeemables: [{ object: 'voucher', id }],
      ...(key ? { session: { type: 'LOCK' as const, key } } : {}),
    })
    return r.parent_redemption.result === 'SUCCESS' ? 'ok' : (r.parent_redemption.failure_code ?? 'failure')
  } catch (error) {
    if (error instanceof EngineError) return error.key
    throw error
  }
}

const commitsOf = (store: unknown) => (store as Partial<MemoryStore>).stats?.commits ?? 0

describe('session locks hold under concurrency', () => {
  it('quantity 2, one lock held, two others redeem at once: exactly one succeeds, and the holder still does', async () => {
    const { engine } = testEngine()
    await code(engine, 2)
    expect((await lock(engine, 'holder')).session?.key).toBe('holder')
    const others = await Promise.all([redeem(engine, 'ana'), redeem(engine, 'ben')])
    expect(others.sort()).toEqual(['ok', 'quantity_exceeded'])
    expect(await redeem(engine, 'holder', 'holder')).toBe('ok')
    const voucher = await engine.vouchers.get('LOCKED')
    expect(voucher.redemption.redeemed_quantity).toBe(2)
    // The engine's count of locks is not part of the code as results show it.
    expect('session_locks' in voucher).toBe(false)
  })

  it('the same with reserved gift credits: the holder still gets them', async () => {
    const { engine } = testEngine()
    await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 1000 } })
    const held = await engine.validations.validateStackable({
      order,
      redeemables: [{ object: 'voucher', id: 'GIFT', gift: { credits: 600 } }],
      session: { type: 'LOCK', key: 'holder' },
    })
    expect(held.valid).toBe(true)
    const spend = (key?: string) =>
      engine.redemptions.redeemStackable({
        order,
        redeemables: [{ object: 'voucher', id: 'GIFT', gift: { credits: key ? 600 : 300 } }],
        ...(key ? { session: { type: 'LOCK' as const, key } } : {}),
      })
    const others = await Promise.all([spend(), spend()])
    expect(others.map((r) => r.parent_redemption.result).sort()).toEqual(['FAILURE', 'SUCCESS'])
    expect((await spend('holder')).parent_redemption.result).toBe('SUCCESS')
    expect((await engine.vouchers.get('GIFT')).gift?.balance).toBe(100)
  })

  it('500 concurrent LOCK validations on a quantity-10 code: exactly 10 locks, and all 10 holders redeem', async () => {
    const { engine, store } = testEngine()
    await code(engine, 10)
    const keys = Array.from({ length: 500 }, (_, i) => `s${i}`)
    const commits = commitsOf(store)
    const validated = await Promise.all(keys.map((k) => lock(engine, k)))
    const holders = keys.filter((_, i) => validated[i]?.session !== undefined)
    expect(holders).toHaveLength(10)
    expect(validated.filter((v) => v.valid)).toHaveLength(10)
    if ('stats' in store) expect(commitsOf(store) - commits).toBeLessThanOrEqual(Math.ceil(1.2 * 500))
    const live = await store.sessions.list({ where: { released_at: null } })
    expect(live.data).toHaveLength(10)
    // Holders and 100 shoppers without a lock, all at once.
    const outcomes = await Promise.all([
      ...holders.map((k) => redeem(engine, k, k)),
      ...Array.from({ length: 100 }, (_, i) => redeem(engine, `walk-in-${i}`)),
    ])
    expect(outcomes.slice(0, 10)).toEqual(Array(10).fill('ok'))
    expect(outcomes.slice(10).every((o) => o === 'quantity_exceeded')).toBe(true)
    expect((await engine.vouchers.get('LOCKED')).redemption.redeemed_quantity).toBe(10)
    await feedMatchesStore(store)
  }, 60_000)

  it('N LOCK validations by distinct sessions grant min(N, Q) locks; then holders and others redeem at once: every holder succeeds, at most Q redeemed, no 409, ≤ 1.2 commits per request', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 0, max: 40 }),
        async (n, q, walkIns) => {
          const { engine, store } = testEngine()
          await code(engine, q)
          const keys = Array.from({ length: n }, (_, i) => `s${i}`)
          let commits = commitsOf(store)
          const validated = await Promise.all(keys.map((k) => lock(engine, k)))
          const holders = keys.filter((_, i) => validated[i]?.session !== undefined)
          expect(holders).toHaveLength(Math.min(n, q))
          if ('stats' in store) expect(commitsOf(store) - commits).toBeLessThanOrEqual(Math.ceil(1.2 * n))
          commits = commitsOf(store)
          const outcomes = await Promise.all([
            ...holders.map((k) => redeem(engine, k, k)),
            ...Array.from({ length: walkIns }, (_, i) => redeem(engine, `walk-in-${i}`)),
          ])
          const requests = holders.length + walkIns
          if ('stats' in store) expect(commitsOf(store) - commits).toBeLessThanOrEqual(Math.ceil(1.2 * requests))
          expect(outcomes.slice(0, holders.length).every((o) => o === 'ok')).toBe(true)
          expect(outcomes.filter((o) => o !== 'ok' && o !== 'quantity_exceeded')).toEqual([])
          const redeemed = (await engine.vouchers.get('LOCKED')).redemption.redeemed_quantity
          expect(redeemed).toBe(Math.min(q, holders.length + walkIns))
          expect(outcomes.filter((o) => o === 'ok')).toHaveLength(redeemed)
        },
      ),
      { numRuns: propertyRuns(30) },
    )
  }, 120_000)
})

describe('expired locks', () => {
  it('stop counting at their expiry: a request the count would refuse releases them first', async () => {
    const { engine, clock, store } = testEngine()
    await code(engine, 2)
    await engine.validations.validateStackable({
      order,
      redeemables: [{ object: 'voucher', id: 'LOCKED' }],
      session: { type: 'LOCK', key: 'short', ttl: 1, ttl_unit: 'HOURS' },
    })
    await lock(engine, 'long')
    expect(await redeem(engine, 'ana')).toBe('quantity_exceeded')
    clock.advance(3_600_000)
    // The short lock has expired: its use is free again, and the redemption releases it.
    expect(await redeem(engine, 'ana')).toBe('ok')
    const short = (await store.sessions.list({ where: { key: 'short' } })).data[0]
    expect(short?.value.released_at).toBe(clock.now().toISOString())
    expect(await redeem(engine, 'ben')).toBe('quantity_exceeded')
    expect(await redeem(engine, 'long', 'long')).toBe('ok')
  })

  it('the purge releases the rest: a purged lock leaves its code’s count', async () => {
    const { engine, clock, store } = testEngine()
    await code(engine, 1)
    await engine.validations.validateStackable({
      order,
      redeemables: [{ object: 'voucher', id: 'LOCKED' }],
      session: { type: 'LOCK', key: 'gone', ttl: 1, ttl_unit: 'MINUTES' },
    })
    clock.advance(120_000)
    const purged = await engine.maintenance.purgeExpired()
    expect(purged.sessions).toBe(1)
    const stored = await store.vouchers.findBy('code', 'LOCKED')
    expect(stored?.value.session_locks?.count).toBe(0)
    expect(await redeem(engine, 'ana')).toBe('ok')
  })

  it('a validation reads its own lock by key, never the live locks of the code', async () => {
    const { engine, store } = testEngine()
    await code(engine, 1000)
    for (let i = 0; i < 50; i++) await lock(engine, `s${i}`)
    const memory = store as Partial<MemoryStore>
    // Rows examined are the memory store's count; on PostgreSQL the flat-cost bench measures it.
    if (memory.stats?.rowsExamined === undefined) return
    const before = memory.stats.rowsExamined
    await lock(engine, 'mine')
    const read = memory.stats.rowsExamined - before
    for (let i = 50; i < 100; i++) await lock(engine, `s${i}`)
    const later = memory.stats.rowsExamined
    await lock(engine, 'mine')
    // The same rows read with 50 or 100 live locks on the code (the second time, its own lock once more).
    expect(memory.stats.rowsExamined - later).toBeLessThanOrEqual(read + 1)
  })
})

describe('locks stored before codes counted them', () => {
  it('the backfill counts the live ones, once, and a holder of one then gets what it reserved', async () => {
    const { engine, store, clock } = testEngine()
    await code(engine, 2)
    const voucher = await store.vouchers.findBy('code', 'LOCKED')
    const id = voucher?.value.id as string
    const old = (key: string, expires: string) => ({
      op: 'put' as const,
      collection: 'sessions' as const,
      expectedVersion: null,
      // A lock row as stored before the counters: a random id, no `counted`.
      value: {
        id: `ssn_old_${key}`,
        key,
        voucher_id: id,
        promotion_tier_id: null,
        type: 'LOCK' as const,
        ttl: 7,
        ttl_unit: 'DAYS' as const,
        credits: 0,
        points: 0,
        expires_at: expires,
        created_at: clock.now().toISOString(),
        released_at: null,
      },
    })
    const written = await store.commit({
      writes: [old('kept', '2026-01-20T00:00:00.000Z'), old('gone', '2026-01-01T00:00:00.000Z')],
    })
    expect(written.ok).toBe(true)
    const first = await engine.maintenance.backfillSessionLocks({ limit: 1 })
    const rest = await engine.maintenance.backfillSessionLocks({ starting_after: first.next_starting_after ?? '' })
    expect(first.filled + rest.filled).toBe(1)
    expect(rest.next_starting_after).toBeNull()
    // Run again: nothing counted twice.
    expect((await engine.maintenance.backfillSessionLocks()).filled).toBe(0)
    expect((await store.vouchers.get(id))?.value.session_locks?.count).toBe(1)
    // One use left besides the old lock: two others at once get one, the holder still redeems.
    const others = await Promise.all([redeem(engine, 'ana'), redeem(engine, 'ben')])
    expect(others.sort()).toEqual(['ok', 'quantity_exceeded'])
    expect(await redeem(engine, 'kept', 'kept')).toBe('ok')
    expect((await store.vouchers.get(id))?.value.session_locks?.count).toBe(0)
  })
})
