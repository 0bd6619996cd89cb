import { describe, expect, it } from 'vitest'
import type { MemoryStore } from '../../../src/memory'
import { lockId } from '../../../src/operations/checkout/session-locks'
import { testEngine } from '../../support/engine'

/*
 * A code removed from the store while a session holds a live lock on it (docs/storage.md#session-locks):
 * its counter went with it, so releasing or purging that lock marks or deletes the row and moves no
 * counter, and the session's other codes still redeem.
 */

type T = ReturnType<typeof testEngine>

const order = { amount: 10_000 }

async function code(t: T, id: string) {
  return t.engine.vouchers.create({
    code: id,
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100 },
    redemption: { quantity: 5 },
  })
}

const lock = (t: T, key: string, id: string) =>
  t.engine.validations.validateStackable({
    customer: { source_id: 'ana' },
    order,
    redeemables: [{ object: 'voucher', id }],
    session: { type: 'LOCK', key, ttl: 1, ttl_unit: 'HOURS' },
  })

/** Deletes a code's row as a host's own tooling would. */
async function remove(t: T, id: string) {
  const stored = await t.store.vouchers.get(id)
  const done = await t.store.commit({
    writes: [{ op: 'delete', collection: 'vouchers', id, expectedVersion: stored?.version ?? 0 }],
  })
  expect(done.ok).toBe(true)
}

describe('locks of a deleted code', () => {
  it('a redemption with the session key releases them with its other locks, in one commit', async () => {
    const t = testEngine()
    const gone = await code(t, 'GONE')
    const kept = await code(t, 'KEPT')
    expect((await lock(t, 'ssn-1', 'GONE')).session).toBeDefined()
    expect((await lock(t, 'ssn-1', 'KEPT')).session).toBeDefined()
    await remove(t, gone.id)
    const commits = (t.store as MemoryStore).stats.commits
    const r = await t.engine.redemptions.redeemStackable({
      customer: { source_id: 'ana' },
      order,
      redeemables: [{ object: 'voucher', id: 'KEPT' }],
      session: { type: 'LOCK', key: 'ssn-1' },
    })
    expect(r.parent_redemption.result).toBe('SUCCESS')
    expect((t.store as MemoryStore).stats.commits - commits).toBe(1)
    const rows = await t.store.sessions.getMany([lockId(gone.id, 'ssn-1'), lockId(kept.id, 'ssn-1')])
    expect(rows.map((s) => s.value.released_at !== null)).toEqual([true, true])
    const after = await t.store.vouchers.get(kept.id)
    expect(after?.value.session_locks?.count).toBe(0)
    expect(after?.value.redemption.redeemed_quantity).toBe(1)
    expect(await t.store.vouchers.get(gone.id)).toBeUndefined()
  })

  it('the purge deletes an expired lock of a deleted code and moves no counter', async () => {
    const t = testEngine()
    const gone = await code(t, 'GONE')
    await lock(t, 'ssn-2', 'GONE')
    await remove(t, gone.id)
    t.clock.advance(2 * 3_600_000)
    const purged = await t.engine.maintenance.purgeExpired()
    expect(purged.sessions).toBe(1)
    expect(await t.store.sessions.get(lockId(gone.id, 'ssn-2'))).toBeUndefined()
    expect(await t.store.vouchers.get(gone.id)).toBeUndefined()
  })
})
