import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

/*
 * Source: the hosted service's OpenAPI document (repository voucherify-openapi,
 * documentation/openapi/qualifications.json): `options.sorting_rule` "`DEFAULT` - Sorting descending
 * by `created_at`"; scenario "`AUDIENCE_ONLY` - returns all vouchers, promotion tiers, and campaigns
 * available to the customer. Voucherify validates the rules based on the customer profile only";
 * its checking-eligibility guide pages with `starting_after`, the `created_at` of the last redeemable
 * returned. docs/qualifications.md#sorting-and-paging, docs/qualifications.md#scenarios.
 */
async function wallet() {
  const t = testEngine()
  await t.engine.customers.create({ source_id: 'ana', metadata: { vip: true } })
  await t.engine.customers.create({ source_id: 'bob', metadata: { vip: false } })
  for (const code of ['FIRST', 'SECOND', 'THIRD']) {
    t.clock.advance(60_000)
    await t.engine.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } })
    await t.engine.publications.create({ customer: { source_id: 'ana' }, voucher: code })
  }
  return t
}

describe('qualifications (OpenAPI checkEligibility)', () => {
  it('DEFAULT is newest first, and starting_after pages in that order (by id or by created_at)', async () => {
    const t = await wallet()
    const ask = (options: Record<string, unknown>) =>
      t.engine.qualifications.checkEligibility({
        customer: { source_id: 'ana' },
        order: { amount: 5000 },
        scenario: 'CUSTOMER_WALLET',
        options,
      })
    const all = await ask({ sorting_rule: 'DEFAULT' })
    expect(all.redeemables.data.map((r) => r.id)).toEqual(['THIRD', 'SECOND', 'FIRST'])
    expect((await ask({})).redeemables.data.map((r) => r.id)).toEqual(['THIRD', 'SECOND', 'FIRST'])
    const first = await ask({ limit: 1 })
    expect(first.redeemables.data.map((r) => r.id)).toEqual(['THIRD'])
    const byId = await ask({ limit: 1, starting_after: first.redeemables.more_starting_after })
    expect(byId.redeemables.data.map((r) => r.id)).toEqual(['SECOND'])
    const lastCreated = first.redeemables.data[0]?.created_at ?? ''
    const byDate = await ask({ limit: 5, starting_after: lastCreated })
    expect(byDate.redeemables.data.map((r) => r.id)).toEqual(['SECOND', 'FIRST'])
    expect(byDate.redeemables.has_more).toBe(false)
  })

  it('AUDIENCE_ONLY decides on the profile alone: rules about the cart are neither passed nor failed', async () => {
    const t = await wallet()
    const promotion = await t.engine.promotions.create({
      name: 'VIP sale',
      promotion: { tiers: [{ name: 'VIP $1 off', action: { discount: { type: 'AMOUNT', amount_off: 100 } } }] },
    })
    const tier = promotion.promotion.tiers[0]?.id ?? ''
    const rule = await t.engine.validationRules.create({
      name: 'VIP with a big cart',
      rules: {
        '1': { name: 'customer.metadata', property: 'vip', conditions: { $is: [true] } },
        '2': { name: 'order.amount', conditions: { $more_than: [100000] } },
        logic: '1 and 2',
      },
    })
    await t.engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'promotion_tier',
      related_object_id: tier,
    })
    const ids = async (customer: string, scenario: string) =>
      (
        await t.engine.qualifications.checkEligibility({
          customer: { source_id: customer },
          order: { amount: 5000 },
          scenario: scenario as 'ALL',
        })
      ).redeemables.data.map((r) => r.id)
    // The cart of 50.00 fails the order rule when the cart counts.
    expect(await ids('ana', 'ALL')).not.toContain(tier)
    // On the profile alone: Ana is a VIP, Bob is not; the cart rule decides nothing.
    expect(await ids('ana', 'AUDIENCE_ONLY')).toContain(tier)
    expect(await ids('bob', 'AUDIENCE_ONLY')).not.toContain(tier)
  })
})
