import { describe, expect, it } from 'vitest'
import type { EngineOptions } from '../../../src/engine'
import type { Reward, RewardAssignment } from '../../../src/model/loyalty'
import type { Voucher } from '../../../src/model/voucher'
import { currentShape } from '../../../src/operations/kernel/shape-versions'
import { testEngine } from '../../support/engine'

type T = ReturnType<typeof testEngine>

// The test clock starts on Thursday 2026-01-15 at 10:00 UTC (11:00 in Warsaw).
const tenOff = { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' } as const

async function validateOne(t: T, redeemable: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const result = await t.engine.raw.validations.validateStackable({
    redeemables: [redeemable],
    order: { amount: 10000 },
    ...extra,
  })
  return result.redeemables[0]
}

async function coupon(t: T, code: string, extra: Record<string, unknown> = {}) {
  return t.engine.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: tenOff, ...extra })
}

describe('voucher own checks: key, message, details, explanation', () => {
  // The clock stands at Thursday 2026-01-15T10:00:00Z; the explanation names the setting and now.
  it.each([
    ['voucher_disabled', { active: false }, 'voucher is disabled', true, false],
    [
      'voucher_expired',
      { expiration_date: '2026-01-15T09:59:59.000Z' },
      'voucher expired',
      { expiration_date: '2026-01-15T09:59:59.000Z' },
      '2026-01-15T10:00:00.000Z',
    ],
    [
      'voucher_not_active',
      { start_date: '2026-01-15T10:00:01.000Z' },
      'voucher not active',
      { start_date: '2026-01-15T10:00:01.000Z' },
      '2026-01-15T10:00:00.000Z',
    ],
    [
      'voucher_not_active_now',
      { validity_day_of_week: [1, 2, 3] },
      'voucher not active now',
      { validity_day_of_week: [1, 2, 3] },
      4,
    ],
  ])('%s', async (key, extra, message, expected, actual) => {
    const t = testEngine()
    await coupon(t, 'CODE', extra)
    const r = await validateOne(t, { object: 'voucher', id: 'CODE' })
    expect(r?.status).toBe('INAPPLICABLE')
    expect(r?.result).toMatchObject({ error: { code: 400, key, message, details: 'CODE' } })
    expect(r?.explanation).toMatchObject({ check: 'voucher_validity', expected, actual })
  })

  it('is valid exactly at the expiration instant and from the start instant', async () => {
    const t = testEngine()
    await coupon(t, 'EDGE', { start_date: '2026-01-15T10:00:00.000Z', expiration_date: '2026-01-15T10:00:00.000Z' })
    expect((await validateOne(t, { object: 'voucher', id: 'EDGE' }))?.status).toBe('APPLICABLE')
  })
})

describe('voucher_not_active_now in the engine time zone', () => {
  // 10:00 UTC is 11:00 in Warsaw: hours 09:00–10:30 hold in UTC but not in Warsaw.
  const hours = { daily: [{ start_time: '09:00', expiration_time: '10:30', days_of_week: [4] }] }

  it.each([
    [{ timezone: 'UTC' }, 'APPLICABLE'],
    [{ timezone: 'Europe/Warsaw' }, 'INAPPLICABLE'],
  ] as [EngineOptions, string][])('daily hours 09:00–10:30 on Thursday, %j → %s', async (options, status) => {
    const t = testEngine(options)
    await coupon(t, 'MORNING', { validity_hours: hours })
    const r = await validateOne(t, { object: 'voucher', id: 'MORNING' })
    expect(r?.status).toBe(status)
    if (status === 'INAPPLICABLE') expect(r?.result).toMatchObject({ error: { key: 'voucher_not_active_now' } })
  })

  it('day of week flips at local midnight: Thursday 23:30 UTC is Friday in Warsaw', async () => {
    for (const [timezone, status] of [
      ['UTC', 'APPLICABLE'],
      ['Europe/Warsaw', 'INAPPLICABLE'],
    ] as const) {
      const t = testEngine({ timezone })
      t.clock.set('2026-01-15T23:30:00.000Z')
      await coupon(t, 'THURSDAY', { validity_day_of_week: [4] })
      expect((await validateOne(t, { object: 'voucher', id: 'THURSDAY' }))?.status).toBe(status)
    }
  })
})

describe('campaign and promotion tier checks', () => {
  it('a voucher of an expired campaign is inapplicable with campaign_not_active', async () => {
    const t = testEngine()
    const campaign = await t.engine.campaigns.create({
      name: 'Old',
      campaign_type: 'DISCOUNT_COUPONS',
      start_date: '2026-01-01T00:00:00.000Z',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: tenOff },
    })
    await t.engine.vouchers.create({ code: 'OLD1', campaign_id: campaign.id })
    // The campaign ends after the voucher was made.
    const stored = await t.store.campaigns.get(campaign.id)
    if (!stored) throw new Error('campaign missing')
    await t.store.commit({
      writes: [
        {
          op: 'put',
          collection: 'campaigns',
          value: { ...stored.value, expiration_date: '2026-01-10T00:00:00.000Z' },
          expectedVersion: stored.version,
          shape: currentShape('campaigns'),
        },
      ],
    })
    const r = await validateOne(t, { object: 'voucher', id: 'OLD1' })
    expect(r?.result).toMatchObject({
      error: { code: 400, key: 'campaign_not_active', message: 'campaign not active' },
    })
    expect(r?.explanation).toMatchObject({ check: 'campaign_validity' })
  })

  it('promotion_inactive and promotion_not_active_now', async () => {
    const t = testEngine()
    const campaign = await t.engine.promotions.create({
      name: 'Promo',
      promotion: {
        tiers: [
          { name: 'Off', action: { discount: tenOff } },
          { name: 'Weekends', validity_day_of_week: [0, 6], action: { discount: tenOff } },
        ],
      },
    })
    const [off, weekends] = campaign.promotion.tiers.map((tier) => tier.id) as [string, string]
    await t.engine.promotions.tiers.disable(off)
    expect((await validateOne(t, { object: 'promotion_tier', id: off }))?.result).toMatchObject({
      error: {
        key: 'promotion_inactive',
        message: 'Inactive Promotion',
        details: `Promotion Tier with id: ${off} is disabled.`,
      },
    })
    expect((await validateOne(t, { object: 'promotion_tier', id: weekends }))?.result).toMatchObject({
      error: { key: 'promotion_not_active_now', details: `Promotion Tier with id: ${weekends} is not active now.` },
    })
    t.clock.set('2026-01-17T10:00:00.000Z') // Saturday
    expect((await validateOne(t, { object: 'promotion_tier', id: weekends }))?.status).toBe('APPLICABLE')
  })

  it('an unknown promotion tier is not_found with resource_type promotion_tier', async () => {
    const t = testEngine()
    expect((await validateOne(t, { object: 'promotion_tier', id: 'promo_nope' }))?.result).toMatchObject({
      error: {
        code: 404,
        key: 'not_found',
        details: 'Cannot find promotion tier with id promo_nope',
        resource_id: 'promo_nope',
        resource_type: 'promotion_tier',
      },
    })
  })
})

describe('quantity_exceeded counts redemptions and live session locks', () => {
  it('redeemed uses count; live locks count; expired locks do not', async () => {
    const t = testEngine()
    await coupon(t, 'TWICE', { redemption: { quantity: 2 } })
    await t.engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'TWICE' }],
      order: { amount: 10000 },
    })
    const locked = await validateOne(
      t,
      { object: 'voucher', id: 'TWICE' },
      { session: { type: 'LOCK', key: 'ssn_a', ttl: 2, ttl_unit: 'HOURS' } },
    )
    expect(locked?.status).toBe('APPLICABLE')
    const full = await validateOne(t, { object: 'voucher', id: 'TWICE' })
    expect(full?.result).toMatchObject({
      error: { key: 'quantity_exceeded', message: 'quantity exceeded', details: 'TWICE' },
    })
    expect(full?.explanation).toMatchObject({ check: 'redemption.quantity', expected: 2, actual: 2 })
    // The key's own lock does not count against itself.
    const own = await validateOne(t, { object: 'voucher', id: 'TWICE' }, { session: { type: 'LOCK', key: 'ssn_a' } })
    expect(own?.status).toBe('APPLICABLE')
    t.clock.advance(7 * 86_400_000 + 1) // past the default 7 days the key was renewed for
    expect((await validateOne(t, { object: 'voucher', id: 'TWICE' }))?.status).toBe('APPLICABLE')
  })

  it('a lock with a short ttl stops counting once it expires', async () => {
    const t = testEngine()
    await coupon(t, 'ONCE', { redemption: { quantity: 1 } })
    await validateOne(t, { object: 'voucher', id: 'ONCE' }, { session: { type: 'LOCK', ttl: 30, ttl_unit: 'MINUTES' } })
    t.clock.advance(30 * 60_000 - 1)
    expect((await validateOne(t, { object: 'voucher', id: 'ONCE' }))?.status).toBe('INAPPLICABLE')
    t.clock.advance(1)
    expect((await validateOne(t, { object: 'voucher', id: 'ONCE' }))?.status).toBe('APPLICABLE')
  })
})

describe('gift card checks', () => {
  it('gift_amount_exceeded counts credits locked by other sessions', async () => {
    const t = testEngine()
    await t.engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 5000 } })
    const lock = await validateOne(
      t,
      { object: 'voucher', id: 'GIFT', gift: { credits: 3000 } },
      { session: { type: 'LOCK', key: 'ssn_gift' } },
    )
    expect(lock?.result).toEqual({ gift: { credits: 3000, balance: 5000 } })
    const r = await validateOne(t, { object: 'voucher', id: 'GIFT', gift: { credits: 2001 } })
    expect(r?.result).toMatchObject({
      error: { code: 400, key: 'gift_amount_exceeded', message: 'gift amount exceeded', details: 'GIFT' },
    })
    expect(r?.explanation).toMatchObject({ check: 'gift.balance', expected: 2000, actual: 2001 })
    expect((await validateOne(t, { object: 'voucher', id: 'GIFT', gift: { credits: 2000 } }))?.status).toBe(
      'APPLICABLE',
    )
  })

  it('missing_amount when the order has no amount', async () => {
    const t = testEngine()
    await t.engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 5000 } })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'GIFT', gift: { credits: 100 } }],
      order: { items: [] },
    })
    expect(result.redeemables[0]?.result).toMatchObject({ error: { key: 'missing_amount', message: 'Missing amount' } })
  })
})

describe('loyalty card checks (pay with points)', () => {
  // engine.rewards does not exist yet: the reward, its assignment and the card's campaign link are written to the store.
  async function card(t: T, points: number) {
    const voucher = await t.engine.vouchers.create({ code: 'CARD', type: 'LOYALTY_CARD', loyalty_card: { points } })
    const stored = (await t.store.vouchers.get(voucher.id)) as { value: Voucher; version: number }
    const reward: Reward = {
      id: 'rew_coin',
      name: 'Pay with points',
      type: 'COIN',
      parameters: { coin: { exchange_ratio: 1, points_ratio: 1 } },
      stock: null,
      redeemed: null,
      metadata: {},
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: null,
      object: 'reward',
    }
    const assignment: RewardAssignment = {
      id: 'rewa_coin',
      reward_id: reward.id,
      related_object_id: 'camp_loyalty',
      related_object_type: 'campaign',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: null,
      object: 'reward_assignment',
    }
    await t.store.commit({
      writes: [
        {
          op: 'put',
          collection: 'vouchers',
          value: { ...stored.value, campaign_id: 'camp_loyalty' },
          expectedVersion: stored.version,
          shape: currentShape('vouchers'),
        },
        { op: 'put', collection: 'rewards', value: reward, expectedVersion: null, shape: currentShape('rewards') },
        {
          op: 'put',
          collection: 'reward_assignments',
          value: assignment,
          expectedVersion: null,
          shape: currentShape('reward_assignments'),
        },
      ],
    })
  }

  it('missing_reward without a reward', async () => {
    const t = testEngine()
    await card(t, 50)
    expect((await validateOne(t, { object: 'voucher', id: 'CARD' }))?.result).toMatchObject({
      error: {
        code: 400,
        key: 'missing_reward',
        message: 'Missing reward',
        details: 'A reward is required when redeeming a LOYALTY_CARD',
      },
    })
  })

  it('loyalty_card_points_exceeded when the points asked pass the balance; else the points pay', async () => {
    const t = testEngine()
    await card(t, 50)
    const over = await validateOne(t, { object: 'voucher', id: 'CARD', reward: { id: 'rew_coin', points: 51 } })
    expect(over?.result).toMatchObject({
      error: {
        code: 400,
        key: 'loyalty_card_points_exceeded',
        message: 'loyalty card points exceeded',
        details: 'CARD',
      },
    })
    expect(over?.explanation).toMatchObject({ expected: 50, actual: 51 })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'CARD', reward: { id: 'rew_coin', points: 30 } }],
      order: { amount: 10000 },
    })
    // 30 points at 1 point = 100 cents.
    expect(result.redeemables[0]?.result).toEqual({ loyalty_card: { points: 30 } })
    expect(result.order).toMatchObject({ total_discount_amount: 3000, total_amount: 7000 })
  })
})

describe('validation rules: key, message and the explanation of the failing rule', () => {
  async function withRule(t: T, rules: Record<string, unknown>, target: 'voucher' | 'tier' = 'voucher') {
    const rule = await t.engine.validationRules.create({ name: 'Rule', rules })
    let relatedId: string
    if (target === 'voucher') relatedId = (await coupon(t, 'RULED')).id
    else {
      const campaign = await t.engine.promotions.create({
        name: 'Ruled',
        promotion: { tiers: [{ name: 'Ruled tier', action: { discount: tenOff } }] },
      })
      relatedId = campaign.promotion.tiers[0]?.id as string
    }
    await t.engine.validationRules.createAssignment(rule.id, {
      related_object_type: target === 'voucher' ? 'voucher' : 'promotion_tier',
      related_object_id: relatedId,
    })
    return { rule, relatedId }
  }

  it('order_rules_violated: order.amount more than 20000', async () => {
    const t = testEngine()
    const { rule } = await withRule(t, { '1': { name: 'order.amount', conditions: { $more_than: [20000] } } })
    const r = await validateOne(t, { object: 'voucher', id: 'RULED' })
    expect(r?.result).toMatchObject({
      error: {
        code: 400,
        key: 'order_rules_violated',
        message: 'order does not match validation rules',
        details: `Discount Coupon cannot be redeemed because of violated validation rules: ${rule.id}`,
      },
    })
    expect(r?.explanation).toEqual({
      check: 'validation_rule',
      rule_id: rule.id,
      failures: [
        expect.objectContaining({
          rule: '1',
          name: 'order.amount',
          operator: '$more_than',
          expected: [20000],
          actual: 10000,
        }),
      ],
    })
  })

  it('customer_rules_violated: customer.metadata tier is gold', async () => {
    const t = testEngine()
    await t.engine.customers.create({ source_id: 'bob', metadata: { tier: 'silver' } })
    const { rule } = await withRule(t, {
      '1': { name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] } },
    })
    const r = await validateOne(t, { object: 'voucher', id: 'RULED' }, { customer: { source_id: 'bob' } })
    expect(r?.result).toMatchObject({
      error: { key: 'customer_rules_violated', message: 'customer does not match validation rules' },
    })
    expect(r?.explanation).toMatchObject({
      rule_id: rule.id,
      failures: [
        {
          rule: '1',
          name: 'customer.metadata',
          property: 'tier',
          operator: '$is',
          expected: ['gold'],
          actual: 'silver',
        },
      ],
    })
  })

  it('redemption_rules_violated: redemption.metadata channel is shop (Promotion Tier details)', async () => {
    const t = testEngine()
    const { rule, relatedId } = await withRule(
      t,
      { '1': { name: 'redemption.metadata', property: 'channel', conditions: { $is: ['shop'] } } },
      'tier',
    )
    const r = await validateOne(t, { object: 'promotion_tier', id: relatedId }, { metadata: { channel: 'web' } })
    expect(r?.result).toMatchObject({
      error: {
        key: 'redemption_rules_violated',
        message: 'redemption does not match validation rules',
        details: `Promotion Tier cannot be redeemed because of violated validation rules: ${rule.id}`,
      },
    })
    expect(r?.explanation).toMatchObject({
      failures: [{ rule: '1', name: 'redemption.metadata', operator: '$is', expected: ['shop'], actual: 'web' }],
    })
    const ok = await validateOne(t, { object: 'promotion_tier', id: relatedId }, { metadata: { channel: 'shop' } })
    expect(ok?.status).toBe('APPLICABLE')
  })

  it('a 20% coupon makes a later "order.amount > 9000" tier inapplicable (the running amount)', async () => {
    const t = testEngine({ stackingRules: { redeemables_application_mode: 'PARTIAL' } })
    await t.engine.vouchers.create({
      code: 'TWENTY',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ORDER' },
    })
    const { relatedId, rule } = await withRule(
      t,
      { '1': { name: 'order.amount', conditions: { $more_than: [9000] } } },
      'tier',
    )
    const body = (redeemables: unknown[]) => ({ redeemables, order: { amount: 10000 } })
    const tier = { object: 'promotion_tier', id: relatedId }
    const alone = await t.engine.raw.validations.validateStackable(body([tier]))
    expect(alone.redeemables[0]?.status).toBe('APPLICABLE')

    const stacked = await t.engine.raw.validations.validateStackable(body([{ object: 'voucher', id: 'TWENTY' }, tier]))
    expect(stacked.redeemables.map((r) => [r.id, r.status])).toEqual([['TWENTY', 'APPLICABLE']])
    expect(stacked.inapplicable_redeemables[0]?.explanation).toMatchObject({
      rule_id: rule.id,
      failures: [{ name: 'order.amount', operator: '$more_than', expected: [9000], actual: 8000 }],
    })
    expect(stacked.order).toMatchObject({ total_discount_amount: 2000, total_amount: 8000 })

    // order.initial_amount stays the cart value under stacking.
    const t2 = testEngine({ stackingRules: { redeemables_application_mode: 'PARTIAL' } })
    await t2.engine.vouchers.create({
      code: 'TWENTY',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ORDER' },
    })
    const initial = await withRule(
      t2,
      { '1': { name: 'order.initial_amount', conditions: { $more_than: [9000] } } },
      'tier',
    )
    const both = await t2.engine.raw.validations.validateStackable(
      body([
        { object: 'voucher', id: 'TWENTY' },
        { object: 'promotion_tier', id: initial.relatedId },
      ]),
    )
    expect(both.redeemables.map((r) => r.status)).toEqual(['APPLICABLE', 'APPLICABLE'])
    expect(both.order).toMatchObject({ total_discount_amount: 3000, total_amount: 7000 })
  })
})
