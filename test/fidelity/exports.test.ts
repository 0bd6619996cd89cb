import { describe, expect, it } from 'vitest'
import { rejection, snapshot, testEngine } from '../support/engine'

/*
 * Source: the hosted service's OpenAPI document (repository voucherify-openapi,
 * documentation/openapi/exports.json and campaigns.json): `POST /v1/exports` "Defaults" (an order
 * export: `id`, `source_id`, `status`) and its 400 `invalid_export_fields` ("Invalid Export");
 * `POST /v1/campaigns/{campaignId}/transactions/export` 403 `forbidden` ("Transactions are allowed
 * only for loyalty or gift campaigns"); the voucher transactions examples sign a
 * `CREDITS_REDEMPTION` negative and a `CREDITS_REFUND` positive. docs/behaviour.md#exports.
 */
type T = ReturnType<typeof testEngine>

async function csv(t: T, id: string): Promise<string> {
  await t.engine.asyncActions.runPending()
  const done = await t.engine.exports.get(id)
  return (await t.engine.files.get(done.result?.url ?? '')).content
}

describe('exports (OpenAPI)', () => {
  it('an order export without fields has the documented default columns', async () => {
    const t = testEngine()
    await t.engine.orders.create({ source_id: 'o-1', amount: 1000, status: 'PAID' })
    const exp = await t.engine.exports.create({ exported_object: 'order' })
    expect(exp.parameters.fields).toEqual(['id', 'source_id', 'status'])
    const lines = (await csv(t, exp.id)).split('\r\n')
    expect(lines[0]).toBe('id,source_id,status')
    expect(lines[1]).toMatch(/^ord_\w+,o-1,PAID$/)
  })

  it('a field the exported object does not have: 400 invalid_export_fields, nothing written', async () => {
    const t = testEngine()
    await t.engine.campaigns.create({
      name: 'Cards',
      campaign_type: 'GIFT_VOUCHERS',
      vouchers_count: 1,
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } },
    })
    const before = await snapshot(t.store)
    const objects = await rejection(
      t.engine.exports.create({ exported_object: 'order', parameters: { fields: ['id', 'colour'] } }),
    )
    expect(objects).toMatchObject({ code: 400, key: 'invalid_export_fields', message: 'Invalid Export' })
    const transactions = await rejection(
      t.engine.exports.createCampaignTransactionsExport('Cards', { parameters: { fields: ['id', 'colour'] } }),
    )
    expect(transactions).toMatchObject({ code: 400, key: 'invalid_export_fields' })
    expect(await snapshot(t.store)).toBe(before)
  })

  it('transactions of a campaign that is neither gift nor loyalty: 403 forbidden', async () => {
    const t = testEngine()
    await t.engine.campaigns.create({
      name: 'Coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    })
    const e = await rejection(t.engine.exports.createCampaignTransactionsExport('Coupons'))
    expect(e).toMatchObject({ code: 403, key: 'forbidden', message: 'Forbidden' })
    expect(e.details).toBe('Transactions are allowed only for loyalty or gift campaigns')
  })

  it('gift card transactions are signed: a redemption negative, its refund positive', async () => {
    const t = testEngine()
    const campaign = await t.engine.campaigns.create({
      name: 'Cards',
      campaign_type: 'GIFT_VOUCHERS',
      vouchers_count: 1,
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 10000 }, code_config: { pattern: 'CARD-####' } },
    })
    const code = (await t.store.vouchers.list({ where: { campaign_id: campaign.id } })).data[0]?.value.code ?? ''
    const redeemed = await t.engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: code, gift: { credits: 2000 } }],
      order: { amount: 5000 },
    })
    t.clock.advance(60_000)
    await t.engine.redemptions.rollbackStackable(redeemed.parent_redemption.id)
    const exp = await t.engine.exports.createCampaignTransactionsExport('Cards', {
      order: 'created_at',
      parameters: { fields: ['type', 'amount'] },
    })
    expect(await csv(t, exp.id)).toBe('type,amount\r\nCREDITS_REDEMPTION,-2000\r\nCREDITS_REFUND,2000\r\n')
  })
})
