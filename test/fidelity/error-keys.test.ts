import { describe, expect, it } from 'vitest'
import { program } from '../operations/loyalty/fixtures'
import { rejection, snapshot, testEngine } from '../support/engine'

/*
 * Source: the hosted service's OpenAPI document (repository voucherify-openapi,
 * documentation/openapi/*.json), the 400 examples of `POST /v1/validation-rules`
 * (`invalid_validation_rules`, "Rule 'custom_event.metadata' must have a 'property'"),
 * `POST /v1/rewards/{rewardId}/assignments` (`missing_param`, "Missing required parameter") and
 * `POST /v1/campaigns` (`invalid_campaign`, "Property 'discount' is required for REFERRAL_PROGRAM
 * campaign") and `PUT /v1/rewards/{rewardId}` (`invalid_balance`, "Property 'parameters.campaign.balance'
 * must be greater than zero for campaign type: GIFT_VOUCHERS", when "the balance parameter is not
 * defined correctly"). docs/behaviour.md#documented-error-keys.
 */
describe('documented error keys instead of invalid_payload', () => {
  it('a metadata validation rule without its property: invalid_validation_rules', async () => {
    const t = testEngine()
    const before = await snapshot(t.store)
    const e = await rejection(
      t.engine.validationRules.create({
        name: 'VIP',
        rules: { '1': { name: 'customer.metadata', conditions: { $is: ['gold'] } }, logic: '1' },
      }),
    )
    expect(e).toMatchObject({
      code: 400,
      key: 'invalid_validation_rules',
      message: 'Invalid Validation Rule Definition',
    })
    expect(e.details).toBe("Rule 'customer.metadata' must have a 'property'")
    expect(await snapshot(t.store)).toBe(before)
  })

  it('a MATERIAL reward assignment without its point cost: missing_param', async () => {
    const t = testEngine()
    const club = await program(t.engine)
    const product = await t.engine.products.create({ name: 'Mug', source_id: 'mug' })
    const mug = await t.engine.rewards.create({
      name: 'Mug',
      type: 'MATERIAL',
      parameters: { product: { id: product.id } },
    })
    const before = await snapshot(t.store)
    const e = await rejection(t.engine.rewards.createAssignment(mug.id, { campaign: club.id }))
    expect(e).toMatchObject({ code: 400, key: 'missing_param', message: 'Missing required parameter' })
    expect(e.details).toContain("Parameter 'parameters.loyalty.points' is required")
    expect(await snapshot(t.store)).toBe(before)
  })

  it('a referral program without a discount: invalid_campaign', async () => {
    const t = testEngine()
    const before = await snapshot(t.store)
    const e = await rejection(
      t.engine.campaigns.create({ name: 'Refer', campaign_type: 'REFERRAL_PROGRAM', vouchers_count: 1, voucher: {} }),
    )
    expect(e).toMatchObject({ code: 400, key: 'invalid_campaign', message: 'Invalid Campaign' })
    expect(e.details).toBe("Property 'discount' is required for REFERRAL_PROGRAM campaign")
    expect(await snapshot(t.store)).toBe(before)
  })

  it.each([
    ['zero', { balance: 0 }],
    ['negative', { balance: -500 }],
    ['missing', {}],
  ])('a gift credits reward with a %s balance: invalid_balance', async (_label, balance) => {
    const t = testEngine()
    const gifts = await t.engine.campaigns.create({
      name: 'Gifts',
      campaign_type: 'GIFT_VOUCHERS',
      type: 'AUTO_UPDATE',
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } },
    })
    const before = await snapshot(t.store)
    const e = await rejection(
      t.engine.rewards.create({
        name: 'Credits',
        type: 'CAMPAIGN',
        parameters: { campaign: { id: gifts.id, ...balance } },
      }),
    )
    expect(e).toMatchObject({
      code: 400,
      key: 'invalid_balance',
      message: "Property 'parameters.campaign.balance' is invalid",
      path: 'parameters.campaign.balance',
    })
    expect(e.details).toMatch(
      /^Property 'parameters.campaign.balance' must be greater than zero for campaign type: GIFT_VOUCHERS/,
    )
    expect(await snapshot(t.store)).toBe(before)
  })
})
