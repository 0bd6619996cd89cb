import assert from 'node:assert/strict'
import type { CommitResult, Store } from '../storage/ports'
import { customer, idOf, insert, mustFind, mustGet, product, put, repo, voucher } from './fixtures'

/*
 * Storage contract under concurrency. Every commit is launched before any is awaited; a real
 * database adapter sees them race. All start from the same read, so exactly one may win.
 */

function tally(results: readonly CommitResult[]): { ok: number; reasons: Record<string, number> } {
  const reasons: Record<string, number> = {}
  let ok = 0
  for (const r of results) {
    if (r.ok) ok++
    else reasons[r.conflict.reason] = (reasons[r.conflict.reason] ?? 0) + 1
  }
  return { ok, reasons }
}

export async function concurrentSameVersion(store: Store, n: number): Promise<void> {
  await insert(store, 'vouchers', voucher('v_1', 'HOT', { writer: -1 }))
  const read = await mustGet(store, 'vouchers', 'v_1')
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.commit({ writes: [put('vouchers', voucher('v_1', 'HOT', { writer: i }), read.version)] }),
    ),
  )
  assert.deepEqual(tally(results), { ok: 1, reasons: n > 1 ? { version: n - 1 } : {} })
  for (const r of results) if (!r.ok) assert.deepEqual([r.conflict.collection, r.conflict.id], ['vouchers', 'v_1'])
  const winner = results.findIndex((r) => r.ok)
  const final = await mustGet(store, 'vouchers', 'v_1')
  assert.equal(final.version, read.version + 1)
  assert.equal((final.value as { writer: number }).writer, winner)
}

export async function concurrentTwoEntities(store: Store, n: number): Promise<void> {
  await insert(store, 'customers', customer('cust_1', 'payer', { writer: -1 }))
  await insert(store, 'products', product('prod_1', 'stock', { writer: -1 }))
  const a = await mustGet(store, 'customers', 'cust_1')
  const b = await mustGet(store, 'products', 'prod_1')
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.commit({
        // Half the writers name the entities in the other order, as a deadlock-prone database would see.
        writes:
          i % 2 === 0
            ? [
                put('customers', customer('cust_1', 'payer', { writer: i }), a.version),
                put('products', product('prod_1', 'stock', { writer: i }), b.version),
              ]
            : [
                put('products', product('prod_1', 'stock', { writer: i }), b.version),
                put('customers', customer('cust_1', 'payer', { writer: i }), a.version),
              ],
      }),
    ),
  )
  assert.deepEqual(tally(results), { ok: 1, reasons: n > 1 ? { version: n - 1 } : {} })
  const winner = results.findIndex((r) => r.ok)
  const finalA = await mustGet(store, 'customers', 'cust_1')
  const finalB = await mustGet(store, 'products', 'prod_1')
  assert.deepEqual(
    [finalA.version, (finalA.value as { writer: number }).writer],
    [a.version + 1, winner],
    'customer written by the winner',
  )
  assert.deepEqual(
    [finalB.version, (finalB.value as { writer: number }).writer],
    [b.version + 1, winner],
    'product written by the same winner',
  )
}

export async function concurrentSameKey(store: Store, n: number): Promise<void> {
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => store.commit({ writes: [put('vouchers', voucher(`v_${i}`, 'ONLY'), null)] })),
  )
  assert.deepEqual(tally(results), { ok: 1, reasons: n > 1 ? { unique: n - 1 } : {} })
  for (const r of results) if (!r.ok) assert.equal(r.conflict.key, 'code')
  const winner = results.findIndex((r) => r.ok)
  assert.equal(idOf(await mustFind(store, 'vouchers', 'ONLY')), `v_${winner}`)
  const present = await repo(store, 'vouchers').getMany(Array.from({ length: n }, (_, i) => `v_${i}`))
  assert.deepEqual(present.map(idOf), [`v_${winner}`])
  assert.equal((await repo(store, 'vouchers').list()).total, 1)
}

export async function concurrentSameId(store: Store, n: number): Promise<void> {
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.commit({ writes: [put('customers', customer('cust_1', `src_${i}`), null)] }),
    ),
  )
  assert.deepEqual(tally(results), { ok: 1, reasons: n > 1 ? { exists: n - 1 } : {} })
  const winner = results.findIndex((r) => r.ok)
  const final = await mustGet(store, 'customers', 'cust_1')
  assert.equal((final.value as { source_id: string }).source_id, `src_${winner}`)
  // Only the winner's natural key is indexed.
  for (let i = 0; i < n; i++) {
    const found = await repo(store, 'customers').findBy('source_id', `src_${i}`)
    assert.equal(found ? idOf(found) : null, i === winner ? 'cust_1' : null)
  }
}

export async function concurrentDisjoint(store: Store, n: number): Promise<void> {
  const versions: number[] = []
  for (let i = 0; i < n; i++) versions.push(await insert(store, 'products', product(`prod_${i}`, `p${i}`)))
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.commit({
        writes: [
          put('vouchers', voucher(`v_${i}`, `CODE${i}`), null),
          put('products', product(`prod_${i}`, `p${i}`, { touched: true }), versions[i] ?? 0),
        ],
      }),
    ),
  )
  assert.deepEqual(tally(results), { ok: n, reasons: {} })
  for (let i = 0; i < n; i++) {
    assert.equal(idOf(await mustFind(store, 'vouchers', `CODE${i}`)), `v_${i}`)
    const p = await mustGet(store, 'products', `prod_${i}`)
    assert.deepEqual([p.version, (p.value as { touched?: boolean }).touched], [(versions[i] ?? 0) + 1, true])
  }
  assert.equal((await repo(store, 'vouchers').list()).total, n)
}

export async function concurrentCounter(store: Store, n: number): Promise<void> {
  const start = await insert(store, 'vouchers', voucher('v_1', 'COUNTER', { count: 0 }))
  const worker = async (): Promise<number> => {
    // With a correct store every round lets at least one worker through, so n rounds suffice.
    for (let attempt = 1; attempt <= n + 1; attempt++) {
      const read = await mustGet(store, 'vouchers', 'v_1')
      const count = (read.value as { count: number }).count
      const result = await store.commit({
        writes: [put('vouchers', voucher('v_1', 'COUNTER', { count: count + 1 }), read.version)],
      })
      if (result.ok) return attempt
      assert.equal(result.conflict.reason, 'version')
    }
    return assert.fail('a worker never got its update in')
  }
  await Promise.all(Array.from({ length: n }, worker))
  const final = await mustGet(store, 'vouchers', 'v_1')
  assert.deepEqual([final.version, (final.value as { count: number }).count], [start + n, n])
}

/** Increments commute: every concurrent one lands, and the sum is exact. */
export async function concurrentIncrements(store: Store, n: number): Promise<void> {
  await insert(store, 'vouchers', voucher('v_hot', 'HOT', { redemption: { redeemed_quantity: 0 } }))
  const results = await Promise.all(
    Array.from({ length: n }, () =>
      store.commit({
        writes: [{ op: 'increment', collection: 'vouchers', id: 'v_hot', by: { 'redemption.redeemed_quantity': 1 } }],
      }),
    ),
  )
  assert.deepEqual(tally(results), { ok: n, reasons: {} }, 'increments never conflict')
  const after = (await mustGet(store, 'vouchers', 'v_hot')).value as { redemption: { redeemed_quantity: number } }
  assert.equal(after.redemption.redeemed_quantity, n)
}
