import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import type { MemoryStore } from '../../../src/memory'
import type { Redemption } from '../../../src/model/redemption'
import { testEngine } from '../../support/engine'
import { propertyRuns } from '../../support/store'
import { cardPayingWithPoints } from '../loyalty/fixtures'

/*
 * Budgets under concurrency with the default options (docs/storage.md#counters): every budget rule,
 * quantity and balance gives exactly what fits, the rest get the business failure the interface
 * names, and nobody gets a 409. Counts, not times: commits per request come from the store's stats.
 */

type Engine = ReturnType<typeof testEngine>['engine']

const RULES = {
  'campaign.redemptions.count': { perCustomer: false },
  'campaign.redemptions.count.daily': { perCustomer: false },
  'redemption.count.daily': { perCustomer: false },
  'campaign.redemptions.customers_count': { perCustomer: false },
  'redemption.count.per_customer': { perCustomer: true },
  'redemption.count.per_customer.daily': { perCustomer: true },
} as const
type RuleName = keyof typeof RULES

/** A coupon campaign of `count` codes under one budget rule `rule ≤ limit`; its codes and id. */
async function couponsWithRule(engine: Engine, rule: string, limit: number, count = 1) {
  const campaign = await engine.campaigns.create({
    name: 'Budget',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'STATIC',
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    vouchers_count: count,
  })
  const created = await engine.validationRules.create({
    name: `at most ${limit}`,
    rules: { '1': { name: rule, conditions: { $less_than_or_equal: [limit] } } },
  })
  await engine.validationRules.createAssignment(created.id, {
    related_object_type: 'campaign',
    related_object_id: campaign.id,
  })
  const codes = await engineContext(engine).store.vouchers.list({ where: { campaign_id: campaign.id } })
  return { id: campaign.id, codes: codes.data.map((s) => s.value.code) }
}

async function couponWithRule(engine: Engine, rule: RuleName, limit: number): Promise<string> {
  return (await couponsWithRule(engine, rule, limit)).codes[0] ?? ''
}

async function race(engine: Engine, n: number, body: (i: number) => unknown) {
  const settled = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => engine.raw.redemptions.redeemStackable(body(i))),
  )
  const thrown = settled.filter((s) => s.status === 'rejected')
  const results = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  return {
    thrown: thrown.map((t) => String((t as PromiseRejectedResult).reason)),
    ok: results.filter((r) => r.parent_redemption.result === 'SUCCESS').length,
    failed: results.filter((r) => r.parent_redemption.result === 'FAILURE'),
  }
}

/** The failure code of a redemption (undefined for a success). */
const failureCode = (r: Redemption) => (r.result === 'FAILURE' ? r.failure_code : undefined)

// 1–1.8 s each on a 2-core machine at load 18: a safety limit, no timing is asserted.
describe('budget rules under concurrency, default options', { timeout: 60_000 }, () => {
  for (const [rule, { perCustomer }] of Object.entries(RULES) as [RuleName, { perCustomer: boolean }][]) {
    it(`${rule}: N concurrent redemptions give exactly what the limit allows, never a 409`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 8 }), async (n, limit) => {
          const { engine, store } = testEngine()
          const code = await couponWithRule(engine, rule, limit)
          // One known customer, or a new one per request: no two requests create the same customer.
          if (perCustomer) await engine.customers.create({ source_id: 'one' })
          const commits = (store as MemoryStore).stats.commits
          const { thrown, ok, failed } = await race(engine, n, (i) => ({
            redeemables: [{ object: 'voucher', id: code }],
            order: { amount: 1000 },
            customer: { source_id: perCustomer ? 'one' : `c${i}` },
          }))
          expect(thrown).toEqual([])
          expect(ok).toBe(Math.min(n, limit))
          for (const f of failed) expect(failureCode(f.parent_redemption)).toBe('redemption_rules_violated')
          // Refused or counted again, each request commits once (docs/storage.md#alternatives).
          expect((store as MemoryStore).stats.commits - commits).toBe(n)
          // Sequentially the next one is refused too: the counters agree with what was redeemed.
          const next = await engine.redemptions.redeemStackable({
            redeemables: [{ object: 'voucher', id: code }],
            order: { amount: 1000 },
            customer: { source_id: perCustomer ? 'one' : 'late' },
          })
          expect(next.parent_redemption.result).toBe(n >= limit ? 'FAILURE' : 'SUCCESS')
        }),
        { numRuns: propertyRuns(8) },
      )
    })
  }

  it('two codes of one campaign in one request by one customer: counted twice, first-time once, no 409', async () => {
    const { engine, store } = testEngine()
    const { id, codes } = await couponsWithRule(engine, 'campaign.redemptions.customers_count', 10, 2)
    const campaign = { id }
    const result = await engine.redemptions.redeemStackable({
      redeemables: codes.map((id) => ({ object: 'voucher', id })),
      order: { amount: 1000 },
      customer: { source_id: 'ana' },
    })
    expect(result.parent_redemption.result).toBe('SUCCESS')
    expect(result.redemptions).toHaveLength(2)
    const counters = await store.counters.getMany([`c:${campaign.id}`, `cu:${campaign.id}`])
    expect(counters.map((c) => c.value.count)).toEqual([2, 1])
  })

  it('a rolled-back redemption gives its place in the budget back', async () => {
    const { engine } = testEngine()
    const code = await couponWithRule(engine, 'campaign.redemptions.customers_count', 2)
    const redeem = (who: string) =>
      engine.redemptions.redeemStackable({
        redeemables: [{ object: 'voucher', id: code }],
        order: { amount: 1000 },
        customer: { source_id: who },
      })
    const a = await redeem('a')
    await redeem('a')
    await redeem('b')
    expect((await redeem('c')).parent_redemption.result).toBe('FAILURE')
    await engine.redemptions.rollbackStackable(a.parent_redemption.id)
    // a still has one live redemption: still two distinct customers.
    expect((await redeem('c')).parent_redemption.result).toBe('FAILURE')
  })
})

// 1,000-way races in one process: a safety limit for a loaded machine, not a measured time.
describe('quantity and balances under heavy contention, default options', { timeout: 30_000 }, () => {
  it('1,000 concurrent redemptions of a code with quantity 100: 100 succeed, 900 quantity_exceeded, 0 × 409', async () => {
    const { engine, store } = testEngine()
    await engine.vouchers.create({
      code: 'HOT',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      redemption: { quantity: 100 },
    })
    const commits = (store as MemoryStore).stats.commits
    const { thrown, ok, failed } = await race(engine, 1000, () => ({
      redeemables: [{ object: 'voucher', id: 'HOT' }],
      order: { amount: 1000 },
    }))
    expect(thrown).toEqual([])
    expect(ok).toBe(100)
    expect(failed.map((f) => failureCode(f.parent_redemption))).toEqual(Array(900).fill('quantity_exceeded'))
    expect((await engine.vouchers.get('HOT')).redemption.redeemed_quantity).toBe(100)
    // A refused request is answered in the commit whose guard failed (docs/storage.md#alternatives).
    expect((store as MemoryStore).stats.commits - commits).toBeLessThanOrEqual(1.2 * 1000)
  })

  it('1,000 concurrent redemptions of 70 on a gift card of 10,000: 142 succeed, the balance is 60', async () => {
    const { engine, store } = testEngine()
    await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 10_000 } })
    const commits = (store as MemoryStore).stats.commits
    const { thrown, ok, failed } = await race(engine, 1000, () => ({
      redeemables: [{ object: 'voucher', id: 'GIFT', gift: { credits: 70 } }],
      order: { amount: 1000 },
    }))
    expect(thrown).toEqual([])
    expect(ok).toBe(142)
    expect(new Set(failed.map((f) => failureCode(f.parent_redemption)))).toEqual(new Set(['gift_amount_exceeded']))
    const card = await engine.vouchers.get('GIFT')
    expect(card.gift?.balance).toBe(60)
    expect(card.redemption.redeemed_quantity).toBe(142)
    // Every refusal says what was left when it was refused, answered in one commit or not.
    const explained = failed.map((f) => f.inapplicable_redeemables[0]?.explanation)
    expect(new Set(explained.map((e) => JSON.stringify(e)))).toEqual(
      new Set([
        JSON.stringify({
          check: 'gift.balance',
          detail: '70 credits requested, 60 available',
          expected: 60,
          actual: 70,
        }),
      ]),
    )
    expect((store as MemoryStore).stats.commits - commits).toBeLessThanOrEqual(1.2 * 1000)
  })
})

describe('a loyalty card under contention, default options', { timeout: 60_000 }, () => {
  it('120 concurrent payments of 10 points from a card of 500: 50 succeed, the rest loyalty_card_points_exceeded, buckets agree', async () => {
    const { engine, store } = testEngine()
    const { card, coin } = await cardPayingWithPoints(engine)
    const commits = (store as MemoryStore).stats.commits
    const { thrown, ok, failed } = await race(engine, 120, () => ({
      customer: { source_id: 'alice' },
      order: { amount: 1000, status: 'CREATED' },
      redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 10 } }],
    }))
    expect(thrown).toEqual([])
    expect(ok).toBe(50)
    expect(new Set(failed.map((f) => failureCode(f.parent_redemption)))).toEqual(
      new Set(['loyalty_card_points_exceeded']),
    )
    const after = await engine.loyalties.getMember(null, card.id)
    expect(after.loyalty_card?.balance).toBe(0)
    expect(after.redemption.redeemed_points).toBe(500)
    const buckets = await store.points_buckets.list({ where: { voucher_id: card.id } })
    expect(buckets.data.reduce((n, b) => n + b.value.remaining, 0)).toBe(0)
    // The member's concurrent payments all think they are the first in the campaign: the ones whose
    // "first" guard fails are counted again in the same commit, the refused ones answered in it.
    expect((store as MemoryStore).stats.commits - commits).toBeLessThanOrEqual(1.2 * 120)
  })
})

// 1,000-way races in one process: a safety limit for a loaded machine, not a measured time.
describe('claims of free codes under contention, default options', { timeout: 30_000 }, () => {
  it('1,000 concurrent publications from a campaign with 1,200 free codes give 1,000 distinct codes, 0 × 409', async () => {
    const { engine, store } = testEngine()
    const campaign = await engine.campaigns.create({
      name: 'Welcome',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
      vouchers_count: 1200,
    })
    await engine.asyncActions.runPending()
    const commits = (store as MemoryStore).stats.commits
    const settled = await Promise.allSettled(
      Array.from({ length: 1000 }, (_, i) =>
        engine.publications.create({ campaign: { name: campaign.name }, customer: { source_id: `p${i}` } }),
      ),
    )
    expect(
      settled.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason)),
    ).toEqual([])
    const codes = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.voucher?.code] : []))
    expect(new Set(codes).size).toBe(1000)
    const perRequest = ((store as MemoryStore).stats.commits - commits) / 1000
    expect(perRequest).toBeLessThanOrEqual(1.2)
  })

  it('500 concurrent new members of a program with 600 free cards each get their own card, 0 × 409', async () => {
    const { engine } = testEngine()
    const club = await engine.loyalties.create({
      name: 'Club',
      type: 'STATIC',
      vouchers_count: 600,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
    })
    await engine.asyncActions.runPending()
    const settled = await Promise.allSettled(
      Array.from({ length: 500 }, (_, i) =>
        engine.loyalties.createMember(club.id, { customer: { source_id: `m${i}` } }),
      ),
    )
    expect(
      settled.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason)),
    ).toEqual([])
    const cards = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.id] : []))
    expect(new Set(cards).size).toBe(500)
  })
})
