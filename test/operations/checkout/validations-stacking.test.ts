import { describe, expect, it } from 'vitest'
import type { EngineOptions } from '../../../src/engine'
import { testEngine } from '../../support/engine'

type T = ReturnType<typeof testEngine>

const tenPercent = { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' } as const

async function coupons(t: T, codes: readonly string[], extra: Record<string, unknown> = {}) {
  for (const code of codes) {
    await t.engine.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: tenPercent, ...extra })
  }
}

async function validate(t: T, codes: readonly string[], order: Record<string, unknown> = { amount: 10000 }) {
  return t.engine.validations.validateStackable({ redeemables: codes.map((id) => ({ object: 'voucher', id })), order })
}

const statuses = (r: Awaited<ReturnType<typeof validate>>) => r.redeemables.map((x) => [x.id, x.status])

describe('stacking limits: each SKIPPED key with its limit', () => {
  it('applicable_redeemables_limit_exceeded (limit 2 via createEngine)', async () => {
    const t = testEngine({ stackingRules: { applicable_redeemables_limit: 2 } })
    await coupons(t, ['A', 'B', 'C'])
    const result = await validate(t, ['A', 'B', 'C'])
    expect(statuses(result)).toEqual([
      ['A', 'APPLICABLE'],
      ['B', 'APPLICABLE'],
      ['C', 'SKIPPED'],
    ])
    expect(result.valid).toBe(true)
    expect(result.redeemables[2]?.result).toEqual({
      details: { key: 'applicable_redeemables_limit_exceeded', message: 'Applicable redeemables limit exceeded' },
    })
    expect(result.redeemables[2]?.explanation).toMatchObject({
      check: 'stacking',
      key: 'applicable_redeemables_limit_exceeded',
      limit: 'applicable_redeemables_limit',
      value: 2,
      filled_by: ['A', 'B'],
    })
    expect(result.stacking_rules.applicable_redeemables_limit).toBe(2)
    expect(result.order).toMatchObject({ total_discount_amount: 1900, total_amount: 8100 })
  })

  it('applicable_redeemables_per_category_limit_exceeded (the default 1)', async () => {
    const t = testEngine()
    const cat = await t.engine.categories.create({ name: 'Seasonal' })
    await coupons(t, ['S1', 'S2'], { category_id: cat.id })
    const result = await validate(t, ['S1', 'S2'])
    expect(statuses(result)).toEqual([
      ['S1', 'APPLICABLE'],
      ['S2', 'SKIPPED'],
    ])
    expect(result.redeemables[1]?.result).toEqual({
      details: {
        key: 'applicable_redeemables_per_category_limit_exceeded',
        message: 'Applicable redeemables limit per category exceeded',
      },
    })
    expect(result.redeemables[1]?.explanation).toMatchObject({
      limit: 'applicable_redeemables_per_category_limit',
      value: 1,
      category_id: cat.id,
    })
  })

  it('applicable_exclusive_redeemables_limit_exceeded (two exclusive categories, limit 1)', async () => {
    const t = testEngine()
    const x1 = await t.engine.categories.create({ name: 'X1' })
    const x2 = await t.engine.categories.create({ name: 'X2' })
    await t.engine.stackingRules.create('proj_default', { exclusive_categories: [x1.id, x2.id] })
    await coupons(t, ['E1'], { category_id: x1.id })
    await coupons(t, ['E2'], { category_id: x2.id })
    const result = await validate(t, ['E1', 'E2'])
    expect(statuses(result)).toEqual([
      ['E1', 'APPLICABLE'],
      ['E2', 'SKIPPED'],
    ])
    expect(result.redeemables[1]?.result).toEqual({
      details: {
        key: 'applicable_exclusive_redeemables_limit_exceeded',
        message: 'Applicable exclusive redeemables limit exceeded',
      },
    })
    expect(result.redeemables[1]?.explanation).toMatchObject({
      limit: 'applicable_exclusive_redeemables_limit',
      value: 1,
    })
  })

  it('applicable_exclusive_redeemables_per_category_limit_exceeded (exclusive limit 5, per category 1)', async () => {
    const t = testEngine()
    const x = await t.engine.categories.create({ name: 'X' })
    await t.engine.stackingRules.create('proj_default', {
      exclusive_categories: [x.id],
      applicable_exclusive_redeemables_limit: 5,
      applicable_redeemables_per_category_limit: 5,
    })
    await coupons(t, ['E1', 'E2'], { category_id: x.id })
    const result = await validate(t, ['E1', 'E2'])
    expect(statuses(result)).toEqual([
      ['E1', 'APPLICABLE'],
      ['E2', 'SKIPPED'],
    ])
    expect(result.redeemables[1]?.result).toEqual({
      details: {
        key: 'applicable_exclusive_redeemables_per_category_limit_exceeded',
        message: 'Applicable exclusive redeemables limit per category exceeded',
      },
    })
    expect(result.redeemables[1]?.explanation).toMatchObject({
      limit: 'applicable_exclusive_redeemables_per_category_limit',
      value: 1,
      category_id: x.id,
    })
  })

  it('an inapplicable redeemable does not take a place under a limit (PARTIAL)', async () => {
    const t = testEngine({
      stackingRules: { applicable_redeemables_limit: 2, redeemables_application_mode: 'PARTIAL' },
    })
    await coupons(t, ['A', 'C'])
    await coupons(t, ['OFF'], { active: false })
    const result = await validate(t, ['OFF', 'A', 'C'])
    expect(statuses(result)).toEqual([
      ['A', 'APPLICABLE'],
      ['C', 'APPLICABLE'],
    ])
    expect(result.inapplicable_redeemables.map((r) => r.id)).toEqual(['OFF'])
  })
})

describe('CATEGORY_HIERARCHY ordering', () => {
  async function setup(options: EngineOptions['stackingRules'] = {}) {
    const t = testEngine({
      stackingRules: {
        redeemables_sorting_rule: 'CATEGORY_HIERARCHY',
        applicable_redeemables_per_category_limit: 5,
        ...options,
      },
    })
    const first = await t.engine.categories.create({ name: 'First', hierarchy: 0 })
    const second = await t.engine.categories.create({ name: 'Second', hierarchy: 4 })
    await t.engine.vouchers.create({
      code: 'AMOUNT',
      type: 'DISCOUNT_VOUCHER',
      category_id: second.id,
      discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' },
    })
    await coupons(t, ['PERCENT'], { category_id: first.id })
    await coupons(t, ['NONE'])
    return t
  }

  it('applies the lower hierarchy first, whatever the request order; no category sorts as hierarchy 1', async () => {
    const t = await setup()
    const result = await validate(t, ['NONE', 'AMOUNT', 'PERCENT'])
    expect(result.redeemables.map((r) => r.id)).toEqual(['PERCENT', 'NONE', 'AMOUNT'])
    // 10% of 10000 = 1000 → 9000; 10% of 9000 = 900 → 8100; −1000 → 7100.
    expect(result.redeemables.map((r) => r.order?.applied_discount_amount)).toEqual([1000, 900, 1000])
    expect(result.order).toMatchObject({ total_discount_amount: 2900, total_amount: 7100 })
  })

  it('REQUESTED_ORDER applies in the request order', async () => {
    const t = await setup({ redeemables_sorting_rule: 'REQUESTED_ORDER' })
    const result = await validate(t, ['NONE', 'AMOUNT', 'PERCENT'])
    expect(result.redeemables.map((r) => r.id)).toEqual(['NONE', 'AMOUNT', 'PERCENT'])
    // 10% → 9000; −1000 → 8000; 10% of 8000 → 7200.
    expect(result.redeemables.map((r) => r.order?.applied_discount_amount)).toEqual([1000, 1000, 800])
    expect(result.order.total_amount).toBe(7200)
  })
})

describe('PARTIAL placement', () => {
  it('redeemables holds only APPLICABLE ones; the others only in the side lists; valid false', async () => {
    const t = testEngine({
      stackingRules: { redeemables_application_mode: 'PARTIAL', applicable_redeemables_limit: 2 },
    })
    await coupons(t, ['A', 'B', 'C'])
    await coupons(t, ['EXPIRED'], { expiration_date: '2026-01-01T00:00:00.000Z' })
    const result = await validate(t, ['A', 'EXPIRED', 'B', 'C'])
    expect(result.valid).toBe(false)
    expect(statuses(result)).toEqual([
      ['A', 'APPLICABLE'],
      ['B', 'APPLICABLE'],
    ])
    expect(result.inapplicable_redeemables.map((r) => [r.id, r.status])).toEqual([['EXPIRED', 'INAPPLICABLE']])
    expect(result.skipped_redeemables.map((r) => [r.id, r.status])).toEqual([['C', 'SKIPPED']])
    expect(result.inapplicable_redeemables[0]?.explanation).toMatchObject({ check: 'voucher_validity' })
    expect(result.skipped_redeemables[0]?.explanation).toMatchObject({ key: 'applicable_redeemables_limit_exceeded' })
    expect(result.order).toMatchObject({ total_discount_amount: 1900, total_amount: 8100 })
  })

  it('PARTIAL redemption redeems the applicable ones and reports the others', async () => {
    const t = testEngine({ stackingRules: { redeemables_application_mode: 'PARTIAL' } })
    await coupons(t, ['A'])
    await coupons(t, ['OFF'], { active: false })
    const redemption = await t.engine.redemptions.redeemStackable({
      redeemables: [
        { object: 'voucher', id: 'OFF' },
        { object: 'voucher', id: 'A' },
      ],
      order: { amount: 10000 },
    })
    expect(redemption.parent_redemption.result).toBe('SUCCESS')
    expect(redemption.redemptions.map((r) => (r.voucher as { code: string }).code)).toEqual(['A'])
    expect(redemption.inapplicable_redeemables.map((r) => r.id)).toEqual(['OFF'])
    expect(redemption.order.total_amount).toBe(9000)
  })

  it('ALL mode puts every result in redeemables, in application order', async () => {
    const t = testEngine()
    await coupons(t, ['A'])
    await coupons(t, ['OFF'], { active: false })
    const result = await validate(t, ['A', 'OFF'])
    expect(statuses(result)).toEqual([
      ['A', 'APPLICABLE'],
      ['OFF', 'INAPPLICABLE'],
    ])
    expect(result.valid).toBe(false)
    // ALL: nothing is applied when one fails.
    expect(result.order).toMatchObject({ total_discount_amount: 0, total_amount: 10000 })
  })
})

describe('products application mode', () => {
  async function setup(mode: 'STACK' | 'ONCE') {
    const t = testEngine({
      stackingRules: { redeemables_products_application_mode: mode, applicable_redeemables_per_category_limit: 5 },
    })
    for (const code of ['ITEMS10', 'ITEMS20']) {
      await t.engine.vouchers.create({
        code,
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'PERCENT', percent_off: code === 'ITEMS10' ? 10 : 20, effect: 'APPLY_TO_ITEMS' },
      })
    }
    return t
  }
  const order = { items: [{ product_id: 'prod_a', price: 10000, quantity: 1 }] }

  it('STACK: both discount the same line', async () => {
    const t = await setup('STACK')
    const result = await validate(t, ['ITEMS10', 'ITEMS20'], order)
    // 10% of 10000, then 20% of the 9000 left.
    expect(result.order).toMatchObject({ items_discount_amount: 2800, total_amount: 7200 })
  })

  it('ONCE: the line already discounted by the first is left alone by the second', async () => {
    const t = await setup('ONCE')
    const result = await validate(t, ['ITEMS10', 'ITEMS20'], order)
    expect(result.order).toMatchObject({ items_discount_amount: 1000, total_amount: 9000 })
    expect(result.redeemables[1]?.order?.applied_discount_amount).toBe(0)
  })
})

describe('discount calculation mode', () => {
  it.each([
    ['DISCOUNTED_AMOUNT', 1000, 1800, 7200],
    ['INITIAL_AMOUNT', 1000, 2000, 7000],
  ] as const)('%s: 10% then 20% on 10000', async (mode, first, second, total) => {
    const t = testEngine({
      stackingRules: { discount_calculation_mode: mode, applicable_redeemables_per_category_limit: 5 },
    })
    await coupons(t, ['TEN'])
    await t.engine.vouchers.create({
      code: 'TWENTY',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ORDER' },
    })
    const result = await validate(t, ['TEN', 'TWENTY'])
    expect(result.redeemables.map((r) => r.order?.applied_discount_amount)).toEqual([first, second])
    expect(result.order.total_amount).toBe(total)
  })
})
