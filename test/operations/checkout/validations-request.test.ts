import { describe, expect, it } from 'vitest'
import type { EngineError } from '../../../src/errors'
import { snapshot, testEngine } from '../../support/engine'

type T = ReturnType<typeof testEngine>

async function rejection(p: Promise<unknown>): Promise<EngineError> {
  try {
    await p
  } catch (e) {
    return e as EngineError
  }
  throw new Error('expected a rejection')
}

const tenOff = { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' } as const

async function fixture() {
  const t = testEngine()
  await t.engine.vouchers.create({ code: 'TEN', type: 'DISCOUNT_VOUCHER', discount: tenOff })
  const campaign = await t.engine.promotions.create({
    name: 'Promo',
    promotion: { tiers: [{ name: 'Tier A', action: { discount: tenOff } }] },
  })
  const tierId = campaign.promotion.tiers[0]?.id as string
  const stack = await t.engine.promotions.stacks.createInCampaign(campaign.id, {
    name: 'Stack',
    tiers: { ids: [tierId] },
  })
  return { ...t, campaign, tierId, stackId: stack.id }
}

describe('validateStackable / redeemStackable: request errors write nothing', () => {
  const voucher = (id: string) => ({ object: 'voucher', id })
  const cases: [string, (f: Awaited<ReturnType<typeof fixture>>) => unknown, Partial<EngineError>][] = [
    ['no redeemables', () => ({ redeemables: [] }), { key: 'invalid_payload', path: 'redeemables' }],
    [
      '31 redeemables',
      () => ({ redeemables: Array.from({ length: 31 }, (_, i) => voucher(`C${i}`)) }),
      { key: 'invalid_payload', path: 'redeemables' },
    ],
    [
      'a duplicated voucher',
      () => ({ redeemables: [voucher('TEN'), voucher('X'), voucher('TEN')] }),
      {
        key: 'duplicated_redeemables',
        message: 'Duplicated redeemables detected',
        details: 'Duplicated redeemables detected in one redemption',
        path: 'redeemables[2]',
      },
    ],
    [
      'a promotion stack with a voucher',
      (f) => ({ redeemables: [voucher('TEN'), { object: 'promotion_stack', id: f.stackId }] }),
      {
        key: 'invalid_redeemables',
        message: 'Invalid redeemables',
        details: 'Promotion Stack cannot be use with other redeemables',
        path: 'redeemables[1]',
      },
    ],
    [
      'an unknown object',
      () => ({ redeemables: [{ object: 'coupon', id: 'TEN' }] }),
      { path: 'redeemables[0].object' },
    ],
    ['a numeric id', () => ({ redeemables: [{ object: 'voucher', id: 5 }] }), { path: 'redeemables[0].id' }],
    [
      'negative gift credits',
      () => ({ redeemables: [{ object: 'voucher', id: 'TEN', gift: { credits: -1 } }] }),
      { path: 'redeemables[0].gift.credits' },
    ],
    [
      'a string order amount',
      () => ({ redeemables: [voucher('TEN')], order: { amount: 'lots' } }),
      { path: 'order.amount' },
    ],
    [
      'an unknown session type',
      () => ({ redeemables: [voucher('TEN')], session: { type: 'SHARED' } }),
      { path: 'session.type' },
    ],
    [
      'an unknown expand option',
      () => ({ redeemables: [voucher('TEN')], options: { expand: ['everything'] } }),
      { path: 'options.expand[0]' },
    ],
  ]

  for (const op of ['validateStackable', 'redeemStackable'] as const) {
    it.each(cases)(`${op}: %s`, async (_name, body, expected) => {
      const f = await fixture()
      const before = await snapshot(f.store)
      const call =
        op === 'validateStackable'
          ? f.engine.raw.validations.validateStackable(body(f))
          : f.engine.raw.redemptions.redeemStackable(body(f))
      const error = await rejection(call)
      expect(error).toMatchObject({ code: 400, key: 'invalid_payload', ...expected })
      expect(await snapshot(f.store)).toBe(before)
    })
  }

  it('the project redeemables_limit caps a request below 30', async () => {
    const f = await fixture()
    await f.engine.stackingRules.create('proj_default', { redeemables_limit: 2, applicable_redeemables_limit: 2 })
    const before = await snapshot(f.store)
    const error = await rejection(
      f.engine.validations.validateStackable({ redeemables: ['A', 'B', 'C'].map((id) => ({ object: 'voucher', id })) }),
    )
    expect(error).toMatchObject({ code: 400, key: 'invalid_payload', path: 'redeemables' })
    expect(error.details).toContain('more than 2')
    expect(await snapshot(f.store)).toBe(before)
  })

  it('an unknown promotion stack is a 404 and writes nothing', async () => {
    const f = await fixture()
    const before = await snapshot(f.store)
    const error = await rejection(
      f.engine.redemptions.redeemStackable({ redeemables: [{ object: 'promotion_stack', id: 'stack_nope' }] }),
    )
    expect(error).toMatchObject({ code: 404, key: 'not_found', resource_type: 'promotion_stack' })
    expect(await snapshot(f.store)).toBe(before)
  })
})

describe('validateStackable: redeemables by code or id', () => {
  it('takes the voucher id as well as its code, and answers with the code', async () => {
    const f = await fixture()
    const v = await f.engine.vouchers.get('TEN')
    const result = await f.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: v.id }],
      order: { amount: 5000 },
    })
    expect(result.redeemables[0]).toMatchObject({ id: 'TEN', status: 'APPLICABLE' })
    expect(result.order.total_amount).toBe(4000)
  })
})

describe('validateStackable: options.expand', () => {
  async function setup(t: T) {
    const category = await t.engine.categories.create({ name: 'Weekend', hierarchy: 3 })
    await t.engine.stackingRules.create('proj_default', { exclusive_categories: [category.id] })
    const campaign = await t.engine.promotions.create({
      name: 'Summer',
      promotion: {
        tiers: [
          {
            name: 'Summer tier',
            metadata: { season: 'summer' },
            category_id: category.id,
            action: { discount: tenOff },
          },
        ],
      },
    })
    return { category, campaign, tierId: campaign.promotion.tiers[0]?.id as string }
  }

  it('without expand: no metadata, campaign or name; categories without stacking_rules_type', async () => {
    const t = testEngine()
    const { tierId, category } = await setup(t)
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'promotion_tier', id: tierId }],
      order: { amount: 5000 },
    })
    const r = result.redeemables[0]
    expect(r).not.toHaveProperty('metadata')
    expect(r).not.toHaveProperty('campaign_name')
    expect(r).not.toHaveProperty('name')
    expect(r?.categories.map((c) => c.id)).toEqual([category.id])
    expect(r?.categories[0]).not.toHaveProperty('stacking_rules_type')
  })

  it('redeemable: metadata, campaign_name, campaign_id and the tier name', async () => {
    const t = testEngine()
    const { tierId, campaign } = await setup(t)
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'promotion_tier', id: tierId }],
      order: { amount: 5000 },
      options: { expand: ['redeemable'] },
    })
    expect(result.redeemables[0]).toMatchObject({
      metadata: { season: 'summer' },
      campaign_name: 'Summer',
      campaign_id: campaign.id,
      name: 'Summer tier',
    })
  })

  it('redeemable on a voucher in no campaign: campaign null, name null', async () => {
    const f = await fixture()
    const result = await f.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { amount: 5000 },
      options: { expand: ['redeemable'] },
    })
    expect(result.redeemables[0]).toMatchObject({ metadata: {}, campaign_name: null, campaign_id: null, name: null })
  })

  it('category: categories with stacking_rules_type', async () => {
    const t = testEngine()
    const { tierId, category } = await setup(t)
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'promotion_tier', id: tierId }],
      order: { amount: 5000 },
      options: { expand: ['category'] },
    })
    expect(result.redeemables[0]?.categories).toEqual([
      expect.objectContaining({ id: category.id, name: 'Weekend', hierarchy: 3, stacking_rules_type: 'EXCLUSIVE' }),
    ])
  })
})
