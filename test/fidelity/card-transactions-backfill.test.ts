import { describe, expect, it } from 'vitest'
import type { CardTransaction } from '../../src/model/card-transaction'
import { rebuildCardTransactions } from '../../src/rules/card-history'
import { member, program } from '../operations/loyalty/fixtures'
import { testEngine } from '../support/engine'

/*
 * Source: the hosted service's OpenAPI document (repository voucherify-openapi,
 * production/readOnly-openAPI.json): a loyalty card's transactions (`POINTS_ACCRUAL`,
 * `POINTS_REDEMPTION`, `POINTS_REFUND`, `POINTS_EXPIRATION`, …) carry `balance`, "the loyalty card
 * balance after the transaction". Cards whose points moved before card transactions were recorded get
 * their rows from `maintenance.backfillCardTransactions`, so those balances come out right
 * (docs/behaviour.md#card-transactions-made-before-the-ledger).
 */
type T = ReturnType<typeof testEngine>

const FIELDS = ['voucher_code', 'type', 'amount', 'balance', 'source', 'created_at']

async function history(t: T, campaign: string): Promise<string[]> {
  const exp = await t.engine.exports.createCampaignTransactionsExport(campaign, {
    order: 'created_at',
    parameters: { fields: FIELDS },
  })
  await t.engine.asyncActions.runPending()
  const done = await t.engine.exports.get(exp.id)
  return (await t.engine.files.get(done.result?.url ?? '')).content.split('\r\n').filter((l) => l !== '')
}

/**
 * A card opened with 100 points, earning 40 per paid order (twice), paying 130 points for an order,
 * its points lapsing a month on, the payment rolled back after that (the points given back lapse at
 * once), then earning 40 again.
 */
async function cardWithHistory(t: T) {
  t.clock.set('2026-01-25T12:00:00.000Z')
  const club = await program(t.engine, {
    voucher: {
      type: 'LOYALTY_CARD',
      loyalty_card: { points: 100, expiration_rules: { period_type: 'MONTH', period_value: 1 } },
      code_config: { pattern: 'CLUB-####' },
    },
  })
  await t.engine.loyalties.createEarningRule(club.id, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 40 } }])
  const coin = await t.engine.rewards.create({
    name: '1 pt = 1 cent',
    type: 'COIN',
    parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } },
  })
  await t.engine.rewards.createAssignment(coin.id, { campaign: club.id })
  const card = await member(t.engine, club.id)
  const paid = (n: number) =>
    t.engine.orders.create({ source_id: `o${n}`, status: 'PAID', customer: { source_id: 'alice' }, amount: 100 })
  t.clock.advance(60_000)
  await paid(1)
  t.clock.advance(60_000)
  await paid(2)
  t.clock.advance(60_000)
  const spent = await t.engine.redemptions.redeemStackable({
    customer: { source_id: 'alice' },
    redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 130 } }],
    order: { amount: 5000 },
  })
  t.clock.set('2026-03-01T00:00:00.000Z')
  await t.engine.asyncActions.runPending()
  t.clock.advance(60_000)
  await t.engine.redemptions.rollbackStackable(spent.parent_redemption.id)
  t.clock.advance(60_000)
  await paid(3)
  return { club, card }
}

/** Deletes the card transactions made before `until` (all of them without it): a store as written before they were recorded. */
async function forget(t: T, campaignId: string, until?: string) {
  const rows = (await t.store.card_transactions.list({ where: { campaign_id: campaignId }, limit: 100 })).data
  const gone = rows.filter((r) => until === undefined || r.value.created_at < until)
  await t.store.commit({
    writes: gone.map((r) => ({
      op: 'delete' as const,
      collection: 'card_transactions' as const,
      id: r.value.id,
      expectedVersion: r.version,
    })),
  })
  return gone.length
}

async function backfillAll(t: T, limit: number) {
  let starting_after: string | undefined
  let filled = 0
  for (;;) {
    const page = await t.engine.maintenance.backfillCardTransactions({
      limit,
      ...(starting_after === undefined ? {} : { starting_after }),
    })
    filled += page.filled
    if (page.next_starting_after === null) return filled
    starting_after = page.next_starting_after
  }
}

describe('maintenance.backfillCardTransactions: rows for points moved before card transactions were recorded', () => {
  it('rebuilds every accrual and expiry of a card that has no row: the export is the one recorded live', async () => {
    const t = testEngine()
    const { club, card } = await cardWithHistory(t)
    const live = await history(t, club.id)
    const cards = (await t.store.vouchers.list({ where: { campaign_id: club.id }, limit: 10 })).data
    const other = cards.find((v) => v.value.id !== card.id)?.value.code
    // The redemption's order is paid too, and earns; the program's other card lapses its opening points.
    expect(live).toEqual([
      'voucher_code,type,amount,balance,source,created_at',
      `${card.code},POINTS_ACCRUAL,40,140,API,2026-01-25T12:01:00.000Z`,
      `${card.code},POINTS_ACCRUAL,40,180,API,2026-01-25T12:02:00.000Z`,
      `${card.code},POINTS_REDEMPTION,-130,50,API,2026-01-25T12:03:00.000Z`,
      `${card.code},POINTS_ACCRUAL,40,90,API,2026-01-25T12:03:00.000Z`,
      `${card.code},POINTS_EXPIRATION,-90,0,AUTOMATION,2026-02-26T00:00:00.000Z`,
      `${other},POINTS_EXPIRATION,-100,0,AUTOMATION,2026-02-26T00:00:00.000Z`,
      `${card.code},POINTS_REFUND,130,130,API,2026-03-01T00:01:00.000Z`,
      `${card.code},POINTS_EXPIRATION,-130,0,API,2026-03-01T00:01:00.000Z`,
      `${card.code},POINTS_ACCRUAL,40,40,API,2026-03-01T00:02:00.000Z`,
    ])
    expect(await forget(t, club.id)).toBe(7)
    // Without the rows the balances count back to a card that never held its points.
    expect(await history(t, club.id)).not.toEqual(live)

    // A page of one voucher per call, through the program's cards and the codes around them.
    expect(await backfillAll(t, 1)).toBe(2)
    expect(await history(t, club.id)).toEqual(live)
    // Run again: every card is done, nothing is inserted twice.
    expect(await t.engine.maintenance.backfillCardTransactions({ limit: 1000 })).toMatchObject({
      filled: 0,
      next_starting_after: null,
    })
    expect(await history(t, club.id)).toEqual(live)
  })

  it('a card whose rows begin part-way: only what came before its first row is rebuilt', async () => {
    const t = testEngine()
    const { club } = await cardWithHistory(t)
    const live = await history(t, club.id)
    // The ledger began between the sweep and the rollback: the rollback's expiry and the last accrual have rows.
    expect(await forget(t, club.id, '2026-03-01T00:00:30.000Z')).toBe(5)
    expect(await backfillAll(t, 100)).toBe(2)
    expect(await history(t, club.id)).toEqual(live)
    const rows = (await t.store.card_transactions.list({ where: { campaign_id: club.id }, limit: 100 })).data
    expect(rows.filter((r) => r.value.details.backfilled === true)).toHaveLength(5)
  })

  it('two backfills at once insert each row once', async () => {
    const t = testEngine()
    const { club } = await cardWithHistory(t)
    const live = await history(t, club.id)
    await forget(t, club.id)
    const [a, b] = await Promise.all([
      t.engine.maintenance.backfillCardTransactions(),
      t.engine.maintenance.backfillCardTransactions(),
    ])
    expect(a.filled + b.filled).toBe(2)
    expect(await history(t, club.id)).toEqual(live)
  })

  it('points earned on the card while the backfill runs are neither lost nor rebuilt twice', async () => {
    const earn = (t: T, n: number) =>
      t.engine.orders.create({ source_id: `late-${n}`, status: 'PAID', customer: { source_id: 'alice' }, amount: 100 })
    // The same history recorded live all along, as the reference.
    const reference = testEngine()
    const { club: refClub } = await cardWithHistory(reference)
    // Later than the history: a movement at the very instant of the card's first row counts as recorded.
    reference.clock.advance(60_000)
    await Promise.all([1, 2, 3, 4, 5].map((n) => earn(reference, n)))
    const expected = await history(reference, refClub.id)

    const t = testEngine()
    const { club } = await cardWithHistory(t)
    await forget(t, club.id)
    t.clock.advance(60_000)
    const [done] = await Promise.all([
      t.engine.maintenance.backfillCardTransactions(),
      ...[1, 2, 3, 4, 5].map((n) => earn(t, n)),
    ])
    expect(done?.filled).toBe(2)
    expect(await history(t, club.id)).toEqual(expected)
  })

  it('a bad limit is invalid_payload and writes nothing', async () => {
    const t = testEngine()
    await expect(t.engine.maintenance.backfillCardTransactions({ limit: 0 })).rejects.toMatchObject({
      code: 400,
      key: 'invalid_payload',
    })
  })
})

describe('rebuildCardTransactions', () => {
  const bucket = {
    voucher_id: 'v_1',
    campaign_id: 'camp_1',
    customer_id: null,
    status: 'EXPIRED' as const,
    source: { type: 'earning_rule' as const, id: 'ern_1' },
  }
  const at = (day: number) => `2026-01-${String(day).padStart(2, '0')}T00:00:00.000Z`
  const summary = (rows: CardTransaction[]) => rows.map((r) => [r.type, r.amount, r.created_at, r.source])

  it('an opening bucket is not an accrual; its expiry is; buckets expiring together are one sweep', () => {
    const rows = rebuildCardTransactions(
      {
        voucher_id: 'v_1',
        campaign_id: 'camp_1',
        buckets: [
          {
            ...bucket,
            id: 'lpb_a',
            source: { type: 'initial' },
            points: 100,
            remaining: 0,
            expired: 70,
            expires_at: at(20),
            created_at: at(1),
          },
          { ...bucket, id: 'lpb_b', points: 40, remaining: 0, expired: 40, expires_at: at(20), created_at: at(2) },
          {
            ...bucket,
            id: 'lpb_c',
            status: 'PENDING',
            points: 9,
            remaining: 0,
            expired: 0,
            expires_at: null,
            created_at: at(3),
          },
        ],
        rollbacks: [],
        firstRecorded: null,
      },
      'vtx_',
    )
    expect(summary(rows)).toEqual([
      ['POINTS_ACCRUAL', 40, at(2), 'API'],
      ['POINTS_EXPIRATION', -110, at(20), 'AUTOMATION'],
    ])
    expect(rows.map((r) => r.id)).toEqual(['vtx_a_lpb_b', 'vtx_e_lpb_a'])
  })

  it('points a rollback gave back past their expiry lapse at the rollback, not in the sweep', () => {
    const rows = rebuildCardTransactions(
      {
        voucher_id: 'v_1',
        campaign_id: 'camp_1',
        buckets: [
          { ...bucket, id: 'lpb_b', points: 40, remaining: 0, expired: 40, expires_at: at(20), created_at: at(2) },
        ],
        rollbacks: [
          { id: 'rr_1', date: at(25), taken: [{ bucketId: 'lpb_b', points: 15 }] },
          { id: 'rr_2', date: at(10), taken: [{ bucketId: 'lpb_b', points: 5 }] },
        ],
        firstRecorded: null,
      },
      'vtx_',
    )
    // rr_2 came before the expiry: its 5 points went back to the bucket and lapsed with the sweep.
    expect(summary(rows)).toEqual([
      ['POINTS_ACCRUAL', 40, at(2), 'API'],
      ['POINTS_EXPIRATION', -25, at(20), 'AUTOMATION'],
      ['POINTS_EXPIRATION', -15, at(25), 'API'],
    ])
  })

  it('a pending bucket credited by its activation is an AUTOMATION accrual at the activation; nothing at or after the first row', () => {
    const rows = rebuildCardTransactions(
      {
        voucher_id: 'v_1',
        campaign_id: 'camp_1',
        buckets: [
          {
            ...bucket,
            id: 'lpb_p',
            status: 'ACTIVE',
            activates_at: at(5),
            points: 7,
            remaining: 7,
            expired: 0,
            expires_at: null,
            created_at: at(5),
          },
          {
            ...bucket,
            id: 'lpb_q',
            status: 'ACTIVE',
            points: 3,
            remaining: 3,
            expired: 0,
            expires_at: null,
            created_at: at(6),
          },
        ],
        rollbacks: [],
        firstRecorded: at(6),
      },
      'vtx_',
    )
    expect(summary(rows)).toEqual([['POINTS_ACCRUAL', 7, at(5), 'AUTOMATION']])
    expect(rows[0]?.details).toEqual({ earning_rule: { id: 'ern_1' }, bucket: { id: 'lpb_p' }, backfilled: true })
  })
})
