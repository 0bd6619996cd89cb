import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { manualClock, testEngine } from '../support/engine'
import { program } from './loyalty/fixtures'

/**
 * Check-then-insert paths under concurrent requests: each test starts the requests together and
 * asserts the invariant the sequential check protects. A high `maxRetries` lets every loser re-read.
 */

describe('join-once under concurrency', () => {
  it('concurrent createMember of one existing customer with four named codes gives one card', async () => {
    const { engine, store } = testEngine({ maxRetries: 20 })
    const club = await program(engine, { type: 'STATIC', vouchers_count: 4 })
    await engine.customers.create({ source_id: 'ana' })
    const codes = (await store.vouchers.list({ where: { campaign_id: club.id } })).data.map((s) => s.value.code)
    expect(codes).toHaveLength(4)
    const cards = await Promise.all(
      codes.map((code) => engine.loyalties.createMember(club.id, { customer: { source_id: 'ana' }, voucher: code })),
    )
    const held = (await store.vouchers.list({ where: { campaign_id: club.id } })).data.filter((s) => s.value.holder_id)
    expect(held).toHaveLength(1)
    expect(new Set(cards.map((c) => c.id)).size).toBe(1)
    expect((await store.publications.list()).total).toBe(1)
  })
})

describe('auto-join enrolments under concurrency', () => {
  it("new customers' paid orders from two processes sharing a STATIC program's six free cards: each gets its own, none is left, no 409", async () => {
    // Two engines on one store: neither sees the other's held codes, so the cards their enrolments
    // read ahead (docs/storage.md#a-new-members-reads) can be the same, and the claim decides.
    const { engine, store } = testEngine({ maxRetries: 20 })
    const other = createEngine({ store, clock: manualClock(), random: seededRandom(7), maxRetries: 20 })
    const club = await program(engine, { type: 'STATIC', vouchers_count: 6, auto_join: true })
    await engine.raw.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 10 } },
    ])
    const free = (await store.vouchers.list({ where: { campaign_id: club.id } })).data.map((s) => s.value.code)
    expect(free).toHaveLength(6)
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? engine : other).orders.create({
          customer: { source_id: `new-${i}` },
          status: 'PAID',
          amount: 10_000,
        }),
      ),
    )
    const cards = (await store.vouchers.list({ where: { campaign_id: club.id } })).data.map((s) => s.value)
    expect(cards.map((c) => c.code).sort()).toEqual([...free].sort())
    expect(new Set(cards.map((c) => c.holder_id)).size).toBe(6)
    expect(cards.every((c) => c.holder_id !== null && c.loyalty_card?.balance === 10)).toBe(true)
    expect((await store.publications.list()).total).toBe(6)
  })
})

describe('loyalty tiers under concurrency', () => {
  it('two concurrent createTiers with overlapping ranges: one succeeds, the other is a 400', async () => {
    const { engine } = testEngine({ maxRetries: 20 })
    const club = await program(engine)
    const results = await Promise.allSettled([
      engine.loyalties.createTiers(club.id, [{ name: 'A', points: { from: 0, to: 100 } }]),
      engine.loyalties.createTiers(club.id, [{ name: 'B', points: { from: 50, to: 150 } }]),
    ])
    // Either may win (on a database, whichever commits first).
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    const winner = results.findIndex((r) => r.status === 'fulfilled')
    expect(results[1 - winner]).toMatchObject({ reason: { code: 400, path: '[0].points' } })
    const tiers = (await engine.loyalties.listTiers(club.id)).data
    expect(tiers.map((t) => [t.name, t.points.from, t.points.to])).toEqual([
      winner === 0 ? ['A', 0, 100] : ['B', 50, 150],
    ])
  })
})

describe('reward assignments under concurrency', () => {
  async function mugs(engine: ReturnType<typeof testEngine>['engine'], n: number) {
    const product = await engine.products.create({ name: 'Mug', source_id: 'mug' })
    return Promise.all(
      Array.from({ length: n }, (_, i) =>
        engine.rewards.create({ name: `Mug ${i}`, type: 'MATERIAL', parameters: { product: { id: product.id } } }),
      ),
    )
  }

  it('two concurrent assignments of one reward to one program: one is stored, the other is a 409', async () => {
    const { engine, store } = testEngine({ maxRetries: 20 })
    const club = await program(engine)
    const [mug] = await mugs(engine, 1)
    const body = { campaign: club.id, parameters: { loyalty: { points: 5 } } }
    const results = await Promise.allSettled([
      engine.rewards.createAssignment(mug?.id ?? '', body),
      engine.rewards.createAssignment(mug?.id ?? '', body),
    ])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({
      reason: { code: 409, key: 'duplicate_found' },
    })
    expect((await store.reward_assignments.list()).total).toBe(1)
  })

  it('two concurrent auto_redeem assignments of different rewards: only one is stored', async () => {
    const { engine, store } = testEngine({ maxRetries: 20 })
    const club = await program(engine)
    const rewards = await mugs(engine, 2)
    const results = await Promise.allSettled(
      rewards.map((r) =>
        engine.rewards.createAssignment(r.id, {
          campaign: club.id,
          parameters: { loyalty: { points: 5, auto_redeem: true } },
        }),
      ),
    )
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({
      reason: { code: 400, path: 'parameters.loyalty.auto_redeem' },
    })
    expect((await store.reward_assignments.list()).total).toBe(1)
  })
})

describe('the earning rule limit under concurrency', () => {
  it('ten concurrent creations of 15 rules in two programs store at most 100 rules', async () => {
    const { engine, store } = testEngine({ maxRetries: 20 })
    const clubs = [await program(engine, { name: 'A' }), await program(engine, { name: 'B' })]
    const rules = Array.from({ length: 15 }, () => ({ event: 'order.paid', loyalty: { type: 'FIXED', points: 1 } }))
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => engine.raw.loyalties.createEarningRule(clubs[i % 2]?.id ?? '', rules)),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(6)
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(4)
    expect((await store.earning_rules.list()).total).toBe(90)
  })
})

describe('publication source_id under concurrency', () => {
  it('two concurrent publications with one new source_id and different codes publish once', async () => {
    const { engine, store } = testEngine({ maxRetries: 20 })
    const coupons = await engine.campaigns.create({
      name: 'Coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      vouchers_count: 2,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    })
    await engine.asyncActions.runPending()
    await engine.customers.create({ source_id: 'cat' })
    const codes = (await store.vouchers.list({ where: { campaign_id: coupons.id } })).data.map((s) => s.value.code)
    expect(codes).toHaveLength(2)
    const results = await Promise.all(
      codes.map((code) =>
        engine.publications.create({ customer: { source_id: 'cat' }, voucher: code, source_id: 'src-1' }),
      ),
    )
    expect((await store.publications.list({ where: { source_id: 'src-1' } })).total).toBe(1)
    expect(results[0]?.id).toBe(results[1]?.id)
    const held = (await store.vouchers.list({ where: { campaign_id: coupons.id } })).data.filter(
      (s) => s.value.holder_id,
    )
    expect(held).toHaveLength(1)
  })

  it('two concurrent createMember with one publication source_id for two customers give one card', async () => {
    const { engine, store } = testEngine({ maxRetries: 20 })
    const club = await program(engine, { type: 'STATIC', vouchers_count: 2 })
    await engine.customers.create({ source_id: 'a' })
    await engine.customers.create({ source_id: 'b' })
    const codes = (await store.vouchers.list({ where: { campaign_id: club.id } })).data.map((s) => s.value.code)
    const cards = await Promise.all(
      ['a', 'b'].map((who, i) =>
        engine.raw.loyalties.createMember(club.id, {
          customer: { source_id: who },
          voucher: codes[i],
          source_id: 'pub-1',
        }),
      ),
    )
    expect(cards[0]?.id).toBe(cards[1]?.id)
    expect((await store.publications.list()).total).toBe(1)
  })
})
