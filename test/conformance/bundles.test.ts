import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

type T = ReturnType<typeof testEngine>

/** The bundle worked examples (docs/concepts.md#bundles), through `validations.validateStackable`. */

const part = (id: string, units = 1) => ({
  name: 'order.items.any',
  conditions: { $is: [{ id, type: 'product_or_sku', object: 'product' }] },
  rules: { '1': { name: 'order.items.quantity', conditions: { $more_than_or_equal: [units] } }, logic: '1' },
})

interface Setup {
  discount: Record<string, unknown>
  bundle: (string | { id: string; units: number })[]
  limit?: number
  applicable_to?: Record<string, unknown>
  as?: 'tier' | 'coupon'
}

/** A promotion tier (or a coupon) with `discount` and a validation rule whose bundle is `bundle`. */
async function bundled(t: T, setup: Setup): Promise<{ object: string; id: string }> {
  const rule = await t.engine.validationRules.create({
    name: 'Bundle',
    rules: {},
    bundle_rules: {
      limit: setup.limit ?? 10,
      ...Object.fromEntries(
        setup.bundle.map((p, i) => [String(i + 1), typeof p === 'string' ? part(p) : part(p.id, p.units)]),
      ),
    },
    ...(setup.applicable_to ? { applicable_to: setup.applicable_to } : {}),
  })
  if (setup.as === 'coupon') {
    const voucher = await t.engine.raw.vouchers.create({
      code: 'BUNDLE',
      type: 'DISCOUNT_VOUCHER',
      discount: setup.discount,
    })
    await t.engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'voucher',
      related_object_id: voucher.id,
    })
    return { object: 'voucher', id: 'BUNDLE' }
  }
  const campaign = await t.engine.raw.promotions.create({
    name: 'Bundles',
    promotion: { tiers: [{ name: 'Bundle tier', action: { discount: setup.discount } }] },
  })
  const tierId = campaign.promotion.tiers[0]?.id as string
  await t.engine.validationRules.createAssignment(rule.id, {
    related_object_type: 'promotion_tier',
    related_object_id: tierId,
  })
  return { object: 'promotion_tier', id: tierId }
}

type Item = { product_id: string; price: number; quantity: number }
const item = (product_id: string, price: number, quantity: number): Item => ({ product_id, price, quantity })

async function validate(t: T, redeemable: { object: string; id: string }, items: Item[]) {
  const result = await t.engine.raw.validations.validateStackable({ redeemables: [redeemable], order: { items } })
  return { result, r: result.redeemables[0] }
}

describe('F bundles: order-level discounts', () => {
  const balmAndCream = [item('prod_lip_balm', 500, 5), item('prod_hand_cream', 900, 5)] // 7000

  it('$1 per bundle (lip balm + hand cream) × 5 bundles → $5 off the cart; result carries the bundle', async () => {
    const t = testEngine()
    const ref = await bundled(t, {
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      bundle: ['prod_lip_balm', 'prod_hand_cream'],
    })
    const { result, r } = await validate(t, ref, balmAndCream)
    expect(r?.status).toBe('APPLICABLE')
    expect(r?.result).toEqual({
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER', is_dynamic: false },
      bundle: {
        quantity: 5,
        limit: 10,
        identified: [
          { id: 'prod_lip_balm', object: 'product', item_index: 0, item_quantity: 5 },
          { id: 'prod_hand_cream', object: 'product', item_index: 1, item_quantity: 5 },
        ],
        missing: [],
      },
    })
    expect(result.order).toMatchObject({ amount: 7000, discount_amount: 500, total_amount: 6500 })
  })

  it('the same as a coupon; the bundle limit caps the multiplier (limit 3 → $3)', async () => {
    const t = testEngine()
    const ref = await bundled(t, {
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      bundle: ['prod_lip_balm', 'prod_hand_cream'],
      limit: 3,
      as: 'coupon',
    })
    const { result, r } = await validate(t, ref, balmAndCream)
    expect(r?.result).toMatchObject({ bundle: { quantity: 3, limit: 3 } })
    expect(result.order.total_discount_amount).toBe(300)
  })

  it('5% per bundle (spray + cloth) × 5 bundles → 25% off the cart', async () => {
    const t = testEngine()
    const ref = await bundled(t, {
      discount: { type: 'PERCENT', percent_off: 5, effect: 'APPLY_TO_ORDER' },
      bundle: ['prod_spray', 'prod_cloth'],
    })
    const { result } = await validate(t, ref, [item('prod_spray', 1000, 5), item('prod_cloth', 200, 5)])
    expect(result.order).toMatchObject({ amount: 6000, discount_amount: 1500, total_amount: 4500 })
  })

  it('new price $50 per bundle, 5 bundles → $50 total: never multiplied', async () => {
    const t = testEngine()
    const ref = await bundled(t, {
      discount: { type: 'FIXED', fixed_amount: 5000, effect: 'APPLY_TO_ORDER' },
      bundle: ['prod_lip_balm', 'prod_hand_cream'],
    })
    const { result, r } = await validate(t, ref, balmAndCream)
    expect(r?.result).toMatchObject({ bundle: { quantity: 5 } })
    expect(result.order).toMatchObject({ amount: 7000, discount_amount: 2000, total_amount: 5000 })
  })

  it('an incomplete bundle: INAPPLICABLE with the bundle naming what is missing', async () => {
    const t = testEngine()
    const ref = await bundled(t, {
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      bundle: ['prod_lip_balm', { id: 'prod_hand_cream', units: 2 }],
    })
    const { result, r } = await validate(t, ref, [item('prod_lip_balm', 500, 3), item('prod_hand_cream', 900, 1)])
    expect(result.valid).toBe(false)
    expect(r?.status).toBe('INAPPLICABLE')
    expect(r?.result).toEqual({
      error: {
        code: 400,
        key: 'order_rules_violated',
        message: 'order does not match validation rules',
        details: 'The order does not hold a complete bundle',
        request_id: null,
      },
      details: { key: 'order_rules_violated', message: 'order does not match validation rules' },
      bundle: {
        quantity: 0,
        limit: 10,
        identified: [
          { id: 'prod_lip_balm', object: 'product', item_index: 0, item_quantity: 1 },
          { id: 'prod_hand_cream', object: 'product', item_index: 1, item_quantity: 1 },
        ],
        missing: [{ id: 'prod_hand_cream', object: 'product', item_quantity: 1 }],
      },
    })
    expect(r?.explanation).toMatchObject({ check: 'bundle' })
    expect(result.order.total_discount_amount).toBe(0)
  })
})

describe('F bundles: item-level discounts', () => {
  const laptopAndBag = ['prod_laptop', 'prod_bag']
  const mouse = (extra: Record<string, unknown> = {}) => ({
    included: [{ object: 'product', id: 'prod_mouse', effect: 'APPLY_TO_EVERY', ...extra }],
  })

  it('$20 off a mouse per unit, limit 1 per line, 2 bundles, 3 mice → 2 mice = $40; no limit → $60', async () => {
    for (const [extra, expected] of [
      [{ quantity_limit: 1 }, 4000],
      [{}, 6000],
    ] as const) {
      const t = testEngine()
      const ref = await bundled(t, {
        discount: { type: 'AMOUNT', amount_off: 2000, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' },
        bundle: laptopAndBag,
        applicable_to: mouse(extra),
      })
      const { result } = await validate(t, ref, [
        item('prod_laptop', 300000, 2),
        item('prod_bag', 5000, 2),
        item('prod_mouse', 4000, 3),
      ])
      expect(result.order.items_discount_amount).toBe(expected)
      expect(result.order.items?.[2]?.discount_quantity).toBe(expected / 2000)
    }
  })

  it('item subtotal: $20 per bundle × 2 = $40 per line: mice on one line → $40, on three lines → $120', async () => {
    const t = testEngine()
    const ref = await bundled(t, {
      discount: { type: 'AMOUNT', amount_off: 2000, effect: 'APPLY_TO_ITEMS' },
      bundle: laptopAndBag,
      applicable_to: mouse(),
    })
    const base = [item('prod_laptop', 300000, 2), item('prod_bag', 5000, 2)]
    expect((await validate(t, ref, [...base, item('prod_mouse', 4000, 3)])).result.order.items_discount_amount).toBe(
      4000,
    )
    const three = await validate(t, ref, [
      ...base,
      item('prod_mouse', 4000, 1),
      item('prod_mouse', 4000, 1),
      item('prod_mouse', 4000, 1),
    ])
    expect(three.result.order.items?.map((i) => i.discount_amount)).toEqual([0, 0, 4000, 4000, 4000])
  })

  it('split by amount: $10 × 2 bundles = $20; coffee beans $30 get $12, filter pack $20 gets $8', async () => {
    const t = testEngine()
    const ref = await bundled(t, {
      discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' },
      bundle: ['prod_mug'],
      applicable_to: {
        included: [
          { object: 'product', id: 'prod_beans', effect: 'APPLY_TO_EVERY' },
          { object: 'product', id: 'prod_filter', effect: 'APPLY_TO_EVERY' },
        ],
      },
    })
    const { result } = await validate(t, ref, [
      item('prod_mug', 1500, 2),
      item('prod_beans', 3000, 1),
      item('prod_filter', 2000, 1),
    ])
    expect(result.order.items?.map((i) => i.discount_amount)).toEqual([0, 1200, 800])
  })

  it('split by quantity: $20; tennis balls 3 units get $12, wristbands 2 get $8', async () => {
    const t = testEngine()
    const ref = await bundled(t, {
      discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY' },
      bundle: ['prod_racket'],
      applicable_to: {
        included: [
          { object: 'product', id: 'prod_balls', effect: 'APPLY_TO_EVERY' },
          { object: 'product', id: 'prod_wristband', effect: 'APPLY_TO_EVERY' },
        ],
      },
    })
    const { result } = await validate(t, ref, [
      item('prod_racket', 10000, 2),
      item('prod_balls', 500, 3),
      item('prod_wristband', 900, 2),
    ])
    expect(result.order.items?.map((i) => i.discount_amount)).toEqual([0, 1200, 800])
  })

  it('percent per item: 5% per bundle of 2 crisps, 4 packs → 10% off the targeted drinks', async () => {
    const t = testEngine()
    const ref = await bundled(t, {
      discount: { type: 'PERCENT', percent_off: 5, effect: 'APPLY_TO_ITEMS' },
      bundle: [{ id: 'prod_crisps', units: 2 }],
      applicable_to: { included: [{ object: 'product', id: 'prod_drink', effect: 'APPLY_TO_EVERY' }] },
    })
    const { result, r } = await validate(t, ref, [item('prod_crisps', 300, 4), item('prod_drink', 250, 4)])
    expect(r?.result).toMatchObject({ bundle: { quantity: 2 } })
    expect(result.order.items?.map((i) => i.discount_amount)).toEqual([0, 100])
  })

  it('new price per unit: ticket $10, drinks $2, limits 1 and 2 per bundle, 2 bundles → 2 tickets, 4 drinks', async () => {
    const t = testEngine()
    const ref = await bundled(t, {
      discount: { type: 'FIXED', fixed_amount: 0, effect: 'APPLY_TO_ITEMS' },
      bundle: ['prod_pass'],
      applicable_to: {
        included: [
          { object: 'product', id: 'prod_ticket', effect: 'APPLY_TO_EVERY', price: 1000, quantity_limit: 1 },
          { object: 'product', id: 'prod_drink', effect: 'APPLY_TO_EVERY', price: 200, quantity_limit: 2 },
        ],
      },
    })
    const { result } = await validate(t, ref, [
      item('prod_pass', 5000, 2),
      item('prod_ticket', 2500, 3),
      item('prod_drink', 500, 6),
    ])
    // Tickets: 2 units × (2500 − 1000); drinks: 4 units × (500 − 200). The value is not multiplied.
    expect(result.order.items?.map((i) => [i.discount_amount, i.discount_quantity])).toEqual([
      [0, 0],
      [3000, 2],
      [1200, 4],
    ])
  })

  it('free products (ADD_MISSING_ITEMS): 1 laptop → 1 bag, 2 laptops → 2 bags', async () => {
    for (const laptops of [1, 2]) {
      const t = testEngine()
      const bag = await t.engine.products.create({ name: 'Bag', price: 5000 })
      const ref = await bundled(t, {
        discount: { type: 'UNIT', unit_off: 1, unit_type: bag.id, effect: 'ADD_MISSING_ITEMS' },
        bundle: ['prod_laptop'],
      })
      const { result } = await validate(t, ref, [item('prod_laptop', 300000, laptops)])
      expect(result.order.items?.[1]).toMatchObject({
        product_id: bag.id,
        quantity: laptops,
        discount_amount: 5000 * laptops,
      })
    }
  })
})
