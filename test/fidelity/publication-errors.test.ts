import { describe, expect, it } from 'vitest'
import { rejection, snapshot, testEngine } from '../support/engine'

/*
 * Source: the hosted service's OpenAPI document (repository voucherify-openapi,
 * documentation/openapi/publications.json), the 400 examples of `POST /v1/publications`:
 * `missing_vouchers` ("Either Campaign or Voucher is required"), `voucher_already_published`
 * ("Voucher '…' has already been published"), `duplicate_source_id` and `too_many_vouchers_requested`
 * ("Only up to 1 can be published"); documentation/openapi/loyalties.json, the 400 example of
 * `POST /v1/loyalties/{campaignId}/members`: `no_voucher_suitable_for_publication` ("Couldn't find any
 * voucher suitable for publication", "Couldn't create new vouchers for publication") for a campaign
 * with no code left to publish. docs/behaviour.md#publication-errors.
 */
async function setup() {
  const t = testEngine()
  await t.engine.campaigns.create({
    name: 'Coupons',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'STATIC',
    vouchers_count: 1,
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
  })
  return t
}

describe('publication errors (OpenAPI POST /v1/publications)', () => {
  it('a code published to someone else: 400 voucher_already_published', async () => {
    const t = await setup()
    const first = await t.engine.publications.create({ customer: { source_id: 'alice' }, campaign: 'Coupons' })
    const code = first.voucher?.code ?? ''
    const before = await snapshot(t.store)
    const e = await rejection(t.engine.publications.create({ customer: { source_id: 'bob' }, voucher: code }))
    expect(e).toMatchObject({ code: 400, key: 'voucher_already_published', message: 'Voucher already published' })
    expect(e.details).toContain('has already been published')
    expect(await snapshot(t.store)).toBe(before)
  })

  it('neither a campaign nor a voucher: 400 missing_vouchers', async () => {
    const t = await setup()
    const e = await rejection(t.engine.publications.create({ customer: { source_id: 'alice' } }))
    expect(e).toMatchObject({ code: 400, key: 'missing_vouchers', message: 'Missing vouchers' })
    expect(e.details).toContain('Either Campaign or Voucher is required')
  })

  it('a STATIC campaign without a free code: 400 no_voucher_suitable_for_publication', async () => {
    const t = await setup()
    await t.engine.publications.create({ customer: { source_id: 'alice' }, campaign: 'Coupons' })
    const before = await snapshot(t.store)
    const e = await rejection(t.engine.publications.create({ customer: { source_id: 'bob' }, campaign: 'Coupons' }))
    expect(e).toMatchObject({
      code: 400,
      key: 'no_voucher_suitable_for_publication',
      message: "Couldn't find any voucher suitable for publication",
    })
    expect(await snapshot(t.store)).toBe(before)
  })

  it('two codes where only one can be published (with a source_id, or of a given voucher): 400 too_many_vouchers_requested', async () => {
    const t = await setup()
    const before = await snapshot(t.store)
    const withSource = await rejection(
      t.engine.publications.create({
        customer: { source_id: 'alice' },
        campaign: { name: 'Coupons', count: 2 },
        source_id: 'p',
      }),
    )
    expect(withSource).toMatchObject({
      code: 400,
      key: 'too_many_vouchers_requested',
      message: 'Too many vouchers requested',
      path: 'campaign.count',
    })
    expect(withSource.details).toMatch(/^Only up to 1 can be published/)
    expect(await snapshot(t.store)).toBe(before)
  })

  it("a source_id of another customer's publication: 400 duplicate_source_id", async () => {
    const t = await setup()
    await t.engine.publications.create({ customer: { source_id: 'alice' }, campaign: 'Coupons', source_id: 'pub-1' })
    const e = await rejection(
      t.engine.publications.create({ customer: { source_id: 'bob' }, campaign: 'Coupons', source_id: 'pub-1' }),
    )
    expect(e).toMatchObject({ code: 400, key: 'duplicate_source_id', message: 'Duplicate source_id' })
  })
})
