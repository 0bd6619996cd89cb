import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

type T = ReturnType<typeof testEngine>

/**
 * Worked example (unit budgets and caps), through `validations.validateStackable` and
 * `redemptions.redeemStackable`. The discount is $1 off each unit (AMOUNT APPLY_TO_ITEMS_BY_QUANTITY)
 * so the units discounted are observable as `discount_quantity` and as cents off.
 */

const PER_UNIT = { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' }

async function products(t: T, ...names: string[]): Promise<string[]> {
  const ids: string[] = []
  for (const name of names) ids.push((await t.engine.products.create({ source_id: name, name, price: 1000 })).id)
  return ids
}

/** A promotion tier giving `discount` with one validation rule whose targeting is `entries`. */
async function tier(
  t: T,
  entries: Record<string, unknown>[],
  discount: Record<string, unknown> = PER_UNIT,
): Promise<{ object: 'promotion_tier'; id: string }> {
  const rule = await t.engine.raw.validationRules.create({
    name: 'Budget',
    rules: {},
    applicable_to: { included: entries },
  })
  const campaign = await t.engine.raw.promotions.create({
    name: 'Budgets',
    promotion: { tiers: [{ name: 'Per unit', action: { discount } }] },
  })
  const id = campaign.promotion.tiers[0]?.id as string
  await t.engine.validationRules.createAssignment(rule.id, {
    related_object_type: 'promotion_tier',
    related_object_id: id,
  })
  return { object: 'promotion_tier', id }
}

type Line = [productId: string, quantity: number]

function body(ref: { object: string; id: string }, customer: string, lines: Line[]) {
  return {
    redeemables: [ref],
    customer: { source_id: customer },
    order: { items: lines.map(([product_id, quantity]) => ({ product_id, quantity, price: 1000 })) },
  }
}

/** Units discounted per line, as the request's final order reports them. */
async function redeem(t: T, ref: { object: string; id: string }, customer: string, lines: Line[]) {
  const r = await t.engine.raw.redemptions.redeemStackable(body(ref, customer, lines))
  expect(r.parent_redemption.result).toBe('SUCCESS')
  return { units: r.order.items.map((i) => i.discount_quantity), redemption: r }
}

async function validate(t: T, ref: { object: string; id: string }, customer: string, lines: Line[]) {
  const r = await t.engine.raw.validations.validateStackable(body(ref, customer, lines))
  return { units: r.order?.items?.map((i) => i.discount_quantity) ?? [], result: r }
}

describe('unit budgets across redemptions', () => {
  it('max 10 units per campaign: Alex 5 → 5, Bobby 4 → 4, Clarence 3 → only 1', async () => {
    const t = testEngine()
    const [mug] = await products(t, 'mug')
    const ref = await tier(t, [{ object: 'product', id: mug, product_campaign_quantity_limit: 10 }])
    expect((await redeem(t, ref, 'alex', [[mug as string, 5]])).units).toEqual([5])
    expect((await redeem(t, ref, 'bobby', [[mug as string, 4]])).units).toEqual([4])
    const clarence = await validate(t, ref, 'clarence', [[mug as string, 3]])
    expect(clarence.units).toEqual([1])
    expect(clarence.result.order?.items_discount_amount).toBe(100)
    // Explained: the budget allowed 1 of the 3 units the targeting chose.
    expect(clarence.result.redeemables[0]?.applicable_to?.data[0]).toMatchObject({
      product_campaign_quantity_limit: 10,
      order_item_units: [{ index: 0, units: [1], units_limit_exceeded: false }],
      unit_budget: { remaining_units: 1, refused_units: 2 },
    })
    expect((await redeem(t, ref, 'clarence', [[mug as string, 3]])).units).toEqual([1])
    // The budget is spent: a fourth customer gets nothing off, and the tier says why.
    const dora = await validate(t, ref, 'dora', [[mug as string, 2]])
    expect(dora.units).toEqual([0])
    expect(dora.result.redeemables[0]?.applicable_to?.data[0]).toMatchObject({
      order_item_indices: [0],
      order_item_units: [],
      unit_budget: { remaining_units: 0, refused_units: 2 },
    })
  })

  it('a rollback gives its units back to the budget', async () => {
    const t = testEngine()
    const [mug] = await products(t, 'mug')
    const ref = await tier(t, [{ object: 'product', id: mug, product_campaign_quantity_limit: 10 }])
    const alex = await redeem(t, ref, 'alex', [[mug as string, 8]])
    expect((await validate(t, ref, 'bobby', [[mug as string, 5]])).units).toEqual([2])
    await t.engine.redemptions.rollbackStackable(alex.redemption.parent_redemption.id)
    expect((await validate(t, ref, 'bobby', [[mug as string, 5]])).units).toEqual([5])
  })

  it('max 5 units per product in a collection: Alex all, Bobby 0/3/1, Clarence 0/1/0', async () => {
    const t = testEngine()
    const [tshirt, beanie, poster] = (await products(t, 'tshirt', 'beanie', 'poster')) as [string, string, string]
    const collection = await t.engine.products.createCollection({
      name: 'Merch',
      type: 'STATIC',
      products: [tshirt, beanie, poster].map((id) => ({ id, object: 'product' })),
    })
    const ref = await tier(t, [
      { object: 'products_collection', id: collection.id, product_in_collection_campaign_quantity_limit: 5 },
    ])
    const order = (t_: number, b: number, p: number): Line[] => [
      [tshirt, t_],
      [beanie, b],
      [poster, p],
    ]
    expect((await redeem(t, ref, 'alex', order(5, 1, 4))).units).toEqual([5, 1, 4])
    const bobby = await validate(t, ref, 'bobby', order(3, 3, 2))
    expect(bobby.units).toEqual([0, 3, 1])
    expect(bobby.result.redeemables[0]?.applicable_to?.data[0]?.unit_budget).toEqual({
      members: { [tshirt]: 0, [beanie]: 4, [poster]: 1 },
      refused_units: 4,
    })
    expect((await redeem(t, ref, 'bobby', order(3, 3, 2))).units).toEqual([0, 3, 1])
    expect((await redeem(t, ref, 'clarence', order(1, 3, 3))).units).toEqual([0, 1, 0])
  })

  it('max 5 units per customer: 3 in order 1, 3 in order 2 → 5 discounted, the 6th at full price', async () => {
    const t = testEngine()
    const [mug] = (await products(t, 'mug')) as [string]
    const ref = await tier(t, [{ object: 'product', id: mug, product_customer_campaign_quantity_limit: 5 }])
    expect((await redeem(t, ref, 'alex', [[mug, 3]])).units).toEqual([3])
    const second = await redeem(t, ref, 'alex', [[mug, 3]])
    expect(second.units).toEqual([2])
    expect(second.redemption.order).toMatchObject({ amount: 3000, items_discount_amount: 200, total_amount: 2800 })
    // Another customer has a budget of their own.
    expect((await validate(t, ref, 'bobby', [[mug, 3]])).units).toEqual([3])
  })

  it('tier budgets count the tier only; per customer in the tier', async () => {
    const t = testEngine()
    const [mug] = (await products(t, 'mug')) as [string]
    const ref = await tier(t, [
      {
        object: 'product',
        id: mug,
        product_promotion_tier_quantity_limit: 6,
        product_customer_promotion_tier_quantity_limit: 4,
      },
    ])
    expect((await redeem(t, ref, 'alex', [[mug, 3]])).units).toEqual([3])
    // Alex: tier room 3, own room 1 → 1. Bobby: tier room 3, own room 4 → 3.
    expect((await validate(t, ref, 'alex', [[mug, 3]])).units).toEqual([1])
    expect((await validate(t, ref, 'bobby', [[mug, 5]])).units).toEqual([3])
  })

  it('a budget formula is evaluated on the order, the static value its fallback', async () => {
    const t = testEngine()
    const [mug] = (await products(t, 'mug')) as [string]
    const ref = await tier(t, [
      {
        object: 'product',
        id: mug,
        product_campaign_quantity_limit: 9,
        product_campaign_quantity_limit_formula: 'ORDER_METADATA("budget")',
      },
    ])
    const withMeta = await t.engine.raw.validations.validateStackable({
      ...body(ref, 'alex', [[mug, 5]]),
      order: { items: [{ product_id: mug, quantity: 5, price: 1000 }], metadata: { budget: 2 } },
    })
    expect(withMeta.order?.items?.[0]?.discount_quantity).toBe(2)
    expect((await validate(t, ref, 'alex', [[mug, 12]])).units).toEqual([9])
  })
})

describe('per-request unit limits and caps (the tightest wins)', () => {
  it('max 3 units per order item: 5 ordered → 3 discounted', async () => {
    const t = testEngine()
    const [mug] = (await products(t, 'mug')) as [string]
    const ref = await tier(t, [{ object: 'product', id: mug, quantity_limit: 3 }])
    expect((await validate(t, ref, 'alex', [[mug, 5]])).units).toEqual([3])
  })

  it('max 5 units across matched lines: 2 + 4 → 5 discounted', async () => {
    const t = testEngine()
    const [mug, cup] = (await products(t, 'mug', 'cup')) as [string, string]
    const collection = await t.engine.products.createCollection({
      name: 'Kitchen',
      type: 'STATIC',
      products: [mug, cup].map((id) => ({ id, object: 'product' })),
    })
    const ref = await tier(t, [{ object: 'products_collection', id: collection.id, aggregated_quantity_limit: 5 }])
    expect(
      (
        await validate(t, ref, 'alex', [
          [mug, 2],
          [cup, 4],
        ])
      ).units,
    ).toEqual([2, 3])
  })

  it('a per-request limit tighter than the budget wins, and the other way round', async () => {
    const t = testEngine()
    const [mug] = (await products(t, 'mug')) as [string]
    const ref = await tier(t, [{ object: 'product', id: mug, quantity_limit: 3, product_campaign_quantity_limit: 4 }])
    expect((await redeem(t, ref, 'alex', [[mug, 5]])).units).toEqual([3])
    expect((await validate(t, ref, 'bobby', [[mug, 5]])).units).toEqual([1])
  })

  it('max discount per line $25 and per order $100 cap the amounts', async () => {
    const t = testEngine()
    const [mug, cup, jug, pot, pan] = (await products(t, 'mug', 'cup', 'jug', 'pot', 'pan')) as string[]
    const ids = [mug, cup, jug, pot, pan] as string[]
    const collection = await t.engine.products.createCollection({
      name: 'Kitchen',
      type: 'STATIC',
      products: ids.map((id) => ({ id, object: 'product' })),
    })
    // $10 off each unit; lines of 3 units would get $30, the line cap makes it $25; 5 lines × $25 = $125 → $100.
    const ref = await tier(
      t,
      [{ object: 'products_collection', id: collection.id, amount_limit: 2500, aggregated_amount_limit: 10000 }],
      { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' },
    )
    const r = await t.engine.raw.validations.validateStackable(
      body(
        ref,
        'alex',
        ids.map((id) => [id, 3]),
      ),
    )
    expect(r.order?.items?.map((i) => i.discount_amount)).toEqual([2500, 2500, 2500, 2500, 0])
    expect(r.order).toMatchObject({ amount: 15000, items_discount_amount: 10000, total_amount: 5000 })
  })
})
