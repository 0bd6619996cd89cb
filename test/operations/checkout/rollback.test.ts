import { describe, expect, it } from 'vitest'
import type { EngineOptions } from '../../../src/engine'
import { amountOffVoucher, snapshot, testEngine } from '../../support/engine'

async function setup(options: EngineOptions = {}) {
  const t = testEngine(options)
  await amountOffVoucher(t.engine, 'TEN', 1000, 1)
  const body = {
    redeemables: [{ object: 'voucher', id: 'TEN' }],
    order: { amount: 5000 },
    customer: { source_id: 'ann' },
  }
  return { ...t, body }
}

describe('rollbackStackable', () => {
  it('WITHOUT_ORDER keeps the order and its discounts; the use comes back', async () => {
    const { engine, body } = await setup({ stackingRules: { redeemables_rollback_order_mode: 'WITHOUT_ORDER' } })
    const redemption = await engine.raw.redemptions.redeemStackable(body)
    const rollback = await engine.redemptions.rollbackStackable(redemption.parent_redemption.id, { reason: 'keep' })
    expect(rollback.order).toMatchObject({ status: 'PAID', total_discount_amount: 1000, total_amount: 4000 })
    expect(rollback.parent_rollback).toMatchObject({ reason: 'keep', redemption: redemption.parent_redemption.id })
    expect(await engine.redemptions.get(redemption.redemptions[0]?.id as string)).toMatchObject({
      status: 'ROLLED_BACK',
      related_redemptions: { rollbacks: [{ rollback_order_mode: 'WITHOUT_ORDER' }] },
    })
    expect((await engine.vouchers.get('TEN')).redemption.redeemed_quantity).toBe(0)
    // The single use is free again.
    expect((await engine.raw.redemptions.redeemStackable(body)).parent_redemption.result).toBe('SUCCESS')
  })

  it('is refused after 3 months (rollback_period_expired), accepted on the last instant', async () => {
    const { engine, body, clock, store } = await setup()
    const a = await engine.raw.redemptions.redeemStackable(body)
    clock.set('2026-04-15T10:00:00.001Z')
    const before = await snapshot(store, ['redemption_rollbacks', 'activities', 'counters'])
    await expect(engine.redemptions.rollbackStackable(a.parent_redemption.id)).rejects.toMatchObject({
      code: 400,
      key: 'rollback_period_expired',
    })
    expect(await snapshot(store, ['redemption_rollbacks', 'activities', 'counters'])).toBe(before)
    // The refusal is recorded in its own commit: a failed rollback of the parent and its activity.
    const [failed, ...others] = (await store.redemption_rollbacks.list()).data.map((s) => s.value)
    expect(others).toEqual([])
    expect(failed).toMatchObject({
      redemption: a.parent_redemption.id,
      result: 'FAILURE',
      status: 'FAILED',
      failure_code: 'rollback_period_expired',
      failure_message: 'Rollback period expired',
    })
    expect(failed?.id.startsWith('rrf_')).toBe(true)
    clock.set('2026-04-15T10:00:00.000Z')
    expect((await engine.redemptions.rollbackStackable(a.parent_redemption.id)).parent_rollback.result).toBe('SUCCESS')
  })

  it('refuses a failed redemption and an unknown id', async () => {
    const { engine } = await setup()
    const failed = await engine.redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'NOPE' }] })
    await expect(engine.redemptions.rollbackStackable(failed.parent_redemption.id)).rejects.toMatchObject({
      key: 'invalid_redemption',
    })
    await expect(engine.redemptions.rollbackStackable('r_nope')).rejects.toMatchObject({ code: 404, key: 'not_found' })
    await expect(engine.redemptions.get('r_nope')).rejects.toMatchObject({ code: 404, resource_type: 'redemption' })
  })

  it('emits redemption and rollback activities for the customer', async () => {
    const { engine, body, store } = await setup()
    const a = await engine.raw.redemptions.redeemStackable(body)
    await engine.redemptions.rollbackStackable(a.parent_redemption.id)
    const types = (await store.activities.list()).data.map((x) => x.value.type).sort()
    expect(types).toEqual([
      'customer.created',
      'customer.order.canceled',
      'customer.order.created',
      'customer.order.paid',
      'customer.redemption.rollback.succeeded',
      'customer.redemption.succeeded',
    ])
  })
})
