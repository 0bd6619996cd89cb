import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

/*
 * Source: the hosted service's documentation of budget constraints (validation rules
 * `campaign.redemptions.count` and its siblings) applies them to the redeemable they are assigned
 * to; a standalone code is its own campaign. The engine counted a standalone code's own redemptions
 * before counters were stored; the rule must keep limiting. docs/behaviour.md#standalone-codes-and-campaign-budgets.
 */

async function standalone(rule: Record<string, unknown>) {
  const t = testEngine()
  const code = await t.engine.vouchers.create({
    code: 'SOLO',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100 },
  })
  const created = await t.engine.validationRules.create({ name: 'Budget', rules: { '1': rule, logic: '1' } })
  await t.engine.validationRules.createAssignment(created.id, {
    related_object_type: 'voucher',
    related_object_id: code.id,
  })
  const redeem = (customer: string) =>
    t.engine.redemptions.redeemStackable({
      customer: { source_id: customer },
      redeemables: [{ object: 'voucher', id: 'SOLO' }],
      order: { amount: 1000 },
    })
  return { ...t, redeem }
}

describe('a campaign-level budget rule on a code outside any campaign counts that code', () => {
  it('campaign.redemptions.count ≤ 5 (this redemption included): 5 of 20 concurrent redemptions pass', async () => {
    const { redeem } = await standalone({
      name: 'campaign.redemptions.count',
      conditions: { $less_than_or_equal: [5] },
    })
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => redeem(`c-${i}`)))
    const passed = results.filter((r) => r.parent_redemption.result === 'SUCCESS')
    expect(passed).toHaveLength(5)
    expect(results.filter((r) => r.parent_redemption.result === 'FAILURE')).toHaveLength(15)
  })

  it('campaign.redemptions.customers_count ≤ 2: a third distinct customer is refused, a returning one is not', async () => {
    const { redeem } = await standalone({
      name: 'campaign.redemptions.customers_count',
      conditions: { $less_than_or_equal: [2] },
    })
    expect((await redeem('alice')).parent_redemption.result).toBe('SUCCESS')
    expect((await redeem('bob')).parent_redemption.result).toBe('SUCCESS')
    expect((await redeem('carol')).parent_redemption.result).toBe('FAILURE')
    expect((await redeem('alice')).parent_redemption.result).toBe('SUCCESS')
  })

  it('campaign.orders.amount ≤ 2000: the code’s own order amounts count', async () => {
    const { redeem } = await standalone({ name: 'campaign.orders.amount', conditions: { $less_than_or_equal: [2000] } })
    expect((await redeem('alice')).parent_redemption.result).toBe('SUCCESS')
    expect((await redeem('alice')).parent_redemption.result).toBe('SUCCESS')
    expect((await redeem('alice')).parent_redemption.result).toBe('FAILURE')
  })
})
