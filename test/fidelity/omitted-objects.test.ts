import { describe, expect, it } from 'vitest'
import { program } from '../operations/loyalty/fixtures'
import { testEngine } from '../support/engine'

describe('optional objects the hosted responses omit are omitted, not null', () => {
  it("a program without loyalty_tiers_expiration, an earning rule without expiration_rules or pending_points, a program's tier", async () => {
    const { engine } = testEngine()
    const club = await program(engine)
    expect(club).not.toHaveProperty('loyalty_tiers_expiration')
    const [rule] = await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 5 } },
    ])
    expect(rule).not.toHaveProperty('expiration_rules')
    expect(rule).not.toHaveProperty('pending_points')
    const [tier] = await engine.loyalties.createTiers(club.id, [{ name: 'Gold', points: { from: 1 } }])
    expect(tier).not.toHaveProperty('expiration')
  })

  it('a validation rule without bundle_rules', async () => {
    const { engine } = testEngine()
    const rule = await engine.validationRules.create({
      name: 'Over 100',
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [10000] } }, logic: '1' },
    })
    expect(rule).not.toHaveProperty('bundle_rules')
  })

  it('kept when given: a program with tier expiration shows it', async () => {
    const { engine } = testEngine()
    const club = await program(engine, {
      loyalty_tiers_expiration: { qualification_type: 'BALANCE', expiration_date: { type: 'BALANCE_DROP' } },
    })
    expect(club.loyalty_tiers_expiration).toEqual({
      qualification_type: 'BALANCE',
      expiration_date: { type: 'BALANCE_DROP' },
    })
  })
})

describe('a redemption rollback names its customer as the hosted one does', () => {
  it('carries the redemption tracking_id and customer', async () => {
    const { engine } = testEngine()
    await engine.vouchers.create({
      code: 'TEN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
    })
    const redeemed = await engine.redemptions.redeemStackable({
      customer: { source_id: 'alice' },
      order: { amount: 1000 },
      redeemables: [{ object: 'voucher', id: 'TEN' }],
    })
    const child = redeemed.redemptions[0]
    const rolled = await engine.redemptions.rollbackStackable(redeemed.parent_redemption.id)
    expect(child?.tracking_id).toMatch(/^track_/)
    expect(rolled.rollbacks[0]).toMatchObject({ tracking_id: child?.tracking_id, customer: child?.customer })
    expect(rolled.parent_rollback).toMatchObject({ tracking_id: child?.tracking_id, customer: { source_id: 'alice' } })
  })
})
