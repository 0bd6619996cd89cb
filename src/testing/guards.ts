import assert from 'node:assert/strict'
import type { CommitResult, Store, Write } from '../storage/ports'
import { commitConflict, commitOk, insert, mustGet, put, repo, voucher } from './fixtures'

/*
 * Storage contract: guarded increments and counter rows (docs/storage.md#counters). A guard bounds a
 * field after the increment; a failed guard writes nothing and reports the value it found, so the
 * operation can re-decide into a business answer instead of retrying blindly.
 */

const use = (id: string, max: number): Write => ({
  op: 'increment',
  collection: 'vouchers',
  id,
  by: { 'redemption.redeemed_quantity': 1 },
  guard: { 'redemption.redeemed_quantity': { max } },
})

export async function guardedIncrements(store: Store): Promise<void> {
  await insert(store, 'vouchers', voucher('v_q', 'Q', { redemption: { redeemed_quantity: 1, quantity: 2 } }))
  const ok = await store.commit({ writes: [use('v_q', 2)] })
  assert.ok(ok.ok, 'an increment within its guard commits')
  assert.deepEqual(
    (ok.values['vouchers/v_q'] as { redemption: unknown }).redemption,
    { redeemed_quantity: 2, quantity: 2 },
    'a commit returns the value after its increments',
  )
  const before = await mustGet(store, 'vouchers', 'v_q')
  const conflict = await commitConflict(store, [put('vouchers', voucher('v_other', 'OTHER'), null), use('v_q', 2)])
  assert.equal(conflict.reason, 'guard')
  assert.equal(conflict.id, 'v_q')
  assert.deepEqual(conflict.guard, { path: 'redemption.redeemed_quantity', value: 3, max: 2 })
  assert.deepEqual(await mustGet(store, 'vouchers', 'v_q'), before, 'a failed guard writes nothing')
  assert.equal(await repo(store, 'vouchers').get('v_other'), undefined, 'nor any other write of the changeset')

  // A floor: a balance may not go below zero.
  await insert(store, 'vouchers', voucher('v_gift', 'GIFT', { gift: { balance: 500 } }))
  const spend = (x: number): Write & { op: 'increment' } => ({
    op: 'increment',
    collection: 'vouchers',
    id: 'v_gift',
    by: { 'gift.balance': -x },
    guard: { 'gift.balance': { min: 0 } },
  })
  assert.equal((await commitConflict(store, [spend(501)])).guard?.value, -1)
  await commitOk(store, [{ ...spend(500), set: { updated_at: '2026-02-01T00:00:00.000Z', 'gift.note': 'spent' } }])
  const spent = (await mustGet(store, 'vouchers', 'v_gift')).value as { updated_at: string; gift: { note: string } }
  assert.equal(spent.updated_at, '2026-02-01T00:00:00.000Z', 'set assigns fields with the increment')
  assert.equal(spent.gift.note, 'spent')
  assert.equal(((await mustGet(store, 'vouchers', 'v_gift')).value as { gift: { balance: number } }).gift.balance, 0)
}

export async function counterUpserts(store: Store): Promise<void> {
  const bump = (by: number, max?: number): Write => ({
    op: 'increment',
    collection: 'counters',
    id: 'redemptions:v_1:2026-01-01',
    by: { count: 1, amount: by },
    ...(max === undefined ? {} : { guard: { count: { max } } }),
    create: { kind: 'redemptions' },
  })
  const first = await store.commit({ writes: [bump(700)] })
  assert.ok(first.ok, 'the first increment of a counter creates it')
  assert.deepEqual(first.values['counters/redemptions:v_1:2026-01-01'], {
    id: 'redemptions:v_1:2026-01-01',
    kind: 'redemptions',
    count: 1,
    amount: 700,
  })
  assert.equal(first.versions['counters/redemptions:v_1:2026-01-01'], 1)
  await commitOk(store, [bump(300, 2)])
  assert.equal((await commitConflict(store, [bump(1, 2)])).reason, 'guard')
  const stored = await mustGet(store, 'counters', 'redemptions:v_1:2026-01-01')
  assert.deepEqual(stored, {
    value: { id: 'redemptions:v_1:2026-01-01', kind: 'redemptions', count: 2, amount: 1000 },
    version: 2,
    shape: 1,
  })
  // A guard on a counter that does not exist yet is checked against its first value.
  const fresh: Write = {
    op: 'increment',
    collection: 'counters',
    id: 'c_new',
    by: { count: 5 },
    guard: { count: { max: 4 } },
    create: {},
  }
  assert.equal((await commitConflict(store, [fresh])).reason, 'guard')
  assert.equal(await repo(store, 'counters').get('c_new'), undefined)
}

/**
 * `unset` removes top-level fields after the additions: a counter's stale period fields
 * (docs/storage.md#counters). Removing an absent field does nothing, so concurrent removals all land,
 * and a field removed then added again in the same changeset is there.
 */
export async function fieldRemovals(store: Store): Promise<void> {
  const day = (add: string, remove: string[], guard?: number, id = 'r:v_days'): Write => ({
    op: 'increment',
    collection: 'counters',
    id,
    by: { count: 1, [add]: 1 },
    create: {},
    unset: remove,
    ...(guard === undefined ? {} : { guard: { [add]: { max: guard } } }),
  })
  await commitOk(store, [day('d:2026-01-01', [])])
  await commitOk(store, [day('d:2026-01-02', [])])
  const both = await Promise.all(
    Array.from({ length: 4 }, () => store.commit({ writes: [day('d:2026-01-03', ['d:2026-01-01'])] })),
  )
  assert.ok(
    both.every((r) => r.ok),
    'concurrent removals of one field all land',
  )
  const removed = await mustGet(store, 'counters', 'r:v_days')
  assert.deepEqual(removed.value, { id: 'r:v_days', count: 6, 'd:2026-01-02': 1, 'd:2026-01-03': 4 })
  assert.equal(removed.version, 6)
  // The value a commit returns, and the one a guard checks, are without the removed fields.
  const result = await store.commit({ writes: [day('d:2026-01-03', ['d:2026-01-02', 'd:2025-12-31'], 5)] })
  assert.ok(result.ok)
  assert.deepEqual(result.values['counters/r:v_days'], { id: 'r:v_days', count: 7, 'd:2026-01-03': 5 })
  assert.equal((await commitConflict(store, [day('d:2026-01-03', ['d:2026-01-02'], 5)])).reason, 'guard')
  // Two increments of the row in one changeset apply in order: removed by the first, added by the second.
  await commitOk(store, [day('d:2026-01-04', ['d:2026-01-03']), day('d:2026-01-03', [])])
  assert.deepEqual((await mustGet(store, 'counters', 'r:v_days')).value, {
    id: 'r:v_days',
    count: 9,
    'd:2026-01-03': 1,
    'd:2026-01-04': 1,
  })
  // A row made by this very increment: nothing to remove.
  await commitOk(store, [day('d:2026-01-04', ['d:2026-01-01'], undefined, 'r:v_fresh')])
  assert.deepEqual((await mustGet(store, 'counters', 'r:v_fresh')).value, {
    id: 'r:v_fresh',
    count: 1,
    'd:2026-01-04': 1,
  })
}

/** `n` concurrent guarded uses of a code with quantity `q`: exactly min(n, q) commit, the rest fail their guard. */
export async function concurrentGuards(store: Store, n: number): Promise<void> {
  const q = Math.max(1, Math.floor(n / 5))
  await insert(store, 'vouchers', voucher('v_cap', 'CAP', { redemption: { redeemed_quantity: 0, quantity: q } }))
  const results: CommitResult[] = await Promise.all(
    Array.from({ length: n }, () => store.commit({ writes: [use('v_cap', q)] })),
  )
  const ok = results.filter((r) => r.ok).length
  const guards = results.filter((r) => !r.ok && r.conflict.reason === 'guard').length
  assert.equal(ok, Math.min(n, q), 'exactly the quantity commits')
  assert.equal(guards, n - ok, 'every other commit fails its guard, none another way')
  const after = (await mustGet(store, 'vouchers', 'v_cap')).value as { redemption: { redeemed_quantity: number } }
  assert.equal(after.redemption.redeemed_quantity, q)
}

/**
 * A guard's upper bound read from the entity at commit (`maxOf`), and other fields added to the
 * guarded one before comparing (`plus`): a quantity lowered after the decision read it is never
 * overrun, and live session locks count within it.
 */
export async function storedBounds(store: Store): Promise<void> {
  await insert(
    store,
    'vouchers',
    voucher('v_of', 'OF', { redemption: { redeemed_quantity: 1, quantity: 3 }, locks: { live: 1 } }),
  )
  const redeem = (guard: Record<string, unknown>): Write => ({
    op: 'increment',
    collection: 'vouchers',
    id: 'v_of',
    by: { 'redemption.redeemed_quantity': 1 },
    guard: { 'redemption.redeemed_quantity': guard },
  })
  // The quantity is lowered to 2 after a decision read 3.
  await commitOk(store, [
    { op: 'increment', collection: 'vouchers', id: 'v_of', by: {}, set: { 'redemption.quantity': 2 } },
  ])
  const lowered = await commitConflict(store, [redeem({ maxOf: 'redemption.quantity', plus: ['locks.live'] })])
  assert.equal(lowered.reason, 'guard', 'the bound stored at commit holds, not the one the decision read')
  assert.deepEqual(lowered.guard, {
    path: 'redemption.redeemed_quantity',
    value: 3,
    maxOf: 'redemption.quantity',
    plus: ['locks.live'],
    max: 2,
  })
  // Without the lock the same redemption fits; a lower `max` beside `maxOf` still binds.
  const fits = await store.commit({ writes: [redeem({ maxOf: 'redemption.quantity' })] })
  assert.ok(fits.ok, 'within the stored bound')
  assert.equal((await commitConflict(store, [redeem({ max: 5, maxOf: 'redemption.quantity' })])).guard?.max, 2)
  assert.equal((await commitConflict(store, [redeem({ max: 1, maxOf: 'absent.field' })])).guard?.max, 1)
  // A missing or null stored bound means none.
  await commitOk(store, [
    { op: 'increment', collection: 'vouchers', id: 'v_of', by: {}, set: { 'redemption.quantity': null } },
  ])
  await commitOk(store, [redeem({ maxOf: 'redemption.quantity', plus: ['locks.live', 'absent.count'] })])
  // `plus` with a floor: a balance less what is reserved stays at or above zero.
  await insert(store, 'vouchers', voucher('v_res', 'RES', { gift: { balance: 100 }, reserved: { neg: -60 } }))
  const spend = (x: number): Write => ({
    op: 'increment',
    collection: 'vouchers',
    id: 'v_res',
    by: { 'gift.balance': -x },
    guard: { 'gift.balance': { min: 0, plus: ['reserved.neg'] } },
  })
  assert.equal((await commitConflict(store, [spend(41)])).guard?.value, -1)
  await commitOk(store, [spend(40)])
  const after = (await mustGet(store, 'vouchers', 'v_res')).value as { gift: { balance: number } }
  assert.equal(after.gift.balance, 60)
}
