import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { createMemoryStore } from '../../src/memory'
import { manualClock } from '../support/engine'
import { commitFill, fillMember, flatOperations, flatShop, grow } from '../support/flat-scenario'
import { seedReferrer } from '../support/referrer-shop'

/*
 * Flat in live rows on the memory store (docs/storage.md#indexes): the operations of
 * bench/flat-cost.ts examine as many rows when the store grows tenfold (the code under test from
 * 1,000 to 10,000 live session locks, its member from 100 to 1,000 live points buckets, every other
 * collection from 2,000 to 20,000 entities). test/postgres/flat-rows.test.ts counts the same on
 * PostgreSQL, as the server reads them.
 */

describe('rows examined do not grow with live rows', () => {
  it('every operation of the flat-cost bench examines as many rows with ten times the live locks and buckets', async () => {
    // Two stores taken through the same calls, so that only their size differs.
    const examined = async (n: number) => {
      const store = createMemoryStore()
      const engine = createEngine({ store, clock: manualClock('2026-06-01T10:00:00.000Z'), random: seededRandom(3) })
      const shop = await flatShop(engine, store)
      const fill = commitFill(store)
      await fillMember(shop, fill, { activities: 1_000, spent: 1_000 })
      await grow(store, shop, fill, 0, n)
      const out: Record<string, number> = {}
      for (const [name, op] of Object.entries(flatOperations(engine, shop))) {
        const before = store.stats.rowsExamined
        await op()
        out[name] = store.stats.rowsExamined - before
      }
      return out
    }
    const small = await examined(2_000)
    expect(await examined(20_000)).toEqual(small)
    // What they are: a session's own lock, never the code's 1,000 locks; a spend's first pages of its
    // spending order (32 buckets), never the member's 100 live buckets; a spend's take at commit counts
    // the buckets it walks (the one it takes from), never all of the card's.
    for (const [name, rows] of Object.entries(small)) expect(rows, name).toBeLessThanOrEqual(40)
  }, 120_000)
})

describe("a referrer's customers.get", () => {
  it('reads as often with three codes and eight referees each as with one code and one referee', async () => {
    const reads = async (programs: number, referees: number) => {
      const store = createMemoryStore()
      const engine = createEngine({ store, clock: manualClock(), random: seededRandom(5) })
      await seedReferrer(engine, programs, referees)
      const before = store.stats.calls
      const alice = await engine.customers.get('alice')
      expect(alice.loyalty.referred_customers).toBe(programs * referees)
      return store.stats.calls - before
    }
    const few = await reads(1, 1)
    expect(await reads(3, 8)).toBe(few)
    // The customer (by id and by source id at once), the wallet, the summary's counter row and last
    // order, the customer as referee, the conversions naming the referrer (no card: no tier standings).
    expect(few).toBe(7)
  })
})
