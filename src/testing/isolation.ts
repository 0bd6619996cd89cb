import assert from 'node:assert/strict'
import type { Store, Stored } from '../storage/ports'
import { clone, commitOk, customer, idOf, insert, mustFind, mustGet, put, repo, tryMutate } from './fixtures'

/* Storage contract: the caller cannot reach a stored value through what it passed in or read. */

export async function isolationOfInput(store: Store): Promise<void> {
  const value = customer('cust_1', 'alice', { name: 'Alice', metadata: { tier: 'gold', tags: ['a'] } })
  const expected = clone(value)
  const version = await insert(store, 'customers', value)
  tryMutate(() => {
    value.name = 'Mallory'
  })
  tryMutate(() => {
    ;(value.metadata as { tier: string }).tier = 'none'
  })
  tryMutate(() => {
    ;(value.metadata as { tags: string[] }).tags.push('b')
  })
  assert.deepEqual((await mustGet(store, 'customers', 'cust_1')).value, expected)

  // A shallowly frozen input still has mutable children the store must not share.
  const shallow = Object.freeze(customer('cust_2', 'bob', { metadata: { tier: 'silver' } }))
  const expectedShallow = clone(shallow)
  await insert(store, 'customers', shallow)
  tryMutate(() => {
    ;(shallow.metadata as { tier: string }).tier = 'none'
  })
  assert.deepEqual((await mustGet(store, 'customers', 'cust_2')).value, expectedShallow)

  // The same for an update.
  const next = customer('cust_1', 'alice', { name: 'Alice 2', metadata: { tier: 'platinum' } })
  const expectedNext = clone(next)
  await commitOk(store, [put('customers', next, version)])
  tryMutate(() => {
    ;(next.metadata as { tier: string }).tier = 'none'
  })
  assert.deepEqual((await mustGet(store, 'customers', 'cust_1')).value, expectedNext)
}

export async function isolationOfReads(store: Store): Promise<void> {
  const value = customer('cust_1', 'alice', { name: 'Alice', metadata: { tier: 'gold', tags: ['a'] } })
  const expected = clone(value)
  const version = await insert(store, 'customers', value)
  const r = repo(store, 'customers')
  const reads: Stored<unknown>[] = [
    await mustGet(store, 'customers', 'cust_1'),
    ...(await r.getMany(['cust_1'])),
    await mustFind(store, 'customers', 'alice'),
    ...(await r.list()).data,
  ]
  for (const read of reads) {
    const v = read.value as { name: string; source_id: string; metadata: { tier: string; tags: string[] } }
    tryMutate(() => {
      v.name = 'Mallory'
    })
    tryMutate(() => {
      v.source_id = 'mallory'
    })
    tryMutate(() => {
      v.metadata.tier = 'none'
    })
    tryMutate(() => {
      v.metadata.tags.push('b')
    })
    tryMutate(() => {
      ;(read as { version: number }).version = 99
    })
  }
  assert.deepEqual(await r.get('cust_1'), { value: expected, version, shape: 1 })
  assert.equal(idOf(await mustFind(store, 'customers', 'alice')), 'cust_1')
  assert.equal(await r.findBy('source_id', 'mallory'), undefined)
}
