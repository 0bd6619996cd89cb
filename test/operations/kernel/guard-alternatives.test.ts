import { describe, expect, it } from 'vitest'
import type { Changeset, CommitResult, Store } from '../../../src/storage/ports'
import { testEngine } from '../../support/engine'
import { unitBudgetTier } from '../../support/shops'

/*
 * A refused redemption answered in the commit whose guard failed (docs/storage.md#alternatives):
 * the answer is what deciding again would record and return, down to the values it explains; it is
 * prepared only when the entity is contended; a host's transaction gets it in its one attempt.
 * Counts, not times: commits come from a wrapper that counts them.
 */

type Engine = ReturnType<typeof testEngine>['engine']

/** The store, counting commits and those that carried alternatives or applied one. */
function counting(store: Store, extra: Partial<Store> = {}) {
  const counts = { commits: 0, offered: 0, applied: 0 }
  const wrapped = Object.assign(Object.create(store) as Store, {
    ...extra,
    async commit(changeset: Changeset): Promise<CommitResult> {
      counts.commits++
      if (changeset.alternatives?.length) counts.offered++
      const result = await store.commit(changeset)
      if (result.ok && result.alternative) counts.applied++
      return result
    },
  })
  return { store: wrapped, counts }
}

function setup(extra: Partial<Store> = {}) {
  const base = testEngine()
  const { store, counts } = counting(base.store, extra)
  // The memory store (one process, no I/O) schedules attempts the same way every run.
  const memory = 'rowsExamined' in ((base.store as { stats?: object }).stats ?? {})
  return { ...testEngine({ store }), counts, memory }
}

/**
 * One commit per request on the memory store. On a database, I/O reorders the attempts: one may
 * decide before the others are in flight and so prepare nothing, and its failed guard is answered by
 * deciding again (docs/storage.md#contention); at most 1.2 commits per request there.
 */
function expectCommits(commits: number, requests: number, memory: boolean): void {
  if (memory) expect(commits).toBe(requests)
  else {
    expect(commits).toBeGreaterThanOrEqual(requests)
    expect(commits).toBeLessThanOrEqual(Math.floor(requests * 1.2))
  }
}

const redeem = (engine: Engine, redeemable: Record<string, unknown>, idempotencyKey?: string) =>
  engine.raw.redemptions.redeemStackable(
    { customer: { source_id: 'ana' }, order: { amount: 1000 }, redeemables: [redeemable] },
    idempotencyKey === undefined ? undefined : { idempotencyKey },
  )

async function hotCode(engine: Engine, quantity: number): Promise<void> {
  await engine.customers.create({ source_id: 'ana' })
  await engine.vouchers.create({
    code: 'HOT',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100 },
    redemption: { quantity },
  })
}

/** The failure code of a redemption (undefined for a success). */
const failureCode = (r: object): string | undefined => (r as { failure_code?: string }).failure_code

describe('a failed guard answered in the same commit', () => {
  it('concurrent payments from a gift card: what fits succeeds, each refusal explains the balance it found, one commit each', async () => {
    const { engine, counts, memory } = setup()
    await engine.customers.create({ source_id: 'ana' })
    await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 1000 } })
    counts.commits = 0
    const results = await Promise.all(
      Array.from({ length: 40 }, () => redeem(engine, { object: 'voucher', id: 'GIFT', gift: { credits: 70 } })),
    )
    const failed = results.filter((r) => r.parent_redemption.result === 'FAILURE')
    expect(results.length - failed.length).toBe(14)
    expectCommits(counts.commits, 40, memory)
    expect(counts.applied).toBeGreaterThan(0)
    for (const f of failed) {
      expect(failureCode(f.parent_redemption)).toBe('gift_amount_exceeded')
      expect(f.redemptions.map(failureCode)).toEqual(['gift_amount_exceeded'])
      expect(f.inapplicable_redeemables[0]?.explanation).toEqual({
        check: 'gift.balance',
        detail: '70 credits requested, 20 available',
        expected: 20,
        actual: 70,
      })
    }
    // The failed redemptions are stored like one decided on its own, and listed on the card.
    const late = await redeem(engine, { object: 'voucher', id: 'GIFT', gift: { credits: 70 } })
    const stored = await engine.redemptions.get(failed[0]?.parent_redemption.id ?? '')
    const strip = (r: object) => {
      const {
        id: _id,
        date: _date,
        related_redemptions: _related,
        related_object_id: _object,
        ...rest
      } = r as {
        id: string
        date: string
        related_redemptions: unknown
        related_object_id: string
      }
      return rest
    }
    expect(strip(stored)).toEqual(strip(late.parent_redemption))
    expect((await engine.vouchers.get('GIFT')).gift?.balance).toBe(20)
  })

  it('replaying each idempotency key of a contended code gives its first response', async () => {
    const { engine, counts, memory } = setup()
    await hotCode(engine, 5)
    counts.commits = 0
    const first = await Promise.all(
      Array.from({ length: 20 }, (_, i) => redeem(engine, { object: 'voucher', id: 'HOT' }, `key-${i}`)),
    )
    expect(first.filter((r) => r.parent_redemption.result === 'SUCCESS')).toHaveLength(5)
    expectCommits(counts.commits, 20, memory)
    const afterFirst = counts.commits
    const replayed = await Promise.all(
      Array.from({ length: 20 }, (_, i) => redeem(engine, { object: 'voucher', id: 'HOT' }, `key-${i}`)),
    )
    expect(replayed).toEqual(first)
    // Replays commit nothing.
    expect(counts.commits).toBe(afterFirst)
  })

  it('alternatives are prepared only where the attempts in flight could pass the bound', async () => {
    const { engine, counts, memory } = setup()
    await hotCode(engine, 8)
    await engine.vouchers.create({
      code: 'ROOMY',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
      redemption: { quantity: 100 },
    })
    counts.offered = 0
    for (let i = 0; i < 5; i++) await redeem(engine, { object: 'voucher', id: 'HOT' })
    expect(counts.offered).toBe(0)
    // Five at once with room for 95: no guard can fail, nothing is prepared.
    await Promise.all(Array.from({ length: 5 }, () => redeem(engine, { object: 'voucher', id: 'ROOMY' })))
    expect(counts.offered).toBe(0)
    // Five at once with room for 3: the two refused are answered by what was prepared.
    counts.commits = 0
    const results = await Promise.all(Array.from({ length: 5 }, () => redeem(engine, { object: 'voucher', id: 'HOT' })))
    expect(results.filter((r) => r.parent_redemption.result === 'SUCCESS')).toHaveLength(3)
    expect(counts.offered).toBeGreaterThan(0)
    if (memory) expect(counts.applied).toBe(2)
    else expect(counts.applied).toBeGreaterThan(0)
    expectCommits(counts.commits, 5, memory)
  })

  it("in a host's transaction (one attempt), a failed guard is answered by a business failure, not a 409", async () => {
    const { engine, counts } = setup({ hostTransaction: true })
    await hotCode(engine, 1)
    const results = await Promise.all(Array.from({ length: 3 }, () => redeem(engine, { object: 'voucher', id: 'HOT' })))
    expect(results.map((r) => failureCode(r.parent_redemption) ?? 'SUCCESS').sort()).toEqual([
      'SUCCESS',
      'quantity_exceeded',
      'quantity_exceeded',
    ])
    expect(counts.applied).toBeGreaterThan(0)
  })
})

describe('a unit budget found with fewer units left: answered value by value', () => {
  /** A tier of $1 off each mug, at most `limit` mugs in its campaign; the store records each changeset's `when`s. */
  async function mugs(limit: number) {
    const whens: { min: number | undefined; max: number | undefined }[][] = []
    const base = testEngine()
    const { store, counts } = counting(base.store)
    const commit = store.commit.bind(store)
    store.commit = (changeset) => {
      whens.push((changeset.alternatives ?? []).map((a) => ({ min: a.when.min, max: a.when.max })))
      return commit(changeset)
    }
    const { engine } = testEngine({ store })
    const mug = (await engine.products.create({ source_id: 'mug', name: 'Mug', price: 1000 })).id
    const tier = await unitBudgetTier(engine, mug, limit)
    counts.commits = 0
    whens.length = 0
    const order = async (customer: string, quantity: number) => {
      const r = await engine.raw.redemptions.redeemStackable({
        redeemables: [{ object: 'promotion_tier', id: tier }],
        customer: { source_id: customer },
        order: { items: [{ product_id: mug, quantity, price: 1000 }] },
      })
      return r.order?.items?.[0]?.discount_quantity ?? 0
    }
    const memory = 'rowsExamined' in ((base.store as { stats?: object }).stats ?? {})
    return { order, counts, whens, memory }
  }

  it('three requests of 7 on a budget of 20: 7, 7 and the 6 left, one commit each', async () => {
    const { order, counts, whens, memory } = await mugs(20)
    const units = await Promise.all([order('a', 7), order('b', 7), order('c', 7)])
    expect(units.sort()).toEqual([6, 7, 7])
    expectCommits(counts.commits, 3, memory)
    // Each answer applies at exactly one count of the row (the count after the attempt's 7): 20 down to 14.
    for (const w of whens.filter((x) => x.length > 0)) {
      expect(w).toEqual([27, 26, 25, 24, 23, 22, 21].map((v) => ({ min: v, max: v })))
    }
  })

  it('two requests of 12 on a budget of 20: at most 8 counts are answered; finding 12 counted, the second decides again', async () => {
    const { order, counts, whens, memory } = await mugs(20)
    const units = await Promise.all([order('a', 12), order('b', 12)])
    expect(units.sort((x, y) => x - y)).toEqual([8, 12])
    // The documented fallback: 8 left is past the 8 counts nearest the bound (20 down to 13). On a
    // database the second may read after the first committed, and decide on 8 left at once.
    if (!memory) return
    expect(counts.commits).toBe(3)
    expect(whens[0]).toEqual([32, 31, 30, 29, 28, 27, 26, 25].map((v) => ({ min: v, max: v })))
  })
})
