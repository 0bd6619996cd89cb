import { describe, expect, it } from 'vitest'
import type { EngineOptions } from '../../src/engine'
import { testEngine } from '../support/engine'

type T = ReturnType<typeof testEngine>

const tenPercent = { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' } as const

async function coupon(t: T, code: string, extra: Record<string, unknown> = {}) {
  return t.engine.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: tenPercent, ...extra })
}

function voucherBody(codes: readonly string[], amount = 10000) {
  return { redeemables: codes.map((id) => ({ object: 'voucher', id })), order: { amount } }
}

/** Worked example: ALL vs PARTIAL; exclusivity; category limit; no-effect. */
describe('ALL vs PARTIAL with an expired incentive', () => {
  async function setup(options: EngineOptions) {
    const t = testEngine(options)
    await coupon(t, 'WELCOME')
    await coupon(t, 'SEASONAL', { expiration_date: '2026-01-01T00:00:00.000Z' })
    return t
  }

  it('ALL: the whole validation fails and no discount applies', async () => {
    const { engine } = await setup({ stackingRules: { redeemables_application_mode: 'ALL' } })
    const result = await engine.raw.validations.validateStackable(voucherBody(['SEASONAL', 'WELCOME']))
    expect(result.valid).toBe(false)
    expect(result.redeemables.map((r) => [r.id, r.status])).toEqual([
      ['SEASONAL', 'INAPPLICABLE'],
      ['WELCOME', 'SKIPPED'],
    ])
    expect(result.redeemables[0]?.result).toMatchObject({
      error: { code: 400, key: 'voucher_expired', message: 'voucher expired', details: 'SEASONAL' },
    })
    expect(result.redeemables[1]?.result).toEqual({
      details: {
        key: 'preceding_validation_failed',
        message: 'Redeemable cannot be applied due to preceding validation failure',
      },
    })
    expect(result.order).toMatchObject({ amount: 10000, total_discount_amount: 0, total_amount: 10000 })
  })

  it('PARTIAL: the valid one applies; the expired one is only in the side list; valid false', async () => {
    const { engine } = await setup({ stackingRules: { redeemables_application_mode: 'PARTIAL' } })
    const result = await engine.raw.validations.validateStackable(voucherBody(['SEASONAL', 'WELCOME']))
    expect(result.valid).toBe(false)
    expect(result.redeemables.map((r) => [r.id, r.status])).toEqual([['WELCOME', 'APPLICABLE']])
    expect(result.inapplicable_redeemables.map((r) => r.id)).toEqual(['SEASONAL'])
    expect(result.skipped_redeemables).toEqual([])
    expect(result.order).toMatchObject({ total_discount_amount: 1000, total_amount: 9000 })
  })
})

describe('exclusivity', () => {
  async function setup() {
    const t = testEngine()
    const vip = await t.engine.categories.create({ name: 'VIP', hierarchy: 5 })
    const newsletter = await t.engine.categories.create({ name: 'Newsletter', hierarchy: 1 })
    const always = await t.engine.categories.create({ name: 'Always', hierarchy: 2 })
    await t.engine.stackingRules.create('proj_default', {
      exclusive_categories: [vip.id],
      joint_categories: [always.id],
    })
    await coupon(t, 'VIP50', { category_id: vip.id, discount: { type: 'PERCENT', percent_off: 50 } })
    await coupon(t, 'NEWS10', { category_id: newsletter.id })
    await coupon(t, 'ALWAYS10', { category_id: always.id })
    return { ...t, vip }
  }

  it.each([
    [['NEWS10', 'VIP50'], 'newsletter first'],
    [['VIP50', 'NEWS10'], 'VIP first'],
  ])('a Never-stackable VIP blocks the Common newsletter (%j, %s)', async (codes) => {
    const { engine } = await setup()
    const result = await engine.raw.validations.validateStackable(voucherBody(codes))
    expect(result.valid).toBe(true)
    const byId = Object.fromEntries(result.redeemables.map((r) => [r.id, r]))
    expect(byId.VIP50?.status).toBe('APPLICABLE')
    expect(byId.NEWS10?.status).toBe('SKIPPED')
    expect(byId.NEWS10?.result).toEqual({
      details: { key: 'exclusion_rules_not_met', message: 'Redeemable cannot be applied due to exclusion rules' },
    })
    expect(byId.NEWS10?.explanation).toMatchObject({
      check: 'stacking',
      key: 'exclusion_rules_not_met',
      blocked_by: 'VIP50',
    })
    expect(result.order).toMatchObject({ total_discount_amount: 5000, total_amount: 5000 })
  })

  it('Never stackable plus Always stackable: both apply', async () => {
    const { engine } = await setup()
    const result = await engine.raw.validations.validateStackable(voucherBody(['VIP50', 'ALWAYS10']))
    expect(result.redeemables.map((r) => [r.id, r.status])).toEqual([
      ['VIP50', 'APPLICABLE'],
      ['ALWAYS10', 'APPLICABLE'],
    ])
    // 50% of 10000, then 10% of the 5000 left.
    expect(result.order).toMatchObject({ total_discount_amount: 5500, total_amount: 4500 })
  })
})

describe('category stacking limit 2 of 3', () => {
  it('applies the first two in application order and skips the third', async () => {
    const t = testEngine()
    const flash = await t.engine.categories.create({ name: 'Flash sale' })
    await t.engine.stackingRules.create('proj_default', {
      applicable_redeemables_per_category_limit: 5,
      applicable_redeemables_category_limits: { [flash.id]: 2 },
    })
    for (const code of ['FLASH1', 'FLASH2', 'FLASH3']) await coupon(t, code, { category_id: flash.id })
    const result = await t.engine.raw.validations.validateStackable(voucherBody(['FLASH1', 'FLASH2', 'FLASH3']))
    expect(result.redeemables.map((r) => [r.id, r.status])).toEqual([
      ['FLASH1', 'APPLICABLE'],
      ['FLASH2', 'APPLICABLE'],
      ['FLASH3', 'SKIPPED'],
    ])
    expect(result.redeemables[2]?.result).toEqual({
      details: {
        key: 'applicable_redeemables_per_category_limit_exceeded',
        message: 'Applicable redeemables limit per category exceeded',
      },
    })
    expect(result.redeemables[2]?.explanation).toMatchObject({
      limit: 'applicable_redeemables_category_limits',
      value: 2,
      category_id: flash.id,
    })
    // 10% of 10000, then 10% of 9000.
    expect(result.order).toMatchObject({ total_discount_amount: 1900, total_amount: 8100 })
  })
})

describe('a single-use incentive with a 0 effect', () => {
  // A 10% discount on a product that is not in the order computes 0.
  async function setup(rule: 'SKIP' | 'REDEEM_ANYWAY') {
    const t = testEngine({ stackingRules: { redeemables_no_effect_rule: rule } })
    const product = await t.engine.products.create({ name: 'Mug', source_id: 'mug', price: 2000 })
    const onlyMugs = await t.engine.validationRules.create({
      name: 'Mugs only',
      rules: {},
      applicable_to: { included: [{ object: 'product', id: product.id }] },
    })
    const voucher = await coupon(t, 'ZERO', {
      discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS' },
      redemption: { quantity: 1 },
    })
    await t.engine.validationRules.createAssignment(onlyMugs.id, {
      related_object_type: 'voucher',
      related_object_id: voucher.id,
    })
    const body = { redeemables: [{ object: 'voucher', id: 'ZERO' }], order: { items: [{ price: 5000, quantity: 1 }] } }
    return { ...t, body }
  }

  it('SKIP (prevent): not redeemed, the code stays available', async () => {
    const { engine, body } = await setup('SKIP')
    const validation = await engine.raw.validations.validateStackable(body)
    expect(validation.redeemables[0]).toMatchObject({
      status: 'SKIPPED',
      result: { details: { key: 'no_effect', message: 'Redeemable cannot be applied due to no effect' } },
    })
    const redemption = await engine.raw.redemptions.redeemStackable(body)
    expect(redemption.parent_redemption).toMatchObject({ result: 'FAILURE', failure_code: 'no_effect' })
    expect(redemption.skipped_redeemables.map((r) => r.id)).toEqual(['ZERO'])
    expect((await engine.vouchers.get('ZERO')).redemption.redeemed_quantity).toBe(0)
  })

  it('REDEEM_ANYWAY (force): redeemed, and cannot be used again', async () => {
    const { engine, body } = await setup('REDEEM_ANYWAY')
    const validation = await engine.raw.validations.validateStackable(body)
    expect(validation.redeemables[0]?.status).toBe('APPLICABLE')
    expect(validation.order).toMatchObject({ amount: 5000, total_discount_amount: 0, total_amount: 5000 })
    const redemption = await engine.raw.redemptions.redeemStackable(body)
    expect(redemption.parent_redemption.result).toBe('SUCCESS')
    expect((await engine.vouchers.get('ZERO')).redemption.redeemed_quantity).toBe(1)
    const again = await engine.raw.redemptions.redeemStackable(body)
    expect(again.parent_redemption).toMatchObject({ result: 'FAILURE', failure_code: 'quantity_exceeded' })
  })
})

/** A code with redemption limit 4 takes 4 concurrent locks; the 5th is quantity_exceeded. */
describe('session count vs redemption limit', () => {
  const lockBody = (code: string) => ({ ...voucherBody([code]), session: { type: 'LOCK' } })

  it('limit 4: four locks, the fifth quantity_exceeded', async () => {
    const t = testEngine()
    await coupon(t, 'FOUR', { redemption: { quantity: 4 } })
    for (let i = 0; i < 4; i++) {
      const r = await t.engine.raw.validations.validateStackable(lockBody('FOUR'))
      expect(r.valid).toBe(true)
    }
    expect((await t.store.sessions.list()).data).toHaveLength(4)
    const fifth = await t.engine.raw.validations.validateStackable(lockBody('FOUR'))
    expect(fifth.valid).toBe(false)
    expect(fifth.redeemables[0]?.result).toMatchObject({
      error: { code: 400, key: 'quantity_exceeded', message: 'quantity exceeded', details: 'FOUR' },
    })
    expect(fifth.redeemables[0]?.explanation).toMatchObject({ expected: 4, actual: 4 })
    expect((await t.store.sessions.list()).data).toHaveLength(4)
  })

  it('unlimited: any number of locks', async () => {
    const t = testEngine()
    await coupon(t, 'MANY')
    for (let i = 0; i < 12; i++) {
      expect((await t.engine.raw.validations.validateStackable(lockBody('MANY'))).valid).toBe(true)
    }
    expect((await t.store.sessions.list()).data).toHaveLength(12)
  })
})

/** Gift card 10000 pays an order of 5000; spending more than the balance fails. */
describe('gift card redeem and overspend', () => {
  it('redeems 5000 of 10000, then rejects an overspend with the exact payload', async () => {
    const { engine } = testEngine()
    await engine.vouchers.create({ code: 'h73YQbhR', type: 'GIFT_VOUCHER', gift: { amount: 10000 } })
    const redemption = await engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'h73YQbhR' }],
      order: { amount: 5000 },
    })
    expect(redemption.redemptions[0]).toMatchObject({ amount: 5000, gift: { amount: 5000 } })
    expect(redemption.order).toMatchObject({ amount: 5000, total_amount: 0 })
    const card = await engine.vouchers.get('h73YQbhR')
    expect(card.gift).toMatchObject({ amount: 10000, balance: 5000 })
    expect(card.redemption).toMatchObject({ redeemed_amount: 5000, redeemed_quantity: 1 })

    const overspend = {
      redeemables: [{ object: 'voucher', id: 'h73YQbhR', gift: { credits: 6000 } }],
      order: { amount: 8000 },
    }
    const validation = await engine.raw.validations.validateStackable(overspend)
    expect(validation.redeemables[0]?.result).toMatchObject({
      error: { code: 400, key: 'gift_amount_exceeded', message: 'gift amount exceeded', details: 'h73YQbhR' },
    })
    expect(validation.redeemables[0]?.explanation).toMatchObject({ expected: 5000, actual: 6000 })
    const failed = await engine.raw.redemptions.redeemStackable(overspend)
    expect(failed.parent_redemption).toMatchObject({
      result: 'FAILURE',
      failure_code: 'gift_amount_exceeded',
      failure_message: 'gift amount exceeded',
    })
    expect((await engine.vouchers.get('h73YQbhR')).gift).toMatchObject({ balance: 5000 })
  })
})

/** Rolling back a gift card redemption restores the balance and the order. */
describe('gift card rollback', () => {
  it('returns -2000 credits, cancels the order and restores 2000/2000', async () => {
    const { engine } = testEngine()
    await engine.vouchers.create({ code: 'GIFT2000', type: 'GIFT_VOUCHER', gift: { amount: 2000 } })
    const redemption = await engine.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'GIFT2000', gift: { credits: 2000 } }],
      order: { amount: 6000 },
    })
    expect(redemption.order).toMatchObject({ amount: 6000, total_amount: 4000 })
    expect((await engine.vouchers.get('GIFT2000')).gift).toMatchObject({ amount: 2000, balance: 0 })
    const rollback = await engine.redemptions.rollbackStackable(redemption.parent_redemption.id)
    expect(rollback.rollbacks[0]).toMatchObject({ amount: -2000, gift: { amount: -2000 } })
    expect(rollback.rollbacks[0]?.id).toMatch(/^rr_/)
    expect(rollback.order).toMatchObject({ status: 'CANCELED', amount: 6000, total_amount: 6000 })
    const card = await engine.vouchers.get('GIFT2000')
    expect(card.gift).toMatchObject({ amount: 2000, balance: 2000 })
    expect(card.redemption).toMatchObject({ redeemed_amount: 0, redeemed_quantity: 0 })
  })
})
