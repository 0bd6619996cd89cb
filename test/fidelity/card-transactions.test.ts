import { describe, expect, it } from 'vitest'
import { cardPayingWithPoints, member, program } from '../operations/loyalty/fixtures'
import { testEngine } from '../support/engine'

/*
 * Source: the hosted service's OpenAPI document (repository voucherify-openapi,
 * production/readOnly-openAPI.json): `POST /v1/campaigns/{campaignId}/transactions/export` exports
 * "credit movements on all gift cards or point movements on all loyalty cards in a given campaign",
 * with `type` (gift cards `CREDITS_REMOVAL`, `CREDITS_ADDITION`, `CREDITS_REFUND`,
 * `CREDITS_REDEMPTION`; loyalty cards `POINTS_ACCRUAL`, `POINTS_REDEMPTION`, `POINTS_REFUND`,
 * `POINTS_ADDITION`, `POINTS_REMOVAL`, `POINTS_EXPIRATION`, …), `balance` ("The gift card or loyalty
 * card balance after the transaction") and `amount` ("can either be negative or positive depending on
 * the nature of the transaction"); `ExportVoucherTransactionsFields`; `POST /v1/exports` "Defaults":
 * `voucher_transactions` `id`, `type`, `source_id`, `status`, `reason`, `source`, `balance`, `amount`,
 * `created_at`. docs/behaviour.md#exports, docs/behaviour.md#card-transactions.
 */
type T = ReturnType<typeof testEngine>

async function csv(t: T, id: string): Promise<string[]> {
  await t.engine.asyncActions.runPending()
  const done = await t.engine.exports.get(id)
  return (await t.engine.files.get(done.result?.url ?? '')).content.split('\r\n').filter((l) => l !== '')
}

async function exportRows(t: T, campaign: string, order: 'created_at' | '-created_at', fields: string[]) {
  const exp = await t.engine.exports.createCampaignTransactionsExport(campaign, { order, parameters: { fields } })
  return csv(t, exp.id)
}

describe('gift card transactions: signed amounts and the balance after each', () => {
  it('redemptions negative, a refund positive, each with the card’s balance after it, in either order', async () => {
    const t = testEngine()
    t.clock.set('2026-03-01T10:00:00.000Z')
    const campaign = await t.engine.campaigns.create({
      name: 'Cards',
      campaign_type: 'GIFT_VOUCHERS',
      vouchers_count: 1,
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 10000 }, code_config: { pattern: 'CARD-####' } },
    })
    const code = (await t.store.vouchers.list({ where: { campaign_id: campaign.id } })).data[0]?.value.code ?? ''
    const redeem = (credits: number) =>
      t.engine.redemptions.redeemStackable({
        redeemables: [{ object: 'voucher', id: code, gift: { credits } }],
        order: { amount: 9000 },
      })
    t.clock.advance(60_000)
    const first = await redeem(2000)
    t.clock.advance(60_000)
    await redeem(3000)
    t.clock.advance(60_000)
    await t.engine.redemptions.rollbackStackable(first.parent_redemption.id)
    const oldestFirst = await exportRows(t, 'Cards', 'created_at', ['type', 'amount', 'balance'])
    expect(oldestFirst).toEqual([
      'type,amount,balance',
      'CREDITS_REDEMPTION,-2000,8000',
      'CREDITS_REDEMPTION,-3000,5000',
      'CREDITS_REFUND,2000,7000',
    ])
    const newestFirst = await exportRows(t, 'Cards', '-created_at', ['type', 'amount', 'balance'])
    expect(newestFirst).toEqual([oldestFirst[0], ...oldestFirst.slice(1).reverse()])
    const defaults = await t.engine.exports.createCampaignTransactionsExport('Cards')
    expect(defaults.parameters.fields).toEqual([
      'id',
      'type',
      'source_id',
      'status',
      'reason',
      'source',
      'balance',
      'amount',
      'created_at',
    ])
  })

  it('concurrent redemptions of one card and of many cards: every balance is the one its row left', async () => {
    const t = testEngine()
    t.clock.set('2026-03-01T10:00:00.000Z')
    await t.engine.campaigns.create({
      name: 'Cards',
      campaign_type: 'GIFT_VOUCHERS',
      vouchers_count: 6,
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 }, code_config: { pattern: 'CARD-####' } },
    })
    const codes = (await t.store.vouchers.list()).data.map((s) => s.value.code)
    const hot = codes[0] ?? ''
    const redeem = (code: string, credits: number) =>
      t.engine.redemptions
        .redeemStackable({ redeemables: [{ object: 'voucher', id: code, gift: { credits } }], order: { amount: 5000 } })
        .catch(() => undefined)
    // Twenty checkouts on one card (ten fit), and one on each other card, all at once.
    await Promise.all([
      ...Array.from({ length: 20 }, () => redeem(hot, 100)),
      ...codes.slice(1).map((code, i) => redeem(code, 100 * (i + 1))),
    ])
    const rows = (await exportRows(t, 'Cards', 'created_at', ['voucher_code', 'status', 'amount', 'balance'])).slice(1)
    const hotRows = rows.filter((r) => r.startsWith(`${hot},SUCCEEDED`))
    expect(hotRows).toHaveLength(10)
    // Each successful redemption of the hot card left it 100 lower, down to 0, as the card is now.
    expect(hotRows.map((r) => Number(r.split(',')[3]))).toEqual([900, 800, 700, 600, 500, 400, 300, 200, 100, 0])
    for (const [i, code] of codes.slice(1).entries()) {
      expect(rows).toContain(`${code},SUCCEEDED,${-100 * (i + 1)},${1000 - 100 * (i + 1)}`)
    }
  })

  // OpenAPI `ExportsCreateRequestBody` includes `ExportVoucherTransactionsBase` (`exported_object`
  // `voucher_transactions`, filters `campaign_id` `$in` with one id, `TransactionsExportFilterConditionsWithCampaign`).
  it('POST /v1/exports of voucher_transactions is the transactions export of the campaign its filter names', async () => {
    const t = testEngine()
    t.clock.set('2026-03-01T10:00:00.000Z')
    const campaign = await t.engine.campaigns.create({
      name: 'Cards',
      campaign_type: 'GIFT_VOUCHERS',
      vouchers_count: 1,
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 10000 }, code_config: { pattern: 'CARD-####' } },
    })
    const code = (await t.store.vouchers.list({ where: { campaign_id: campaign.id } })).data[0]?.value.code ?? ''
    await t.engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: code, gift: { credits: 2500 } }],
      order: { amount: 9000 },
    })
    const exp = await t.engine.exports.create({
      exported_object: 'voucher_transactions',
      parameters: {
        fields: ['type', 'amount', 'balance'],
        filters: { campaign_id: { conditions: { $in: [campaign.id] } } },
      },
    })
    expect(exp).toMatchObject({ exported_object: 'voucher_transactions', status: 'SCHEDULED' })
    expect(await csv(t, exp.id)).toEqual(['type,amount,balance', 'CREDITS_REDEMPTION,-2500,7500'])
    const missing = await t.engine.exports.create({ exported_object: 'voucher_transactions' }).catch((e: unknown) => e)
    expect(missing).toMatchObject({ code: 400, path: 'parameters.filters.campaign_id' })
  })

  it('cards of one campaign each keep their own balance, interleaved by date', async () => {
    const t = testEngine()
    t.clock.set('2026-03-01T10:00:00.000Z')
    await t.engine.campaigns.create({
      name: 'Cards',
      campaign_type: 'GIFT_VOUCHERS',
      vouchers_count: 2,
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 5000 }, code_config: { pattern: 'CARD-####' } },
    })
    const codes = (await t.store.vouchers.list()).data.map((s) => s.value.code)
    for (const [i, code] of codes.entries()) {
      t.clock.advance(60_000)
      await t.engine.redemptions.redeemStackable({
        redeemables: [{ object: 'voucher', id: code, gift: { credits: 1000 * (i + 1) } }],
        order: { amount: 9000 },
      })
    }
    const rows = await exportRows(t, 'Cards', 'created_at', ['voucher_code', 'amount', 'balance'])
    expect(rows).toEqual(['voucher_code,amount,balance', `${codes[0]},-1000,4000`, `${codes[1]},-2000,3000`])
  })
})

describe('loyalty card transactions: accrual, redemption, refund and expiration rows', () => {
  it('each movement of points is a row with its sign and the balance after it', async () => {
    const t = testEngine()
    t.clock.set('2026-01-25T12:00:00.000Z')
    const club = await program(t.engine, {
      voucher: {
        type: 'LOYALTY_CARD',
        loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1 } },
      },
    })
    await t.engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 40 } },
    ])
    const card = await member(t.engine, club.id)
    const product = await t.engine.products.create({ name: 'Mug', source_id: 'mug' })
    const mug = await t.engine.rewards.create({
      name: 'Mug',
      type: 'MATERIAL',
      parameters: { product: { id: product.id } },
    })
    await t.engine.rewards.createAssignment(mug.id, { campaign: club.id, parameters: { loyalty: { points: 15 } } })

    await t.engine.raw.orders.create({ source_id: 'o1', status: 'PAID', customer: { source_id: 'alice' }, amount: 100 })
    t.clock.advance(60_000)
    await t.engine.raw.orders.create({ source_id: 'o2', status: 'PAID', customer: { source_id: 'alice' }, amount: 100 })
    t.clock.advance(60_000)
    await t.engine.loyalties.redeemReward(club.id, card.id, { reward: { id: mug.id } })
    // Every bucket lapses a month on: what is left of the two accruals expires.
    t.clock.set('2026-02-26T00:00:00.000Z')
    await t.engine.asyncActions.runPending()
    expect((await t.engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(0)

    const fields = ['type', 'amount', 'balance', 'source']
    const rows = await exportRows(t, club.id, 'created_at', fields)
    expect(rows).toEqual([
      'type,amount,balance,source',
      'POINTS_ACCRUAL,40,40,API',
      'POINTS_ACCRUAL,40,80,API',
      'POINTS_REDEMPTION,-15,65,API',
      'POINTS_EXPIRATION,-65,0,AUTOMATION',
    ])
    const newest = await exportRows(t, club.id, '-created_at', fields)
    expect(newest).toEqual([rows[0], ...rows.slice(1).reverse()])
  })

  it('points paid with and given back by a rollback: POINTS_REDEMPTION negative, POINTS_REFUND positive', async () => {
    const t = testEngine()
    t.clock.set('2026-01-25T12:00:00.000Z')
    const { club, card, coin } = await cardPayingWithPoints(t.engine)
    t.clock.advance(60_000)
    const paid = await t.engine.redemptions.redeemStackable({
      customer: { source_id: 'alice' },
      redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 120 } }],
      order: { amount: 1000 },
    })
    t.clock.advance(60_000)
    await t.engine.redemptions.rollbackStackable(paid.parent_redemption.id)
    expect((await t.engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(500)
    expect(await exportRows(t, club.id, 'created_at', ['type', 'amount', 'balance'])).toEqual([
      'type,amount,balance',
      'POINTS_ACCRUAL,500,500',
      'POINTS_REDEMPTION,-120,380',
      'POINTS_REFUND,120,500',
    ])
  })
})
