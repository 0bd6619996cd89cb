import { describe, expect, it } from 'vitest'
import type { Redemption, RedemptionRollback } from '../../src/model/redemption'
import type { Voucher } from '../../src/model/voucher'
import { redemptionRow, rollbackRow } from '../../src/rules/voucher-transactions'
import { without } from '../support/engine'

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

describe('redemptionRow and rollbackRow', () => {
  const gift = voucher('v_gift', 'GIFT_VOUCHER')
  const card = voucher('v_card', 'LOYALTY_CARD')
  const plain = voucher('v_disc', 'DISCOUNT_VOUCHER')
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

  it('types each movement by voucher kind', () => {
    const rows = [
      redemptionRow(redemption('r_1', 'v_gift', { gift: { amount: 250 } }), gift),
      redemptionRow(redemption('r_2', 'v_card', { loyalty_card: { points: 40 } }), card),
      redemptionRow(redemption('r_3', 'v_disc'), plain),
      rollbackRow(rollback, card),
      rollbackRow({ ...without(rollback, 'loyalty_card'), id: 'rr_2', amount: -250 } as RedemptionRollback, gift),
      rollbackRow(rollback, plain),
    ]
    expect(rows.map((r) => [r.id, r.type, r.amount, r.source, r.related_transaction_id])).toEqual([
      // Signed as the hosted transactions: taken off a card negative, given back positive.
      ['r_1', 'CREDITS_REDEMPTION', -250, 'API', null],
      ['r_2', 'POINTS_REDEMPTION', -40, 'API', null],
      ['r_3', 'REDEMPTION', null, 'API', null],
      ['rr_1', 'POINTS_REFUND', 40, 'USER', 'r_2'],
      ['rr_2', 'CREDITS_REFUND', 250, 'USER', 'r_2'],
      ['rr_1', 'REDEMPTION_ROLLBACK', 40, 'USER', 'r_2'],
    ])
  })

  it('names the voucher, campaign and linked ids; a failure gives its message as the reason', () => {
    const failed = redemptionRow(
      redemption('r_4', 'v_disc', { result: 'FAILURE', status: 'FAILED', failure_message: 'Quantity exceeded' }),
      plain,
    )
    expect(failed).toMatchObject({
      voucher_id: 'v_disc',
      voucher_code: 'V_DISC',
      campaign_id: 'camp_1',
      reason: 'Quantity exceeded',
      details: { order: null, customer: null, redemption: { id: 'r_4' } },
    })
    expect(rollbackRow(rollback, card).details).toEqual({
      order: null,
      customer: null,
      redemption: { id: 'r_2' },
      rollback: { id: 'rr_1' },
    })
  })
})
