import { describe, expect, it } from 'vitest'
import type { Redemption, RedemptionRollback } from '../../src/model/redemption'
import type { Voucher } from '../../src/model/voucher'
import { selectTransactions, transactionRows } from '../../src/rules/voucher-transactions'

const voucher = (id: string, type: string) =>
  ({ id, code: id.toUpperCase(), type, campaign_id: 'camp_1' }) as unknown as Voucher

const redemption = (id: string, voucherId: string, extra: Record<string, unknown> = {}): Redemption =>
  ({
    id,
    object: 'redemption',
    date: `2026-01-1${id.slice(-1)}T00:00:00.000Z`,
    customer_id: null,
    tracking_id: null,
    metadata: {},
    redemption: null,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    channel: { channel_id: null, channel_type: 'API' },
    related_object_type: 'voucher',
    related_object_id: voucherId,
    ...extra,
  }) as Redemption

describe('transactionRows', () => {
  const vouchers = [
    voucher('v_gift', 'GIFT_VOUCHER'),
    voucher('v_card', 'LOYALTY_CARD'),
    voucher('v_disc', 'DISCOUNT_VOUCHER'),
  ]
  const redemptions = [
    redemption('r_1', 'v_gift', { gift: { amount: 250 } }),
    redemption('r_2', 'v_card', { loyalty_card: { points: 40 } }),
    redemption('r_3', 'v_disc'),
    redemption('r_4', 'v_elsewhere'),
    redemption('r_5', 'promo_1', { related_object_type: 'promotion_tier' }),
  ]
  const rollback: RedemptionRollback = {
    id: 'rr_1',
    object: 'redemption_rollback',
    date: '2026-01-19T00:00:00.000Z',
    redemption: 'r_2',
    loyalty_card: { points: 40 },
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    channel: { channel_id: null, channel_type: 'USER' },
    customer_id: null,
    related_object_type: 'voucher',
    related_object_id: 'v_card',
    metadata: {},
  }

  it('types each movement by voucher kind and keeps only the given vouchers', () => {
    const rows = transactionRows(vouchers, redemptions, [rollback])
    expect(rows.map((r) => [r.id, r.type, r.amount, r.source, r.related_transaction_id])).toEqual([
      ['r_1', 'CREDITS_REDEMPTION', 250, 'API', null],
      ['r_2', 'POINTS_REDEMPTION', 40, 'API', null],
      ['r_3', 'REDEMPTION', null, 'API', null],
      ['rr_1', 'POINTS_REFUND', 40, 'USER', 'r_2'],
    ])
  })

  it('ignores a rollback of a redemption outside the set', () => {
    expect(transactionRows(vouchers, [], [rollback])).toEqual([])
  })

  it('sorts absent values first and breaks ties by id', () => {
    const rows = transactionRows(vouchers, redemptions, [rollback])
    const sorted = selectTransactions(rows, { junction: 'AND', fields: {} }, 'amount')
    expect(sorted.map((r) => r.id)).toEqual(['r_3', 'r_2', 'rr_1', 'r_1'])
    const filtered = selectTransactions(rows, { junction: 'AND', fields: { type: { $in: ['POINTS_REFUND'] } } }, '-id')
    expect(filtered.map((r) => r.id)).toEqual(['rr_1'])
  })
})
