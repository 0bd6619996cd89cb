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

  // OpenAPI `POST /v1/exports` "Defaults": voucher `code`, `voucher_type`, `value`, `discount_type`;
  // publication `code`, `customer_id`, `date`, `channel`; redemption `id`, `object`, `voucher_code`,
  // `customer_id`, `date`, `result`; and the computed columns of `ExportVoucherFields`,
  // `ExportRedemptionFields`, `ExportCustomerFields` (a voucher's `value`: a discount's amount, a gift
  // card's credits left, a loyalty card's points).
  it('the documented default and computed columns of voucher, publication, redemption and customer exports', async () => {
    const t = testEngine()
    await t.engine.vouchers.create({
      code: 'TEN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 10, amount_limit: 500 },
    })
    t.clock.advance(1000)
    await t.engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 5000 } })
    t.clock.advance(1000)
    await t.engine.campaigns.create({
      name: 'Coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 1,
      voucher: {
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'AMOUNT', amount_off: 300 },
        code_config: { pattern: 'C-####' },
      },
    })
    const published = await t.engine.publications.create({
      customer: { source_id: 'ann', name: 'Ann' },
      campaign: { name: 'Coupons' },
    })
    const coupon = published.voucher?.code ?? ''
    t.clock.advance(1000)
    await t.engine.redemptions.redeemStackable({
      customer: { source_id: 'ann' },
      redeemables: [{ object: 'voucher', id: 'GIFT', gift: { credits: 1200 } }],
      order: { amount: 2000 },
    })

    const vouchers = await t.engine.exports.create({ exported_object: 'voucher', parameters: { order: 'created_at' } })
    expect(vouchers.parameters.fields).toEqual(['code', 'voucher_type', 'value', 'discount_type'])
    expect((await csv(t, vouchers.id)).split('\r\n').slice(0, 4)).toEqual([
      'code,voucher_type,value,discount_type',
      'TEN,DISCOUNT_VOUCHER,10,PERCENT',
      'GIFT,GIFT_VOUCHER,3800,',
      `${coupon},DISCOUNT_VOUCHER,300,AMOUNT`,
    ])
    const more = await t.engine.exports.create({
      exported_object: 'voucher',
      parameters: {
        order: 'created_at',
        fields: ['code', 'gift_balance', 'redemption_count', 'discount_amount_limit', 'customer_source_id'],
      },
    })
    expect((await csv(t, more.id)).split('\r\n').slice(1, 4)).toEqual([
      'TEN,,0,500,',
      'GIFT,3800,1,,',
      `${coupon},,0,,ann`,
    ])

    const publications = await t.engine.exports.create({ exported_object: 'publication' })
    expect(publications.parameters.fields).toEqual(['code', 'customer_id', 'date', 'channel'])
    const ann = await t.engine.customers.get('ann')
    expect((await csv(t, publications.id)).split('\r\n').slice(0, 2)).toEqual([
      'code,customer_id,date,channel',
      `${coupon},${ann.id},${published.created_at},${published.channel}`,
    ])

    const redemptions = await t.engine.exports.create({
      exported_object: 'redemption',
      parameters: { filters: { voucher_code: { conditions: { $in: ['GIFT'] } } } },
    })
    expect(redemptions.parameters.fields).toEqual(['id', 'object', 'voucher_code', 'customer_id', 'date', 'result'])
    const lines = (await csv(t, redemptions.id)).split('\r\n')
    expect(lines[0]).toBe('id,object,voucher_code,customer_id,date,result')
    expect(lines[1]).toMatch(new RegExp(`^r_\\w+,redemption,GIFT,${ann.id},[^,]+,SUCCESS$`))
    expect(lines[2]).toBe('')

    const customers = await t.engine.exports.create({
      exported_object: 'customer',
      parameters: {
        fields: ['source_id', 'redemptions_total_redeemed', 'orders_total_count', 'orders_last_order_amount'],
      },
    })
    expect((await csv(t, customers.id)).split('\r\n').slice(0, 2)).toEqual([
      'source_id,redemptions_total_redeemed,orders_total_count,orders_last_order_amount',
      'ann,1,1,800',
    ])
  })
})
