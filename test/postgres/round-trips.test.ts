import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { createPostgresStore, type PoolLike, type QueryResultLike } from '../../src/postgres'
import * as chainShop from '../support/chain-shop'
import { manualClock } from '../support/engine'
import { seedReferrer } from '../support/referrer-shop'
import { emptySchema, useClonedPool } from './database'

/*
 * The chain ceilings of docs/storage.md#load-decide-commit, counted on PostgreSQL as real queries:
 * the pool is wrapped so that each query's depth is one more than the deepest query finished when it
 * started (queries sent together share a depth). Each level is a database round trip, and one
 * statement (docs/postgres.md#loads): as many queries as levels. No statement of these operations
 * counts rows (`count(*)`): none of them shows a total.
 */

const db = useClonedPool(10)

function countingPool(inner: pg.Pool) {
  let deepestFinished = 0
  let deepest = 0
  let queries = 0
  let texts: string[] = []
  const track = async <R>(
    text: string | { text: string },
    run: () => Promise<QueryResultLike<R>>,
  ): Promise<QueryResultLike<R>> => {
    const depth = deepestFinished + 1
    queries++
    texts.push(typeof text === 'string' ? text : text.text)
    deepest = Math.max(deepest, depth)
    const result = await run()
    deepestFinished = Math.max(deepestFinished, depth)
    return result
  }
  const wrapped: PoolLike = {
    query: <R>(text: string, values?: unknown[]) =>
      track(text, () => inner.query(text, values) as unknown as Promise<QueryResultLike<R>>),
    async connect() {
      const client = await inner.connect()
      return {
        query: <R>(text: string, values?: unknown[]) =>
          track(text, () => client.query(text, values) as unknown as Promise<QueryResultLike<R>>),
        release: (error?: Error | boolean) => client.release(error),
      }
    },
    end: () => inner.end(),
  }
  return {
    pool: wrapped,
    reset() {
      deepestFinished = 0
      deepest = 0
      queries = 0
      texts = []
    },
    /** The statements that counted rows since the last reset. */
    get counting() {
      return texts.filter((t) => /count\(\*\)/i.test(t))
    },
    get depth() {
      return deepest
    },
    get queries() {
      return queries
    },
  }
}

async function emptyEngine() {
  await emptySchema(db.pool, 'promo_engine')
  const counter = countingPool(db.pool)
  const engine = createEngine({
    store: createPostgresStore({ pool: counter.pool }),
    clock: manualClock(),
    random: seededRandom(1),
  })
  return { counter, engine }
}

async function shop() {
  const { counter, engine } = await emptyEngine()
  return { counter, engine, body: await chainShop.seedChainShop(engine) }
}

describe.sequential('round trips on PostgreSQL', () => {
  it('a validation of four redeemables for a known customer: at most 4 levels of queries, each one statement, none counting', async () => {
    const { counter, engine, body } = await shop()
    counter.reset()
    expect((await engine.raw.validations.validateStackable(body)).valid).toBe(true)
    expect(counter.depth).toBeLessThanOrEqual(4)
    expect(counter.queries).toBe(counter.depth)
    expect(counter.counting).toEqual([])
  })

  it('a one-line validation and redemption of a known code for a known customer: 2 levels of reads and the commit cold, then 1 and the commit (level 2 from hints)', async () => {
    const { counter, engine } = await emptyEngine()
    const body = await chainShop.seedOneLineShop(engine)
    const levels = async (run: () => Promise<unknown>) => {
      counter.reset()
      await run()
      expect(counter.queries).toBe(counter.depth)
      expect(counter.counting).toEqual([])
      return counter.depth
    }
    const validate = () => engine.raw.validations.validateStackable(body)
    const redeem = () => engine.raw.redemptions.redeemStackable(body)
    // Cold: nothing remembered of ONE or the shopper, level 2 waits for level 1.
    expect(await levels(validate)).toBe(3)
    // Level 1 found both: the next requests read level 2 with level 1, in one statement
    // (docs/postgres.md#loads).
    expect(await levels(validate)).toBe(2)
    expect(await levels(redeem)).toBe(2)
    expect(await levels(redeem)).toBe(2)
    expect(await levels(validate)).toBe(2)
    // An engine without hints on the same data: as cold as the first request, every time.
    const cold = createEngine({
      store: createPostgresStore({ pool: counter.pool }),
      clock: manualClock(),
      random: seededRandom(2),
      loadHints: 0,
    })
    expect(await levels(() => cold.raw.validations.validateStackable(body))).toBe(3)
    expect(await levels(() => cold.raw.redemptions.redeemStackable(body))).toBe(3)
  })

  it('a validation of four redeemables for a known customer, again: its second and third levels read with its first', async () => {
    const { counter, engine, body } = await shop()
    counter.reset()
    expect((await engine.raw.validations.validateStackable(body)).valid).toBe(true)
    const first = counter.depth
    counter.reset()
    expect((await engine.raw.validations.validateStackable(body)).valid).toBe(true)
    // Its three levels of reads (the validation rules behind the assignments the third; its line's
    // product, named by source_id, priced in the second) in one.
    expect({ first, again: counter.depth }).toEqual({ first: 4, again: 2 })
    expect(counter.queries).toBe(counter.depth)
  })

  it('a redemption of four redeemables, a new customer created with it: at most 5 levels, one of them the commit, each one statement, none counting', async () => {
    const { counter, engine, body } = await shop()
    counter.reset()
    const result = await engine.raw.redemptions.redeemStackable({ ...body, customer: { source_id: 'new' } })
    expect(result.parent_redemption.result).toBe('SUCCESS')
    expect(counter.depth).toBeLessThanOrEqual(5)
    expect(counter.queries).toBe(counter.depth)
    expect(counter.counting).toEqual([])
  })

  it('loyalty: a member paying with points and earning at most 5 levels, a paid order 4, a reward redemption 3, each level one statement', async () => {
    const { counter, engine } = await emptyEngine()
    const chains = await chainShop.loyaltyChains(engine, counter)
    expect(chains.memberRedemption).toBeLessThanOrEqual(5)
    expect(chains.paidOrder).toBeLessThanOrEqual(4)
    expect(chains.rewardRedemption).toBeLessThanOrEqual(3)
    expect(chains.queries).toEqual({
      memberRedemption: chains.memberRedemption,
      paidOrder: chains.paidOrder,
      rewardRedemption: chains.rewardRedemption,
    })
  })

  it.each(chainShop.AUTO_JOIN_CARDS)(
    "a new customer's paid order and redemption joining an auto-join program (%s): 3 statements made on demand (the request's reads; the program's earning rules beside its free cards; the commit), 4 with a free card (its ledger and standing)",
    async (cards) => {
      const { counter, engine } = await emptyEngine()
      const { clubId } = await chainShop.seedAutoJoinShop(engine, cards)
      const chains = await chainShop.newMemberChains(engine, counter, createPostgresStore({ pool: db.pool }), clubId)
      const levels = cards === 'AUTO_UPDATE, made on demand' ? 3 : 4
      expect({ paidOrder: chains.paidOrder, redemption: chains.redemption }).toEqual({
        paidOrder: { depth: levels, queries: levels },
        redemption: { depth: levels, queries: levels },
      })
      chainShop.expectCardsFrom(cards, chains)
    },
  )

  it("a publication from a campaign's free codes: at most 4 levels (the request's reads, the pick, the code's holder, the commit), each one statement, none counting", async () => {
    const { counter, engine } = await emptyEngine()
    await chainShop.seedPublicationShop(engine)
    for (const source_id of ['new', 'known']) {
      counter.reset()
      const result = await engine.publications.create({ campaign: { name: 'Welcome' }, customer: { source_id } })
      expect(result.vouchers_id, source_id).toHaveLength(1)
      expect(counter.depth, source_id).toBeLessThanOrEqual(4)
      expect(counter.queries, source_id).toBe(counter.depth)
      expect(counter.counting, source_id).toEqual([])
    }
  })

  it("a referrer's customers.get: as many queries and levels with three codes and eight referees each as with one of each, none counting", async () => {
    const reads = async (programs: number, referees: number) => {
      const { counter, engine } = await emptyEngine()
      await seedReferrer(engine, programs, referees)
      counter.reset()
      const alice = await engine.customers.get('alice')
      expect(alice.loyalty.referred_customers).toBe(programs * referees)
      expect(counter.counting).toEqual([])
      return { queries: counter.queries, depth: counter.depth }
    }
    const few = await reads(1, 1)
    expect(await reads(3, 8)).toEqual(few)
    // The customer; the wallet, the summary's counters and the customer as referee; the summary's last
    // order and the conversions naming the referrer.
    expect(few).toEqual({ queries: 3, depth: 3 })
  })
})
