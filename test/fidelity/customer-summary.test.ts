import { describe, expect, it } from 'vitest'
import { summaryRowId } from '../../src/rules/customer-summary'
import { testEngine } from '../support/engine'

/*
 * Source: the hosted service's OpenAPI document (repository voucherify-openapi, file OpenAPI.json), schemas
 * `CustomerSummary`, `CustomerSummaryRedemptions` and `CustomerSummaryOrders`: "Lists only data for
 * orders with the `PAID` or `FULFILLED` status. Data from orders with a `CREATED` or `CANCELED`
 * status are not included. The data is updated also when an order changes status."
 * docs/behaviour.md#customer-summary.
 */

type T = ReturnType<typeof testEngine>

async function giftCard(t: T, code = 'GIFT-1', amount = 10000) {
  return t.engine.vouchers.create({ code, type: 'GIFT_VOUCHER', gift: { amount } })
}

const redeemGift = (t: T, customer: string, credits: number, amount = 5000) =>
  t.engine.redemptions.redeemStackable({
    customer: { source_id: customer },
    redeemables: [{ object: 'voucher', id: 'GIFT-1', gift: { credits } }],
    order: { amount },
  })

describe('a customer carries its summary (OpenAPI CustomerSummary)', () => {
  it('a redemption and its paid order, then its rollback', async () => {
    const t = testEngine()
    await giftCard(t)
    const redeemed = await redeemGift(t, 'alice', 2000)
    const alice = await t.engine.customers.get('alice')
    expect(alice.summary).toEqual({
      redemptions: {
        total_redeemed: 1,
        total_failed: 0,
        total_succeeded: 1,
        total_rolled_back: 0,
        total_rollback_failed: 0,
        total_rollback_succeeded: 0,
        gift: { redeemed_amount: 2000, amount_to_go: 0 },
        loyalty_card: { redeemed_points: 0, points_to_go: 0 },
      },
      orders: {
        total_amount: 3000,
        total_discount_amount: 2000,
        total_count: 1,
        average_amount: 3000,
        last_order_amount: 3000,
        last_order_date: redeemed.order.created_at,
      },
    })
    await t.engine.redemptions.rollbackStackable(redeemed.parent_redemption.id)
    const after = (await t.engine.customers.get('alice')).summary
    expect(after.redemptions).toMatchObject({
      total_redeemed: 1,
      total_succeeded: 1,
      total_rolled_back: 1,
      total_rollback_succeeded: 1,
      total_rollback_failed: 0,
      gift: { redeemed_amount: 0 },
    })
    // The rollback cancels the order (WITH_ORDER): it leaves the order figures.
    expect(after.orders).toMatchObject({ total_count: 0, total_amount: 0, total_discount_amount: 0 })
  })

  it('a failed redemption and a refused rollback count as failed', async () => {
    const t = testEngine()
    await giftCard(t, 'GIFT-1', 1000)
    await redeemGift(t, 'bob', 5000).catch(() => undefined)
    const ok = await redeemGift(t, 'bob', 500)
    await t.engine.redemptions.rollbackStackable(ok.parent_redemption.id)
    await t.engine.redemptions.rollbackStackable(ok.parent_redemption.id).catch(() => undefined)
    const s = (await t.engine.customers.get('bob')).summary.redemptions
    expect(s).toMatchObject({
      total_redeemed: 2,
      total_failed: 1,
      total_succeeded: 1,
      total_rolled_back: 2,
      total_rollback_succeeded: 1,
      total_rollback_failed: 1,
    })
  })

  it('the balances to go are what the customer’s cards hold', async () => {
    const t = testEngine()
    await t.engine.campaigns.create({
      name: 'Cards',
      campaign_type: 'GIFT_VOUCHERS',
      vouchers_count: 2,
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 4000 } },
    })
    await t.engine.publications.create({ customer: { source_id: 'carol' }, campaign: { name: 'Cards', count: 2 } })
    expect((await t.engine.customers.get('carol')).summary.redemptions.gift.amount_to_go).toBe(8000)
  })

  it('an order counts only while PAID or FULFILLED, moving in and out exactly once', async () => {
    const t = testEngine()
    const orders = () => t.engine.customers.get('dan').then((c) => c.summary.orders)
    const o = await t.engine.orders.create({ source_id: 'o-1', customer: { source_id: 'dan' }, amount: 4000 })
    expect(o.status).toBe('CREATED')
    expect(await orders()).toMatchObject({ total_count: 0, total_amount: 0, last_order_date: null })
    await t.engine.orders.update('o-1', { status: 'PAID' })
    expect(await orders()).toMatchObject({ total_count: 1, total_amount: 4000, last_order_amount: 4000 })
    await t.engine.orders.update('o-1', { metadata: { note: 'again' } })
    await t.engine.orders.update('o-1', { status: 'FULFILLED' })
    expect(await orders()).toMatchObject({ total_count: 1, total_amount: 4000 })
    await t.engine.orders.update('o-1', { status: 'CANCELED' })
    expect(await orders()).toMatchObject({ total_count: 0, total_amount: 0 })
    await t.engine.orders.update('o-1', { status: 'PAID' })
    await t.engine.orders.create({ source_id: 'o-2', customer: { source_id: 'dan' }, amount: 1001, status: 'PAID' })
    expect(await orders()).toMatchObject({ total_count: 2, total_amount: 5001, average_amount: 2501 })
  })

  // OpenAPI `CustomerSummaryOrders`: `last_order_amount` / `last_order_date` describe the customer's
  // last order among those the summary lists (PAID or FULFILLED only): when the last one leaves, the
  // one before it is the last order again.
  it('the last order is the newest still PAID or FULFILLED, after the last one is cancelled', async () => {
    const t = testEngine()
    const orders = () => t.engine.customers.get('fay').then((c) => c.summary.orders)
    const first = await t.engine.orders.create({
      source_id: 'f-1',
      customer: { source_id: 'fay' },
      amount: 1000,
      status: 'PAID',
    })
    t.clock.advance(60_000)
    const second = await t.engine.orders.create({
      source_id: 'f-2',
      customer: { source_id: 'fay' },
      amount: 2500,
      status: 'PAID',
    })
    t.clock.advance(60_000)
    await t.engine.orders.create({ source_id: 'f-3', customer: { source_id: 'fay' }, amount: 9000 })
    expect(await orders()).toMatchObject({ last_order_amount: 2500, last_order_date: second.created_at })
    await t.engine.orders.update('f-2', { status: 'CANCELED' })
    expect(await orders()).toMatchObject({ total_count: 1, last_order_amount: 1000, last_order_date: first.created_at })
    // An older order paid again is the last order once more only if it is the newest counted one.
    await t.engine.orders.update('f-2', { status: 'FULFILLED' })
    expect(await orders()).toMatchObject({
      total_count: 2,
      last_order_amount: 2500,
      last_order_date: second.created_at,
    })
    await t.engine.orders.update('f-1', { status: 'CANCELED' })
    await t.engine.orders.update('f-2', { status: 'CANCELED' })
    expect(await orders()).toMatchObject({ total_count: 0, last_order_amount: null, last_order_date: null })
  })

  it('concurrent cancellations and payments of one customer’s orders leave the newest counted order last', async () => {
    const t = testEngine()
    const made = []
    for (let i = 0; i < 8; i++) {
      made.push(
        await t.engine.orders.create({
          source_id: `g-${i}`,
          customer: { source_id: 'gus' },
          amount: 100 * (i + 1),
          status: 'PAID',
        }),
      )
      t.clock.advance(1000)
    }
    // The newest four are cancelled while the oldest is paid again, all at once.
    await Promise.all([
      ...[4, 5, 6, 7].map((i) => t.engine.orders.update(`g-${i}`, { status: 'CANCELED' })),
      t.engine.orders.update('g-0', { status: 'FULFILLED' }),
    ])
    expect((await t.engine.customers.get('gus')).summary.orders).toMatchObject({
      total_count: 4,
      total_amount: 100 + 200 + 300 + 400,
      last_order_amount: 400,
      last_order_date: made[3]?.created_at,
    })
  })

  // OpenAPI `CustomersCreateResponseBody` is the customer object with its `summary`, as a read gives it.
  it('customers.create answers with the summary, for a new customer and for an upsert', async () => {
    const t = testEngine()
    const created = await t.engine.customers.create({ source_id: 'hal', name: 'Hal' })
    expect(created.summary).toEqual((await t.engine.customers.get('hal')).summary)
    expect(created.summary.orders).toMatchObject({ total_count: 0, last_order_amount: null })
    await t.engine.orders.create({ customer: { source_id: 'hal' }, amount: 700, status: 'PAID' })
    const upserted = await t.engine.customers.create({ source_id: 'hal', name: 'Hal B' })
    expect(upserted.name).toBe('Hal B')
    expect(upserted.summary).toEqual((await t.engine.customers.get('hal')).summary)
    expect(upserted.summary.orders).toMatchObject({ total_count: 1, total_amount: 700, last_order_amount: 700 })
  })

  it('concurrent orders of one customer and of many customers all count', async () => {
    const t = testEngine()
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.engine.orders.create({ customer: { source_id: 'eve' }, amount: 100 + i, status: 'PAID' }),
      ),
    )
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.engine.orders.create({ customer: { source_id: `c-${i}` }, amount: 100, status: 'PAID' }),
      ),
    )
    expect((await t.engine.customers.get('eve')).summary.orders).toMatchObject({ total_count: 20, total_amount: 2190 })
    for (let i = 0; i < 20; i++) {
      expect((await t.engine.customers.get(`c-${i}`)).summary.orders.total_count).toBe(1)
    }
  })
})

describe('customers stored before summaries: the resumable backfill', () => {
  it('pages customers by cursor, fills each from its history, and leaves filled ones alone', async () => {
    const t = testEngine()
    await giftCard(t)
    const rolled = await redeemGift(t, 'alice', 1000, 3000)
    await t.engine.redemptions.rollbackStackable(rolled.parent_redemption.id)
    t.clock.advance(60_000)
    await redeemGift(t, 'alice', 2000)
    await t.engine.orders.create({ source_id: 'b-1', customer: { source_id: 'bob' }, amount: 700, status: 'PAID' })
    await t.engine.orders.create({ source_id: 'b-2', customer: { source_id: 'bob' }, amount: 900 })
    await t.engine.customers.create({ source_id: 'carol' })
    const live = {
      alice: (await t.engine.customers.get('alice')).summary,
      bob: (await t.engine.customers.get('bob')).summary,
    }
    // As a store written before summaries were kept: no summary rows.
    const ids = await Promise.all(['alice', 'bob'].map(async (s) => (await t.engine.customers.get(s)).id))
    const rows = await t.store.counters.getMany(ids.map(summaryRowId))
    expect(rows).toHaveLength(2)
    await t.store.commit({
      writes: rows.map((r) => ({
        op: 'delete' as const,
        collection: 'counters' as const,
        id: r.value.id,
        expectedVersion: r.version,
      })),
    })
    expect((await t.engine.customers.get('alice')).summary.orders.total_count).toBe(0)
    // A live order of bob's before the backfill reaches him: his row holds only that order.
    await t.engine.orders.update('b-2', { status: 'PAID' })

    const first = await t.engine.maintenance.backfillCustomerSummaries({ limit: 2 })
    expect(first.filled).toBe(2)
    expect(first.next_starting_after).not.toBeNull()
    const second = await t.engine.maintenance.backfillCustomerSummaries({
      limit: 2,
      starting_after: first.next_starting_after ?? '',
    })
    expect(second.filled + first.filled).toBe(3)
    expect(second.next_starting_after).toBeNull()

    expect((await t.engine.customers.get('alice')).summary).toEqual(live.alice)
    const bob = (await t.engine.customers.get('bob')).summary
    expect(bob.orders).toMatchObject({ total_count: 2, total_amount: 1600 })
    expect(bob.redemptions).toEqual(live.bob.redemptions)
    // Run again from the start: everything is filled already, nothing is counted twice.
    const again = await t.engine.maintenance.backfillCustomerSummaries({ limit: 10 })
    expect(again).toEqual({ filled: 0, skipped: 3, next_starting_after: null })
    await redeemGift(t, 'alice', 500)
    expect((await t.engine.customers.get('alice')).summary.redemptions).toMatchObject({
      total_redeemed: 3,
      gift: { redeemed_amount: 2500 },
    })
  })
})
