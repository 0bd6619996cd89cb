import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/memory/memory-store'
import type { Changeset, Store, Write } from '../../../src/storage/ports'
import { amountOffVoucher, testEngine } from '../../support/engine'

/*
 * maintenance.purgeExpired (docs/http.md#housekeeping): what has expired goes, a bounded batch per
 * call, read from `expires_at` indexes; what is live stays, whatever runs at the same time.
 */

const HOUR = 3_600_000
const order = (n: number) => ({ amount: 100 + n })

describe('maintenance.purgeExpired', () => {
  it('deletes expired idempotency records, tokens, session locks and files; leaves live ones', async () => {
    const { engine, store, clock } = testEngine({
      idempotencyTtlSeconds: 3600,
      tokenTtlSeconds: 3600,
      fileRetentionSeconds: 3600,
    })
    const app = await engine.auth.createApplication({ family: 'server' })
    const creds = { 'X-App-Id': app.app_id, 'X-App-Token': app.secret }
    const grant = { grant_type: 'client_credentials', scope: 'api' } as const
    await amountOffVoucher(engine, 'TEN', 100, 10)
    const lock = { redeemables: [{ object: 'voucher' as const, id: 'TEN' }], order: { amount: 1000 } }
    // Old: made now, expired in two hours.
    for (let n = 0; n < 3; n++) await engine.orders.create(order(n), { idempotencyKey: `old${n}` })
    const oldToken = await engine.auth.issueToken(creds, grant)
    await engine.validations.validateStackable({ ...lock, session: { type: 'LOCK', ttl: 1, ttl_unit: 'HOURS' } })
    await engine.exports.create({ exported_object: 'customer' })
    await engine.asyncActions.runPending()
    clock.advance(2 * HOUR)
    // Live: made now.
    await engine.orders.create(order(9), { idempotencyKey: 'new' })
    const newToken = await engine.auth.issueToken(creds, grant)
    await engine.validations.validateStackable({ ...lock, session: { type: 'LOCK', ttl: 1, ttl_unit: 'HOURS' } })
    const fresh = await engine.exports.create({ exported_object: 'customer' })
    await engine.asyncActions.runPending()

    expect(await engine.maintenance.purgeExpired()).toEqual({
      idempotency_keys: 3,
      access_tokens: 1,
      sessions: 1,
      files: 1,
      file_chunks: 1,
      has_more: false,
    })
    expect((await store.idempotency_keys.list()).data.map((r) => r.value.expires_at)).toEqual([
      '2026-01-15T13:00:00.000Z',
    ])
    expect((await store.access_tokens.list()).total).toBe(1)
    expect((await store.sessions.list()).total).toBe(1)
    expect((await store.files.list()).total).toBe(1)
    expect((await store.file_chunks.list()).total).toBe(1)
    // What is left works; a purged token is unknown, as it was expired.
    const bearer = (token: string) => ({ ...creds, Authorization: `Bearer ${token}` })
    await expect(
      engine.auth.authenticate({
        family: 'server',
        headers: bearer(newToken.access_token),
        operation: 'orders.create',
      }),
    ).resolves.toBeDefined()
    await expect(
      engine.auth.authenticate({
        family: 'server',
        headers: bearer(oldToken.access_token),
        operation: 'orders.create',
      }),
    ).rejects.toMatchObject({ code: 401, key: 'invalid_token' })
    const done = await engine.exports.get(fresh.id)
    expect((await engine.files.get(done.result?.url ?? '')).content).toContain('source_id')
    expect(await engine.maintenance.purgeExpired()).toMatchObject({ idempotency_keys: 0, has_more: false })
  })

  it('deletes at most limit records per call (one commit) and says when more are left', async () => {
    const { engine, store, clock } = testEngine({ idempotencyTtlSeconds: 60 })
    for (let n = 0; n < 5; n++) await engine.orders.create(order(n), { idempotencyKey: `k${n}` })
    clock.advance(HOUR)
    expect(await engine.maintenance.purgeExpired({ limit: 3 })).toMatchObject({ idempotency_keys: 3, has_more: true })
    expect(await engine.maintenance.purgeExpired({ limit: 3 })).toMatchObject({ idempotency_keys: 2, has_more: false })
    expect((await store.idempotency_keys.list()).total).toBe(0)
    for (const limit of [0, 1001, 1.5, '10']) {
      await expect(engine.raw.maintenance.purgeExpired({ limit })).rejects.toMatchObject({ code: 400, path: 'limit' })
    }
  })

  it('a file past its retention goes chunk by chunk, its entry with its last chunks', async () => {
    const { engine, store, clock } = testEngine({ fileRetentionSeconds: 60 })
    const writes: Write[] = []
    for (let i = 0; i < 1200; i++) {
      const value = {
        id: `cust_${String(i).padStart(4, '0')}`,
        source_id: `s${i}`,
        created_at: '2026-01-01T00:00:00.000Z',
      }
      writes.push({ op: 'put', collection: 'customers', value, expectedVersion: null } as unknown as Write)
    }
    expect((await store.commit({ writes })).ok).toBe(true)
    await engine.exports.create({ exported_object: 'customer', parameters: { fields: ['id'] } })
    await engine.asyncActions.runPending()
    clock.advance(HOUR)
    expect(await engine.maintenance.purgeExpired({ limit: 2 })).toMatchObject({
      files: 0,
      file_chunks: 2,
      has_more: true,
    })
    expect(await engine.maintenance.purgeExpired({ limit: 2 })).toMatchObject({
      files: 1,
      file_chunks: 1,
      has_more: false,
    })
    expect((await store.files.list()).total + (await store.file_chunks.list()).total).toBe(0)
  })

  it('reads only what it deletes, however many live records there are', async () => {
    const memory = createMemoryStore()
    const { engine, clock } = testEngine({ store: memory, idempotencyTtlSeconds: 60 })
    for (let n = 0; n < 4; n++) await engine.orders.create(order(n), { idempotencyKey: `old${n}` })
    clock.advance(HOUR)
    const live: Write[] = []
    for (let n = 0; n < 2000; n++) {
      const value = {
        id: `idem_live${n}`,
        operation: 'orders.create',
        fingerprint: 'x',
        result_ids: [],
        result_status: null,
        result_extra: null,
        created_at: '2026-01-15T11:00:00.000Z',
        expires_at: '2026-01-16T11:00:00.000Z',
      }
      live.push({ op: 'put', collection: 'idempotency_keys', value, expectedVersion: null } as unknown as Write)
    }
    expect((await memory.commit({ writes: live })).ok).toBe(true)
    const before = memory.stats.rowsExamined
    expect(await engine.maintenance.purgeExpired()).toMatchObject({ idempotency_keys: 4 })
    expect(memory.stats.rowsExamined - before).toBe(4)
  })

  it('a purge racing a replay of a live key: the replay answers the first result, the record stays', async () => {
    const { engine, store, clock } = testEngine({ idempotencyTtlSeconds: 3600 })
    const first = await engine.orders.create(order(1), { idempotencyKey: 'k' })
    clock.advance(HOUR - 1000)
    const [summary, replay] = await Promise.all([
      engine.maintenance.purgeExpired(),
      engine.orders.create(order(1), { idempotencyKey: 'k' }),
    ])
    expect(summary.idempotency_keys).toBe(0)
    expect(replay).toEqual(first)
    expect((await store.idempotency_keys.list()).total).toBe(1)
  })

  for (const first of ['purge', 'reuse'] as const) {
    it(`a purge racing the reuse of an expired key (${first} commits first): one effect, a live record`, async () => {
      const gated = gatedStore(testEngine().store)
      const { engine, store, clock } = testEngine({ store: gated.store, idempotencyTtlSeconds: 60 })
      await engine.orders.create(order(1), { idempotencyKey: 'k' })
      clock.advance(HOUR)
      // Both read the expired record; the one that commits second finds it moved and decides again.
      const isPurge = (c: Changeset) => c.writes.some((w) => w.op === 'delete')
      const isReuse = (c: Changeset) => c.writes.some((w) => w.collection === 'idempotency_keys' && w.op === 'put')
      const hold = gated.hold(first === 'purge' ? isReuse : isPurge)
      const purge = engine.maintenance.purgeExpired()
      const reuse = engine.orders.create(order(2), { idempotencyKey: 'k' })
      await gated.held()
      const firstDone = await (first === 'purge' ? purge : reuse)
      hold.release()
      const [summary, second] = await Promise.all([purge, reuse, firstDone])
      expect(summary.idempotency_keys).toBe(first === 'purge' ? 1 : 0)
      const records = (await store.idempotency_keys.list()).data.map((r) => r.value)
      expect(records).toHaveLength(1)
      expect(records[0]?.expires_at).toBe('2026-01-15T11:01:00.000Z')
      expect(records[0]?.result_ids).toEqual([second.id])
      // The same key and input again now replays the reuse: one effect.
      expect(await engine.orders.create(order(2), { idempotencyKey: 'k' })).toEqual(second)
      expect((await store.orders.list()).data.map((o) => o.value.amount)).toEqual([101, 102])
    })
  }
})

/** A store that holds the first commit matching a predicate until released (the other commits run). */
function gatedStore(inner: Store) {
  let gate: { match: (c: Changeset) => boolean; open: Promise<void>; release: () => void } | undefined
  let reached: () => void = () => {}
  const arrived = new Promise<void>((resolve) => {
    reached = resolve
  })
  const store: Store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop !== 'commit') return Reflect.get(target, prop, receiver)
      return async (changeset: Changeset) => {
        const g = gate
        if (g?.match(changeset)) {
          gate = undefined
          reached()
          await g.open
        }
        return inner.commit(changeset)
      }
    },
  })
  return {
    store,
    hold(match: (c: Changeset) => boolean) {
      let release: () => void = () => {}
      const open = new Promise<void>((resolve) => {
        release = resolve
      })
      gate = { match, open, release }
      return { release }
    },
    held: () => arrived,
  }
}
