import assert from 'node:assert/strict'
import type { Alternative, CommitResult, Store, Write } from '../storage/ports'
import { customer, insert, mustGet, put, repo, voucher } from './fixtures'

/*
 * Storage contract: alternatives (docs/storage.md#alternatives). A changeset may carry writes to
 * commit instead when guards fail, such as the failed redemption an operation would record after
 * deciding again. The store applies the first that fits, in the same commit, or reports the failed
 * guard as usual; it never applies one for a conflict of another kind.
 */

const QUANTITY = 'redemption.redeemed_quantity'

const use = (id: string, max: number): Write => ({
  op: 'increment',
  collection: 'vouchers',
  id,
  by: { [QUANTITY]: 1 },
  guard: { [QUANTITY]: { max } },
})

/** A record of the answer: what an operation commits when it fails (a failed redemption, say). */
const record = (id: string): Write => put('customers', customer(id, null, { answer: 'quantity_exceeded' }), null)

/** The alternative to a use of `id` past `max`: fits when the use would have reached `max + 1`. */
const refusal = (id: string, max: number, writes: Write[], tolerate: Alternative['tolerate'] = []): Alternative => ({
  when: { collection: 'vouchers', id, path: QUANTITY, min: max + 1, max: max + 1 },
  tolerate,
  writes,
})

async function usedUp(store: Store, id: string, code: string): Promise<void> {
  await insert(store, 'vouchers', voucher(id, code, { redemption: { redeemed_quantity: 1, quantity: 1 } }))
}

export async function alternativeApplied(store: Store): Promise<void> {
  await usedUp(store, 'v_q', 'Q')
  const before = await mustGet(store, 'vouchers', 'v_q')
  const { next_after } = await store.changes({ limit: 1000 })
  const result = await store.commit({
    writes: [put('customers', customer('ok', null), null), use('v_q', 1)],
    alternatives: [refusal('v_q', 1, [record('refused')])],
  })
  assert.ok(result.ok, 'the alternative commits')
  assert.deepEqual(result.alternative, {
    index: 0,
    failed: [{ collection: 'vouchers', id: 'v_q', reason: 'guard', guard: { path: QUANTITY, value: 2, max: 1 } }],
  })
  assert.equal(result.versions['customers/refused'], 1, 'the result reports what the alternative wrote')
  assert.equal(result.versions['customers/ok'], undefined)
  assert.ok(await repo(store, 'customers').get('refused'), 'the alternative is written')
  assert.equal(await repo(store, 'customers').get('ok'), undefined, 'none of the writes it replaced')
  assert.deepEqual(await mustGet(store, 'vouchers', 'v_q'), before, 'the failed increment writes nothing')
  const feed = await store.changes({ after: next_after })
  assert.deepEqual(
    feed.data.map((c) => [c.seq, c.collection, c.id]),
    [[result.seq, 'customers', 'refused']],
    'the change feed shows the alternative as one commit',
  )
}

export async function alternativeNotApplied(store: Store): Promise<void> {
  await insert(store, 'vouchers', voucher('v_free', 'FREE', { redemption: { redeemed_quantity: 0, quantity: 1 } }))
  const fits = await store.commit({ writes: [use('v_free', 1)], alternatives: [refusal('v_free', 1, [record('x')])] })
  assert.ok(fits.ok)
  assert.equal(fits.alternative, undefined, 'writes that pass their guards commit as they are')
  assert.equal(await repo(store, 'customers').get('x'), undefined)

  await usedUp(store, 'v_q', 'Q')
  const untouched = async () => {
    assert.equal((await mustGet(store, 'vouchers', 'v_q')).version, 1)
    assert.equal((await repo(store, 'customers').list()).total, 0, 'no alternative was written')
  }
  // The guard failed with a value outside the alternative's range.
  const outside: Alternative = { ...refusal('v_q', 1, [record('x')]), when: { ...refusal('v_q', 1, []).when, max: 1 } }
  const a = await store.commit({ writes: [use('v_q', 1)], alternatives: [outside] })
  assert.ok(!a.ok && a.conflict.reason === 'guard' && a.conflict.id === 'v_q', 'out of range: the guard conflict')
  await untouched()
  // Another guard failed too, which the alternative does not tolerate.
  await usedUp(store, 'v_r', 'R')
  const b = await store.commit({
    writes: [use('v_q', 1), use('v_r', 1)],
    alternatives: [refusal('v_q', 1, [record('x')])],
  })
  assert.ok(!b.ok && b.conflict.reason === 'guard', 'an untolerated guard: the guard conflict')
  await untouched()
  // Its own guard did not fail.
  const c = await store.commit({ writes: [use('v_r', 1)], alternatives: [refusal('v_q', 1, [record('x')])] })
  assert.ok(!c.ok && c.conflict.reason === 'guard' && c.conflict.id === 'v_r')
  await untouched()
  // A conflict of another kind is never answered by an alternative.
  const d = await store.commit({
    writes: [put('vouchers', voucher('v_q', 'Q'), 7), use('v_q', 1)],
    alternatives: [refusal('v_q', 1, [record('x')])],
  })
  assert.ok(!d.ok && d.conflict.reason === 'version', 'a version conflict stays a version conflict')
  const e = await store.commit({
    writes: [use('v_q', 1), put('vouchers', voucher('v_new', 'Q'), null)],
    alternatives: [refusal('v_q', 1, [record('x')])],
  })
  assert.ok(!e.ok && e.conflict.reason !== 'guard', 'nor is a natural-key or existence conflict')
  await untouched()
}

export async function alternativeTolerates(store: Store): Promise<void> {
  await usedUp(store, 'v_q', 'Q')
  await usedUp(store, 'v_r', 'R')
  const result = await store.commit({
    writes: [use('v_q', 1), use('v_r', 1)],
    alternatives: [
      // The first does not fit (its guard passed: there is none on v_z); the second tolerates v_r.
      refusal('v_z', 1, [record('first')]),
      refusal('v_q', 1, [record('second')], [{ collection: 'vouchers', id: 'v_r', path: QUANTITY }]),
    ],
  })
  assert.ok(result.ok)
  assert.equal(result.alternative?.index, 1, 'the first alternative that fits applies')
  assert.deepEqual(result.alternative?.failed.map((c) => [c.id, c.guard?.value]).sort(), [
    ['v_q', 2],
    ['v_r', 2],
  ])
  assert.ok(await repo(store, 'customers').get('second'))
  assert.equal(await repo(store, 'customers').get('first'), undefined)
}

export async function alternativeConflicts(store: Store): Promise<void> {
  await usedUp(store, 'v_q', 'Q')
  await insert(store, 'customers', customer('taken', null))
  const result = await store.commit({
    writes: [use('v_q', 1)],
    alternatives: [refusal('v_q', 1, [record('new'), record('taken')])],
  })
  assert.ok(!result.ok, 'an alternative is checked like any changeset')
  assert.deepEqual([result.conflict.reason, result.conflict.id], ['exists', 'taken'])
  assert.equal(await repo(store, 'customers').get('new'), undefined, 'and writes all or nothing')
  // An alternative may itself hold a guarded increment.
  await insert(store, 'vouchers', voucher('v_s', 'S', { redemption: { redeemed_quantity: 0, quantity: 1 } }))
  const fallback = await store.commit({ writes: [use('v_q', 1)], alternatives: [refusal('v_q', 1, [use('v_s', 1)])] })
  assert.ok(fallback.ok && fallback.alternative?.index === 0)
  const again = await store.commit({ writes: [use('v_q', 1)], alternatives: [refusal('v_q', 1, [use('v_s', 1)])] })
  assert.ok(!again.ok && again.conflict.id === 'v_s', "the alternative's own failed guard is the conflict")
}

/** `n` concurrent uses of a code with quantity `q`, each with its refusal: every one commits, exactly q uses. */
export async function concurrentAlternatives(store: Store, n: number): Promise<void> {
  const q = Math.max(1, Math.floor(n / 5))
  await insert(store, 'vouchers', voucher('v_cap', 'CAP', { redemption: { redeemed_quantity: 0, quantity: q } }))
  const results: CommitResult[] = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.commit({
        writes: [put('customers', customer(`ok_${i}`, null), null), use('v_cap', q)],
        alternatives: [refusal('v_cap', q, [record(`refused_${i}`)])],
      }),
    ),
  )
  assert.equal(results.filter((r) => !r.ok).length, 0, 'every commit is answered, by its writes or its alternative')
  const refused = results.flatMap((r, i) => (r.ok && r.alternative ? [i] : []))
  assert.equal(n - refused.length, Math.min(n, q), 'exactly the quantity is used')
  const after = (await mustGet(store, 'vouchers', 'v_cap')).value as { redemption: { redeemed_quantity: number } }
  assert.equal(after.redemption.redeemed_quantity, Math.min(n, q))
  const stored = await repo(store, 'customers').getMany(
    results.map((r, i) => (r.ok && r.alternative ? `refused_${i}` : `ok_${i}`)),
  )
  assert.equal(stored.length, n, 'each commit wrote its own answer')
}

/**
 * Concurrent takes of 1 to 5 units within a limit of 12, each with one alternative per stored value its
 * guard can find (`when.min` = `when.max`), taking exactly what that value leaves, guarded again: the
 * store applies the one for the value it found, so the limit is never passed and every answer took
 * what its value left. A store whose rounds are not atomic (PostgreSQL releases the first round's row
 * locks with its subtransaction) may find the row moved before the alternative's round: that
 * alternative's own guard fails, and the commit is that guard's conflict (the operation decides again).
 */
export async function alternativesByValue(store: Store, n: number): Promise<void> {
  const limit = 12
  await insert(
    store,
    'vouchers',
    voucher('v_units', 'UNITS', { redemption: { redeemed_quantity: 0, quantity: limit } }),
  )
  const take = (i: number, units: number): Write[] => [
    put('customers', customer(`took_${i}`, null, { metadata: { units } }), null),
    {
      op: 'increment',
      collection: 'vouchers',
      id: 'v_units',
      by: { [QUANTITY]: units },
      guard: { [QUANTITY]: { max: limit } },
    },
  ]
  const wants = Array.from({ length: n }, (_, i) => 1 + (i % 5))
  const results: CommitResult[] = await Promise.all(
    wants.map((k, i) => {
      // Stored values at which taking k fails: limit − k + 1 up to the limit; each leaves limit − v.
      const values = Array.from({ length: k }, (_, j) => limit - j)
      return store.commit({
        writes: take(i, k),
        alternatives: values.map((v) => ({
          when: { collection: 'vouchers', id: 'v_units', path: QUANTITY, min: v + k, max: v + k },
          tolerate: [],
          writes:
            limit - v > 0
              ? take(i, limit - v)
              : [put('customers', customer(`took_${i}`, null, { metadata: { units: 0 } }), null)],
        })),
      })
    }),
  )
  for (const r of results) {
    if (r.ok) continue
    assert.deepEqual([r.conflict.reason, r.conflict.id], ['guard', 'v_units'], 'an unanswered take is a guard conflict')
  }
  const stored = await repo(store, 'customers').getMany(wants.map((_, i) => `took_${i}`))
  const taken = stored.reduce(
    (sum, c) => sum + ((c.value as { metadata?: { units?: number } }).metadata?.units ?? 0),
    0,
  )
  const after = (await mustGet(store, 'vouchers', 'v_units')).value as { redemption: { redeemed_quantity: number } }
  assert.equal(after.redemption.redeemed_quantity, taken, 'the row holds exactly what the answers took')
  assert.ok(taken <= limit, 'never past the limit')
  const demand = wants.reduce((a, b) => a + b, 0)
  if (results.every((r) => r.ok)) assert.equal(taken, Math.min(demand, limit), 'all answered: exactly what fits')
  // A take is refused only once the row moved toward the limit past what it could take.
  else assert.ok(taken > 0, 'what was answered was taken')
}
