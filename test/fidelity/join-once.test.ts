import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../support/engine'

async function joinOnce(type: 'AUTO_UPDATE' | 'STATIC' = 'STATIC') {
  const t = testEngine()
  await t.engine.campaigns.create({
    name: 'Welcome',
    type,
    campaign_type: 'DISCOUNT_COUPONS',
    join_once: true,
    vouchers_count: 3,
    voucher: { discount: { type: 'AMOUNT', amount_off: 500 } },
  })
  return t
}

describe('join_once publications return the code the customer holds', () => {
  it('a second request, without source_id, gives the same code and writes nothing', async () => {
    const { engine, store } = await joinOnce()
    const first = await engine.publications.create({ customer: { source_id: 'alice' }, campaign: 'Welcome' })
    const before = await snapshot(store)
    const again = await engine.publications.create({ customer: { source_id: 'alice' }, campaign: 'Welcome' })
    expect(again.voucher?.code).toBe(first.voucher?.code)
    expect(again.id).toBe(first.id)
    expect(again.vouchers_id).toEqual(first.vouchers_id)
    expect(await snapshot(store)).toBe(before)
  })

  it('a request with a new source_id gives the same code, never a second one', async () => {
    const { engine, store } = await joinOnce('AUTO_UPDATE')
    const first = await engine.publications.create({
      customer: { source_id: 'alice' },
      campaign: 'Welcome',
      source_id: 'p1',
    })
    const again = await engine.publications.create({
      customer: { source_id: 'alice' },
      campaign: 'Welcome',
      source_id: 'p2',
    })
    expect(again.voucher?.code).toBe(first.voucher?.code)
    const alices = (await store.vouchers.list()).data.filter((s) => s.value.holder_id === first.customer.id)
    expect(alices).toHaveLength(1)
    expect(alices[0]?.value.publish.count).toBe(1)
  })

  it('a campaign without join_once gives a second code', async () => {
    const { engine } = testEngine()
    await engine.campaigns.create({
      name: 'Plain',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 3,
      voucher: { discount: { type: 'AMOUNT', amount_off: 500 } },
    })
    const a = await engine.publications.create({ customer: { source_id: 'alice' }, campaign: 'Plain' })
    const b = await engine.publications.create({ customer: { source_id: 'alice' }, campaign: 'Plain' })
    expect(b.voucher?.code).not.toBe(a.voucher?.code)
  })

  it('concurrent first publications of two different codes to one customer give one code', async () => {
    const { engine, store } = await joinOnce()
    const alice = await engine.customers.create({ source_id: 'alice' })
    const codes = (await store.vouchers.list()).data.map((s) => s.value.code)
    const results = await Promise.all(
      codes.slice(0, 2).map((voucher) => engine.publications.create({ customer: { source_id: 'alice' }, voucher })),
    )
    expect(results[0]?.voucher?.code).toBe(results[1]?.voucher?.code)
    const held = (await store.vouchers.list()).data.filter((s) => s.value.holder_id === alice.id)
    expect(held).toHaveLength(1)
  })

  it('concurrent first publications for a new customer give one code', async () => {
    const { engine, store } = await joinOnce()
    const results = await Promise.all(
      [1, 2].map(() => engine.publications.create({ customer: { source_id: 'bob' }, campaign: 'Welcome' })),
    )
    expect(results[0]?.voucher?.code).toBe(results[1]?.voucher?.code)
    const held = (await store.vouchers.list()).data.filter((s) => s.value.holder_id !== null)
    expect(held).toHaveLength(1)
  })

  it('count 2 in a join_once campaign is a 400 too_many_vouchers_requested naming campaign.count', async () => {
    const { engine } = await joinOnce()
    await expect(
      engine.publications.create({ customer: { source_id: 'alice' }, campaign: { name: 'Welcome', count: 2 } }),
    ).rejects.toMatchObject({ code: 400, key: 'too_many_vouchers_requested', path: 'campaign.count' })
  })
})

describe('a publication shows tracking_id', () => {
  it("is the customer's source_id", async () => {
    const { engine } = await joinOnce()
    const published = await engine.publications.create({ customer: { source_id: 'alice' }, campaign: 'Welcome' })
    expect(published.tracking_id).toBe('alice')
  })
})
