import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MemoryStore } from '../../src/memory'
import { testEngine } from '../support/engine'
import { FAMILIES, feedMatchesStore, hotShop, outcomeOf, tally } from '../support/hot-rows'

/*
 * Shared rows under concurrent distinct customers, on the memory store (docs/storage.md#shared-rows):
 * in a shop with an auto-join loyalty program, each family's N concurrent requests by N new customers
 * give exactly what fits, never a 409, at most 1.2 commits per request, and the change feed holds
 * exactly what was committed. The same families run on PostgreSQL from 4 processes
 * (test/postgres/hot-rows.test.ts).
 */

describe('rows shared by distinct customers, default options', () => {
  for (const family of FAMILIES) {
    it(`${family.name}: N concurrent customers get what fits, 0 × 409, ≤ 1.2 commits per request`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(1, 7, 60, 200), async (n) => {
          const { engine, store } = testEngine()
          const shop = await hotShop(engine)
          const customers = Array.from({ length: n }, (_, i) => `cust-${i}`)
          for (const c of customers) await family.before?.(engine, shop, c)
          const commits = (store as MemoryStore).stats.commits
          const outcomes = await Promise.all(customers.map((c) => outcomeOf(() => family.request(engine, shop, c))))
          const spent = (store as MemoryStore).stats.commits - commits
          expect(tally(outcomes)).toEqual(family.expected(n))
          expect(spent).toBeLessThanOrEqual(Math.ceil(1.2 * n))
          await family.check?.(engine, shop, n)
          await feedMatchesStore(store)
        }),
        { numRuns: 4 },
      )
    })
  }
})
