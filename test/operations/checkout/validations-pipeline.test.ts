import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'
import { cardPayingWithPoints } from '../loyalty/fixtures'

type T = ReturnType<typeof testEngine>

// The test clock starts on Thursday 2026-01-15 at 10:00 UTC.
const tenOff = { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' } as const
const percent = (percent_off: number) => ({ type: 'PERCENT', percent_off, effect: 'APPLY_TO_ORDER' }) as const

async function ruleOn(
  t: T,
  body: Record<string, unknown>,
  related: { related_object_type: string; related_object_id: string },
) {
  const rule = await t.engine.raw.validationRules.create({ name: 'Rule', ...body })
  await t.engine.raw.validationRules.createAssignment(rule.id, related)
  return rule
}

async function coupon(t: T, code: string, extra: Record<string, unknown> = {}) {
  return t.engine.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: tenOff, ...extra })
}

function codes(ids: string[], extra: Record<string, unknown> = {}) {
  return { redeemables: ids.map((id) => ({ object: 'voucher', id })), order: { amount: 10000 }, ...extra }
}

describe('missing_customer', () => {
  it('a rule that needs a customer, and the request has none', async () => {
    const t = testEngine()
    const v = await coupon(t, 'VIP')
    const rule = await ruleOn(
      t,
      { rules: { '1': { name: 'customer.metadata', property: 'vip', conditions: { $is: [true] } } } },
      { related_object_type: 'voucher', related_object_id: v.id },
    )
    const result = await t.engine.raw.validations.validateStackable(codes(['VIP']))
    expect(result.redeemables[0]?.result).toEqual({
      error: {
        code: 400,
        key: 'missing_customer',
        message: 'Missing customer',
        details: 'Customer is required to validate rules',
        request_id: null,
      },
      details: { key: 'missing_customer', message: 'Missing customer' },
    })
    expect(result.redeemables[0]?.explanation).toMatchObject({
      check: 'validation_rule',
      rule_id: rule.id,
      failures: [expect.objectContaining({ name: 'customer.metadata', reason: 'missing_customer' })],
    })
    const withCustomer = await t.engine.raw.validations.validateStackable(
      codes(['VIP'], { customer: { source_id: 'c1', metadata: { vip: true } } }),
    )
    expect(withCustomer.redeemables[0]?.status).toBe('APPLICABLE')
  })
})

describe('publication.redeemable_by_linked_customer', () => {
  async function setup() {
    const t = testEngine()
    const v = await coupon(t, 'MINE')
    await ruleOn(
      t,
      {
        rules: { '1': { name: 'publication.redeemable_by_linked_customer', conditions: { $is: [true] } } },
        error: { message: 'Only the gift card owner can apply credits from the gift card to the order.' },
      },
      { related_object_type: 'voucher', related_object_id: v.id },
    )
    await t.engine.publications.create({ customer: { source_id: 'alice' }, voucher: 'MINE' })
    return t
  }

  it('the holder may redeem', async () => {
    const t = await setup()
    const body = codes(['MINE'], { customer: { source_id: 'alice' } })
    expect((await t.engine.raw.validations.validateStackable(body)).redeemables[0]?.status).toBe('APPLICABLE')
    const redeemed = await t.engine.raw.redemptions.redeemStackable(body)
    expect(redeemed.parent_redemption.result).toBe('SUCCESS')
  })

  it('another customer gets customer_rules_violated with the custom message', async () => {
    const t = await setup()
    const result = await t.engine.raw.validations.validateStackable(codes(['MINE'], { customer: { source_id: 'bob' } }))
    expect(result.redeemables[0]?.result).toMatchObject({
      error: {
        key: 'customer_rules_violated',
        message: 'customer does not match validation rules',
        error: { message: 'Only the gift card owner can apply credits from the gift card to the order.' },
      },
      details: {
        key: 'customer_rules_violated',
        message: 'Only the gift card owner can apply credits from the gift card to the order.',
      },
    })
    const redeemed = await t.engine.raw.redemptions.redeemStackable(codes(['MINE'], { customer: { source_id: 'bob' } }))
    expect(redeemed.parent_redemption).toMatchObject({ result: 'FAILURE', failure_code: 'customer_rules_violated' })
  })

  it('no customer at all: missing_customer', async () => {
    const t = await setup()
    const result = await t.engine.raw.validations.validateStackable(codes(['MINE']))
    expect(result.redeemables[0]?.result).toMatchObject({ error: { key: 'missing_customer' } })
  })
})

describe('options.expand: order and redemption', () => {
  // Decision: `order` is the fallback response (docs/behaviour.md#expand-options). `redemption` changes nothing either:
  // a validation redeems nothing, and a redemption's result already holds the full redemption
  // objects (`redemptions[]`, `parent_redemption`, each with its order).
  const body = (expand?: string[]) => ({
    ...codes(['TEN']),
    customer: { source_id: 'c1' },
    ...(expand ? { options: { expand } } : {}),
  })

  it('validation: expand order, redemption and both give the same result as none (but the id)', async () => {
    const results: unknown[] = []
    for (const expand of [undefined, ['order'], ['redemption'], ['order', 'redemption']]) {
      const t = testEngine()
      await coupon(t, 'TEN')
      const { id: _id, ...rest } = await t.engine.raw.validations.validateStackable(body(expand))
      results.push(rest)
    }
    expect(results[1]).toEqual(results[0])
    expect(results[2]).toEqual(results[0])
    expect(results[3]).toEqual(results[0])
    expect(results[0]).toMatchObject({
      order: { total_amount: 9000 },
      redeemables: [{ order: { total_amount: 9000 } }],
    })
  })

  it('redemption: expand redemption gives the same result as none', async () => {
    const results: unknown[] = []
    for (const expand of [undefined, ['redemption']]) {
      const t = testEngine()
      await coupon(t, 'TEN')
      results.push(await t.engine.raw.redemptions.redeemStackable(body(expand)))
    }
    expect(results[1]).toEqual(results[0])
  })
})

describe('stacking rules through the pipeline', () => {
  it('CATEGORY_HIERARCHY with JOINT_ALWAYS_LAST: the exclusive one first whatever the hierarchy', async () => {
    for (const [grouped, expected] of [
      // $10 first, then 10% of 9000 = 900: 1900. Hierarchy alone: 10% of 10000 first, then $10: 2000.
      [true, { order: ['FLAT', 'JOINT10'], discount: 1900 }],
      [false, { order: ['JOINT10', 'FLAT'], discount: 2000 }],
    ] as const) {
      const t = testEngine()
      const joint = await t.engine.categories.create({ name: 'Always', hierarchy: 1 })
      const never = await t.engine.categories.create({ name: 'Never', hierarchy: 5 })
      await t.engine.stackingRules.create('proj_default', {
        redeemables_sorting_rule: 'CATEGORY_HIERARCHY',
        joint_categories: [joint.id],
        exclusive_categories: [never.id],
        ...(grouped ? { grouped_redeemables_sorting_rule: 'JOINT_ALWAYS_LAST' } : {}),
      })
      await coupon(t, 'JOINT10', { discount: percent(10), category_id: joint.id })
      await coupon(t, 'FLAT', { category_id: never.id })
      const result = await t.engine.raw.validations.validateStackable(codes(['JOINT10', 'FLAT']))
      expect(result.redeemables.map((r) => [r.id, r.status])).toEqual(expected.order.map((id) => [id, 'APPLICABLE']))
      expect(result.order.total_discount_amount).toBe(expected.discount)
      expect(result.stacking_rules.grouped_redeemables_sorting_rule ?? null).toBe(grouped ? 'JOINT_ALWAYS_LAST' : null)
    }
  })

  /** FULL (100% off) then ZERO (10% of nothing): ZERO has no effect. */
  async function noEffect(t: T, rules: Record<string, unknown>) {
    const cat = await t.engine.categories.create({ name: 'Zero', hierarchy: 1 })
    await t.engine.stackingRules.create('proj_default', {
      applicable_redeemables_per_category_limit: 5,
      ...rules,
      ...(rules.no_effect_skip_categories ? { no_effect_skip_categories: [cat.id] } : {}),
      ...(rules.no_effect_redeem_anyway_categories ? { no_effect_redeem_anyway_categories: [cat.id] } : {}),
    })
    await coupon(t, 'FULL', { discount: percent(100) })
    await coupon(t, 'ZERO', { discount: percent(10), category_id: cat.id })
    return t.engine.raw.validations.validateStackable(codes(['FULL', 'ZERO']))
  }

  it('no_effect_skip_categories overrides REDEEM_ANYWAY: the zero-effect coupon is SKIPPED no_effect', async () => {
    const result = await noEffect(testEngine(), {
      redeemables_no_effect_rule: 'REDEEM_ANYWAY',
      no_effect_skip_categories: true,
    })
    expect(result.redeemables.map((r) => [r.id, r.status])).toEqual([
      ['FULL', 'APPLICABLE'],
      ['ZERO', 'SKIPPED'],
    ])
    expect(result.redeemables[1]?.result).toEqual({
      details: { key: 'no_effect', message: 'Redeemable cannot be applied due to no effect' },
    })
  })

  it('no_effect_redeem_anyway_categories overrides SKIP: the zero-effect coupon is APPLICABLE and redeemed', async () => {
    const t = testEngine()
    const result = await noEffect(t, { redeemables_no_effect_rule: 'SKIP', no_effect_redeem_anyway_categories: true })
    expect(result.redeemables.map((r) => [r.id, r.status])).toEqual([
      ['FULL', 'APPLICABLE'],
      ['ZERO', 'APPLICABLE'],
    ])
    const redeemed = await t.engine.raw.redemptions.redeemStackable(codes(['FULL', 'ZERO']))
    expect(redeemed.redemptions.map((r) => (r.voucher as { code: string }).code)).toEqual(['FULL', 'ZERO'])
    expect((await t.engine.vouchers.get('ZERO')).redemption.redeemed_quantity).toBe(1)
  })

  it('without the override the global rule decides: SKIP skips, REDEEM_ANYWAY applies', async () => {
    const skip = await noEffect(testEngine(), { redeemables_no_effect_rule: 'SKIP' })
    expect(skip.redeemables.map((r) => r.status)).toEqual(['APPLICABLE', 'SKIPPED'])
    const anyway = await noEffect(testEngine(), { redeemables_no_effect_rule: 'REDEEM_ANYWAY' })
    expect(anyway.redeemables.map((r) => r.status)).toEqual(['APPLICABLE', 'APPLICABLE'])
  })

  it('initial_amount_mode_categories: that category’s percentage is of the initial amount', async () => {
    for (const [override, expected] of [
      [true, 10000],
      [false, 7500],
    ] as const) {
      const t = testEngine()
      const cat = await t.engine.categories.create({ name: 'Initial', hierarchy: 1 })
      await t.engine.stackingRules.create('proj_default', {
        discount_calculation_mode: 'DISCOUNTED_AMOUNT',
        ...(override ? { initial_amount_mode_categories: [cat.id] } : {}),
      })
      await coupon(t, 'HALF', { discount: percent(50) })
      await coupon(t, 'HALF-INITIAL', { discount: percent(50), category_id: cat.id })
      const result = await t.engine.raw.validations.validateStackable(codes(['HALF', 'HALF-INITIAL']))
      // 50% of 10000 = 5000; then 50% of 10000 (initial) = 5000, or of 5000 (discounted) = 2500.
      expect(result.order.total_discount_amount).toBe(expected)
      expect(result.redeemables[1]?.order?.applied_discount_amount).toBe(expected - 5000)
    }
  })
})

describe('G: "Promotion is inactive this weekend"', () => {
  async function setup(tier: Record<string, unknown>) {
    const t = testEngine()
    const campaign = await t.engine.promotions.create({
      name: 'Weekdays',
      promotion: { tiers: [{ name: 'Weekdays only', action: { discount: tenOff }, ...tier }] },
    })
    const tierId = campaign.promotion.tiers[0]?.id as string
    await ruleOn(
      t,
      {
        rules: { '1': { name: 'order.amount', conditions: { $more_than: [0] } } },
        error: { message: 'Promotion is inactive this weekend.' },
      },
      { related_object_type: 'promotion_tier', related_object_id: tierId },
    )
    const validate = () =>
      t.engine.validations.validateStackable({
        redeemables: [{ object: 'promotion_tier', id: tierId }],
        order: { amount: 10000 },
      })
    return { t, tierId, validate }
  }

  it('a tier active Monday–Friday, on Saturday: promotion_not_active_now with the rule’s custom message', async () => {
    const { t, tierId, validate } = await setup({ validity_day_of_week: [1, 2, 3, 4, 5] })
    expect((await validate()).redeemables[0]?.status).toBe('APPLICABLE')
    t.clock.set('2026-01-17T10:00:00.000Z') // Saturday
    expect((await validate()).redeemables[0]?.result).toEqual({
      error: {
        code: 400,
        key: 'promotion_not_active_now',
        message: 'promotion not active now',
        details: `Promotion Tier with id: ${tierId} is not active now.`,
        request_id: null,
        error: { message: 'Promotion is inactive this weekend.' },
      },
      details: { key: 'promotion_not_active_now', message: 'Promotion is inactive this weekend.' },
    })
  })

  it('a tier switched off for the weekend: "Inactive Promotion" with the custom message', async () => {
    const { validate } = await setup({ active: false })
    expect((await validate()).redeemables[0]?.result).toMatchObject({
      error: {
        key: 'promotion_inactive',
        message: 'Inactive Promotion',
        error: { message: 'Promotion is inactive this weekend.' },
      },
    })
  })
})

describe('tracking_id', () => {
  it('stable for a customer across requests and operations; not the source id; differs between customers', async () => {
    const t = testEngine()
    await coupon(t, 'TEN')
    const alice1 = await t.engine.raw.validations.validateStackable(
      codes(['TEN'], { customer: { source_id: 'alice' } }),
    )
    const redeemed = await t.engine.raw.redemptions.redeemStackable(
      codes(['TEN'], { customer: { source_id: 'alice' } }),
    )
    const stored = await t.engine.customers.get('alice')
    const byId = await t.engine.raw.validations.validateStackable(codes(['TEN'], { customer: { id: stored.id } }))
    const bob = await t.engine.raw.validations.validateStackable(codes(['TEN'], { customer: { source_id: 'bob' } }))
    expect(alice1.tracking_id).toMatch(/^track_[\w-]{24}$/)
    expect(alice1.tracking_id).not.toContain('alice')
    expect(redeemed.parent_redemption.tracking_id).toBe(alice1.tracking_id)
    expect(redeemed.redemptions[0]?.tracking_id).toBe(alice1.tracking_id)
    expect(byId.tracking_id).toBe(alice1.tracking_id)
    expect(bob.tracking_id).not.toBe(alice1.tracking_id)
    expect((await t.engine.raw.validations.validateStackable(codes(['TEN']))).tracking_id).toBeNull()
  })
})

describe('loyalty card with a COIN reward whose assignment has a validation rule', () => {
  async function setup() {
    const t = testEngine()
    const { engine } = t
    const { card, coin, assignment } = await cardPayingWithPoints(engine)
    const rule = await ruleOn(
      t,
      { rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [5000] } } } },
      { related_object_type: 'reward_assignment', related_object_id: assignment.id },
    )
    return { ...t, card, coin, rule }
  }

  it('the assignment’s rule holds for the card: below 5000 order_rules_violated, from 5000 applicable', async () => {
    const { engine, card, coin, rule } = await setup()
    const body = (amount: number) => ({
      customer: { source_id: 'alice' },
      order: { amount },
      redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 100 } }],
    })
    const small = await engine.raw.validations.validateStackable(body(4999))
    expect(small.redeemables[0]?.result).toMatchObject({
      error: {
        key: 'order_rules_violated',
        details: `Loyalty Card cannot be redeemed because of violated validation rules: ${rule.id}`,
      },
    })
    const big = await engine.raw.validations.validateStackable(body(5000))
    expect(big.redeemables[0]).toMatchObject({ status: 'APPLICABLE', result: { loyalty_card: { points: 100 } } })
    expect(big.order).toMatchObject({ discount_amount: 100, total_amount: 4900 })
  })
})
