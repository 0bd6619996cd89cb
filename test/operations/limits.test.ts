import { describe, expect, it } from 'vitest'
import { engineContext } from '../../src/engine'
import { mutate } from '../../src/operations/kernel/unit-of-work'
import { recordReferral } from '../../src/operations/referrals/conversions'
import { parseStackableRequest } from '../../src/schema/stackable'
import { snapshot, testEngine } from '../support/engine'

/**
 * The service interface's Limits table, for every list operation: `limit` 1–100 (default 10), `page` 1–100 on
 * page-based lists, each violation a 400 naming the parameter and the bound.
 */
async function setup() {
  const t = testEngine()
  const e = t.engine
  await e.products.create({ source_id: 'p', name: 'P' })
  for (let i = 0; i < 12; i++) await e.products.createSku('p', { sku: `s${i}` })
  const promo = await e.promotions.create({
    name: 'Promo',
    campaign_type: 'PROMOTION',
    promotion: { tiers: [{ name: 'T', action: { discount: { type: 'AMOUNT', amount_off: 1 } } }] },
  })
  const tierId = promo.promotion.tiers[0]?.id ?? ''
  for (let i = 0; i < 12; i++) {
    await e.promotions.stacks.createInCampaign(promo.id, { name: `S${i}`, tiers: { ids: [tierId] } })
  }
  const referral = await e.campaigns.create({
    name: 'Ref',
    campaign_type: 'REFERRAL_PROGRAM',
    vouchers_count: 1,
    voucher: { discount: { type: 'AMOUNT', amount_off: 1 } },
  })
  const code = (await e.referrals.publish('Ref', { customer: { source_id: 'referrer' } })).voucher?.code ?? ''
  const voucher = await e.vouchers.get(code)
  for (let i = 0; i < 12; i++) {
    const referee = await e.customers.create({ source_id: `referee${i}` })
    await mutate(engineContext(e), (tx) => recordReferral(tx, { voucher, customerId: referee.id }))
  }
  for (let i = 0; i < 12; i++) await e.templates.createCampaignTemplate({ campaign_id: referral.id, name: `T${i}` })
  return { ...t, promoId: promo.id, code }
}

type Setup = Awaited<ReturnType<typeof setup>>
type ListOp = (s: Setup, query: Record<string, unknown>) => Promise<unknown>

const LISTS: [string, ListOp, boolean][] = [
  ['products.listSkus', (s, q) => s.engine.products.listSkus('p', q), true],
  ['promotions.stacks.list', (s, q) => s.engine.promotions.stacks.list(q), true],
  ['promotions.stacks.listInCampaign', (s, q) => s.engine.promotions.stacks.listInCampaign(s.promoId, q), true],
  ['referrals.listHolders', (s, q) => s.engine.referrals.listHolders(s.code, q), false],
  ['templates.listCampaignTemplates', (s, q) => s.engine.templates.listCampaignTemplates(q), false],
]

/** The array of a list envelope, whatever its `data_ref`. */
function items(list: unknown): unknown[] {
  const l = list as Record<string, unknown> & { data_ref: string }
  return l[l.data_ref] as unknown[]
}

describe('limits of every list operation', () => {
  it.each(LISTS)('%s: limit defaults to 10 and takes 1 and 100', async (_name, run) => {
    const s = await setup()
    expect(items(await run(s, {}))).toHaveLength(10)
    expect(items(await run(s, { limit: 1 }))).toHaveLength(1)
    expect(items(await run(s, { limit: 100 })).length).toBeGreaterThan(10)
  })

  it.each(LISTS.flatMap(([name, run]) => [0, 101, -1, 2.5, '0', '101'].map((limit) => [name, run, limit] as const)))(
    '%s: limit %j is a 400 naming limit and the bound 1–100',
    async (_name, run, limit) => {
      const s = await setup()
      const before = await snapshot(s.store)
      await expect(run(s, { limit })).rejects.toMatchObject({ code: 400, key: 'invalid_query_params', path: 'limit' })
      if (typeof limit === 'number' && Number.isInteger(limit)) {
        await expect(run(s, { limit })).rejects.toMatchObject({ details: expect.stringContaining('between 1 and 100') })
      }
      expect(await snapshot(s.store)).toBe(before)
    },
  )

  it.each(
    LISTS.filter(([, , paged]) => paged).flatMap(([name, run]) => [0, 101].map((page) => [name, run, page] as const)),
  )('%s: page %j is a 400 naming page and the bound 1–100', async (_name, run, page) => {
    const s = await setup()
    await expect(run(s, { page })).rejects.toMatchObject({
      code: 400,
      path: 'page',
      details: expect.stringContaining('between 1 and 100'),
    })
  })

  it.each(LISTS.filter(([, , paged]) => paged))('%s: page 1 and 100 are accepted', async (_name, run) => {
    const s = await setup()
    expect(items(await run(s, { page: 1, limit: 5 }))).toHaveLength(5)
    expect(items(await run(s, { page: 100 }))).toEqual([])
  })
})

describe('one voucher per publication request with source_id', () => {
  it('refuses count 2 with source_id (400 naming campaign.count) and accepts count 1', async () => {
    const { engine, store } = testEngine()
    await engine.campaigns.create({
      name: 'Plain',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 3,
      voucher: { discount: { type: 'AMOUNT', amount_off: 1 } },
    })
    const before = await snapshot(store)
    await expect(
      engine.publications.create({
        customer: { source_id: 'c' },
        campaign: { name: 'Plain', count: 2 },
        source_id: 's1',
      }),
    ).rejects.toMatchObject({
      code: 400,
      key: 'too_many_vouchers_requested',
      path: 'campaign.count',
      details: 'Only up to 1 can be published when source_id is given (one voucher per request)',
    })
    expect(await snapshot(store)).toBe(before)
    const one = await engine.publications.create({
      customer: { source_id: 'c' },
      campaign: { name: 'Plain', count: 1 },
      source_id: 's1',
    })
    expect(one.vouchers_id).toHaveLength(1)
  })
})

describe('redeemables per validation request (schema shared by validations and redemptions)', () => {
  const voucher = (i: number) => ({ object: 'voucher', id: `CODE${i}` })
  it.each([0, 31])('%i redeemables is a 400 naming redeemables and the bound 1–30', (n) => {
    expect(() => parseStackableRequest({ redeemables: Array.from({ length: n }, (_, i) => voucher(i)) })).toThrow(
      expect.objectContaining({ code: 400, path: 'redeemables', details: expect.stringContaining('between 1 and 30') }),
    )
  })
  it.each([1, 30])('%i redeemables is accepted', (n) => {
    expect(
      parseStackableRequest({ redeemables: Array.from({ length: n }, (_, i) => voucher(i)) }).redeemables,
    ).toHaveLength(n)
  })
})
