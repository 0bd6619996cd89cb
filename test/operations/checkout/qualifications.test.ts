import { describe, expect, it } from 'vitest'
import { rejection, snapshot } from '../../support/engine'
import { qualificationShop, welcomeUsedOnce } from './qualifications-shop'

const ana = { source_id: 'ana' }

describe('qualifications.checkEligibility on a shop', () => {
  it('lists what Ana may use on her cart, each with its discount on it, best deal first', async () => {
    const s = await qualificationShop()
    const result = await s.engine.raw.qualifications.checkEligibility({
      customer: ana,
      order: s.cart,
      options: { sorting_rule: 'BEST_DEAL' },
    })
    // PUBLIC10 is nobody's, OLD15 expired, the card needs a reward, the 5% tier needs $300.
    expect(result.redeemables.data.map((r) => [r.id, r.object, r.order?.total_applied_discount_amount])).toEqual([
      ['WELCOME20', 'voucher', 5700],
      [s.ids.shoesTier, 'promotion_tier', 1000],
      ['SHOES5', 'voucher', 500],
      ['GIFT-50', 'voucher', 5000],
    ])
    expect(result.redeemables).toMatchObject({
      object: 'list',
      data_ref: 'data',
      total: 4,
      has_more: false,
      more_starting_after: null,
    })
    const shoes = result.redeemables.data[2]
    expect(shoes?.result).toEqual({
      discount: { type: 'AMOUNT', amount_off: 500, effect: 'APPLY_TO_ITEMS', is_dynamic: false },
    })
    expect(shoes?.applicable_to?.data.map((a) => a.id)).toEqual([s.ids.shoes])
    expect(shoes?.categories.map((c) => c.name)).toEqual(['Seasonal'])
    expect(result.redeemables.data[3]?.result).toEqual({ gift: { credits: 5000, balance: 5000 } })
    expect(result.order).toMatchObject({ amount: 28500, status: 'CREATED' })
    expect(result.stacking_rules.applicable_redeemables_limit).toBe(5)
    expect(result.tracking_id).toMatch(/^track_/)
  })

  it('pages with the cursor and sorts LEAST_DEAL and DEFAULT', async () => {
    const s = await qualificationShop()
    const ask = (options: Record<string, unknown>) =>
      s.engine.raw.qualifications.checkEligibility({ customer: ana, order: s.cart, options })
    const first = await ask({ sorting_rule: 'LEAST_DEAL', limit: 3 })
    expect(first.redeemables.data.map((r) => r.id)).toEqual(['GIFT-50', 'SHOES5', s.ids.shoesTier])
    expect(first.redeemables).toMatchObject({ total: 4, has_more: true, more_starting_after: s.ids.shoesTier })
    const second = await ask({ sorting_rule: 'LEAST_DEAL', limit: 3, starting_after: s.ids.shoesTier })
    expect(second.redeemables.data.map((r) => r.id)).toEqual(['WELCOME20'])
    expect(second.redeemables).toMatchObject({ has_more: false, more_starting_after: null })
    const byAge = await ask({})
    // DEFAULT: newest first (the shop made them a minute apart, the tier last).
    expect(byAge.redeemables.data.map((r) => r.id)).toEqual([s.ids.shoesTier, 'GIFT-50', 'SHOES5', 'WELCOME20'])
  })

  it('scenarios: the wallet, the products, what targets them, the stacks, the audience', async () => {
    const s = await qualificationShop()
    const ids = async (body: Record<string, unknown>) =>
      (
        await s.engine.raw.qualifications.checkEligibility({ customer: ana, order: s.cart, ...body })
      ).redeemables.data.map((r) => r.id)
    expect(await ids({ scenario: 'CUSTOMER_WALLET' })).toEqual(['GIFT-50', 'SHOES5', 'WELCOME20'])
    expect(await ids({ scenario: 'PRODUCTS_DISCOUNT' })).toEqual([s.ids.shoesTier, 'SHOES5'])
    expect(await ids({ scenario: 'PRODUCTS_DISCOUNT_BY_CUSTOMER' })).toEqual([s.ids.shoesTier, 'SHOES5'])
    expect(await ids({ scenario: 'PRODUCTS' })).toEqual([s.ids.shoesTier, 'SHOES5'])
    // The stack needs both tiers: a cart over $300 (3 pairs of shoes: 36000); 5% of 35000 after the $10.
    expect(await ids({ scenario: 'PROMOTION_STACKS' })).toEqual([])
    const big = await s.engine.qualifications.checkEligibility({
      customer: ana,
      order: { items: [{ source_id: 'shoes', related_object: 'product', quantity: 3 }] },
      scenario: 'PROMOTION_STACKS',
    })
    const [stack] = big.redeemables.data
    expect(stack).toMatchObject({ id: s.ids.stack, object: 'promotion_stack', name: 'Autumn stack' })
    expect(stack?.redeemables?.map((r) => [r.id, r.order?.total_applied_discount_amount])).toEqual([
      [s.ids.shoesTier, 1000],
      [s.ids.bigBasket, 1750],
    ])
    // A cart without shoes: the offers on shoes cannot discount it, so they are no candidates.
    const socks = { items: [{ source_id: 'socks', related_object: 'product', quantity: 2 }] }
    expect(await ids({ order: socks })).toEqual(['GIFT-50', 'WELCOME20'])
    // The cart is ignored: the gift card needs an amount; the item discounts apply with no effect, as
    // validation applies them without a cart (the default no-effect rule, REDEEM_ANYWAY); the big
    // basket tier's rule on the cart amount is not evaluated (docs/qualifications.md#scenarios).
    expect(await ids({ scenario: 'AUDIENCE_ONLY' })).toEqual([s.ids.bigBasket, s.ids.shoesTier, 'SHOES5', 'WELCOME20'])
  })

  it('filters by campaign type, category, resource type, voucher type and code, AND or OR', async () => {
    const s = await qualificationShop()
    const ids = async (filters: Record<string, unknown>) =>
      (
        await s.engine.raw.qualifications.checkEligibility({ customer: ana, order: s.cart, options: { filters } })
      ).redeemables.data.map((r) => r.id)
    expect(await ids({ resource_type: { conditions: { $is: 'promotion_tier' } } })).toEqual([s.ids.shoesTier])
    expect(await ids({ category_id: { conditions: { $in: [s.ids.seasonal] } } })).toEqual(['SHOES5', 'WELCOME20'])
    expect(await ids({ category_id: { conditions: { $not_in: [s.ids.seasonal] } } })).toEqual([
      s.ids.shoesTier,
      'GIFT-50',
    ])
    expect(await ids({ voucher_type: { conditions: { $is_not: 'DISCOUNT_VOUCHER' } } })).toEqual([
      s.ids.shoesTier,
      'GIFT-50',
    ])
    expect(
      await ids({
        junction: 'OR',
        code: { conditions: { $is: 'SHOES5' } },
        campaign_type: { conditions: { $is: 'PROMOTION' } },
      }),
    ).toEqual([s.ids.shoesTier, 'SHOES5'])
    expect(await ids({ campaign_id: { conditions: { $is: s.ids.autumn } } })).toEqual([s.ids.shoesTier])
  })

  it('expands the redeemable, its categories and its validation rules', async () => {
    const s = await qualificationShop()
    const result = await s.engine.raw.qualifications.checkEligibility({
      customer: ana,
      order: s.cart,
      options: {
        expand: ['redeemable', 'category', 'validation_rules'],
        filters: { code: { conditions: { $is: 'SHOES5' } } },
      },
    })
    const [entry] = result.redeemables.data
    expect(entry).toMatchObject({ id: 'SHOES5', metadata: {}, campaign_id: null, name: null })
    expect(entry?.categories.map((c) => c.name)).toEqual(['Seasonal'])
    expect(entry?.validation_rules_assignments).toMatchObject({ object: 'list', data_ref: 'data' })
  })

  it('checks the redemption limits unless check_limits is false (the hosted behaviour)', async () => {
    const s = await qualificationShop()
    await welcomeUsedOnce(s)
    const ids = async (options: Record<string, unknown>) =>
      (
        await s.engine.raw.qualifications.checkEligibility({
          customer: ana,
          order: s.cart,
          scenario: 'CUSTOMER_WALLET',
          options,
        })
      ).redeemables.data.map((r) => r.id)
    expect(await ids({})).toEqual(['GIFT-50', 'SHOES5'])
    expect(await ids({ check_limits: false })).toEqual(['GIFT-50', 'SHOES5', 'WELCOME20'])
    const refused = await rejection(
      s.engine.raw.qualifications.checkEligibility(
        { customer: ana, order: s.cart, options: { check_limits: false } },
        { side: 'client' },
      ),
    )
    expect(refused.path).toBe('options.check_limits')
  })

  it('never writes: no activity, no session', async () => {
    const s = await qualificationShop()
    const before = await snapshot(s.store)
    await s.engine.raw.qualifications.checkEligibility({
      customer: ana,
      order: s.cart,
      options: { sorting_rule: 'BEST_DEAL' },
    })
    await s.engine.raw.qualifications.bestStack({ customer: ana, order: s.cart })
    await s.engine.raw.loyalties.qualifications(s.ids.club, { customer: ana, order: s.cart })
    expect(await snapshot(s.store)).toBe(before)
  })
})

describe('qualifications: bad input names the field', () => {
  it.each([
    [{ scenario: 'EVERYTHING' }, 'scenario'],
    [{ options: { limit: 51 } }, 'options.limit'],
    [{ options: { sorting_rule: 'CHEAPEST' } }, 'options.sorting_rule'],
    [{ options: { filters: { colour: { conditions: { $is: 'red' } } } } }, 'options.filters.colour'],
    [
      { options: { filters: { code: { conditions: { $more_than: 'A' } } } } },
      'options.filters.code.conditions.$more_than',
    ],
    [{ options: { filters: { code: 'SHOES5' } } }, 'options.filters.code'],
    [{ options: { filters: { junction: 'XOR' } } }, 'options.filters.junction'],
    [{ scenario: 'CUSTOMER_WALLET' }, 'customer'],
    [{ scenario: 'PRODUCTS', customer: ana }, 'order'],
    [
      { scenario: 'PRODUCTS_BY_CUSTOMER', order: { items: [{ product_id: 'p', quantity: 1, price: 100 }] } },
      'customer',
    ],
  ])('%j → %s', async (body, path) => {
    const s = await qualificationShop()
    const before = await snapshot(s.store)
    const error = await rejection(s.engine.raw.qualifications.checkEligibility(body))
    expect(error).toMatchObject({ code: 400, key: 'invalid_payload', path })
    expect(await snapshot(s.store)).toBe(before)
  })

  it('an unknown cursor, and a best stack given both candidates and a scenario', async () => {
    const s = await qualificationShop()
    const cursor = await rejection(
      s.engine.qualifications.checkEligibility({ customer: ana, options: { starting_after: 'NOPE' } }),
    )
    expect(cursor.path).toBe('options.starting_after')
    const both = await rejection(
      s.engine.raw.qualifications.bestStack({
        order: s.cart,
        scenario: 'ALL',
        redeemables: [{ object: 'voucher', id: 'WELCOME20' }],
      }),
    )
    expect(both.path).toBe('scenario')
    const noOrder = await rejection(s.engine.raw.qualifications.bestStack({ customer: ana }))
    expect(noOrder.path).toBe('order')
    const program = await rejection(s.engine.raw.loyalties.qualifications(s.ids.club, { customer: ana }))
    expect(program.path).toBe('order')
    const unknown = await rejection(
      s.engine.raw.loyalties.qualifications('camp_nope', { customer: ana, order: s.cart }),
    )
    expect(unknown.code).toBe(404)
  })
})

describe('qualifications.bestStack', () => {
  it('chooses the largest total discount, as a ready validateStackable request, and says why the rest is out', async () => {
    const s = await qualificationShop()
    const best = await s.engine.raw.qualifications.bestStack({ customer: ana, order: s.cart })
    // 20% of 28500, then $10 off the shoes: 5700 + 1000. SHOES5 shares WELCOME20's category (1 per category).
    expect(best.total_discount).toBe(6700)
    expect(best.exact).toBe(true)
    expect(best.request?.redeemables).toEqual([
      { object: 'voucher', id: 'WELCOME20' },
      { object: 'promotion_tier', id: s.ids.shoesTier },
    ])
    expect(best.validation).toMatchObject({ valid: true, order: { total_discount_amount: 6700, total_amount: 21800 } })
    expect(Object.fromEntries(best.left_out.map((l) => [l.id, l.reason.key]))).toEqual({
      SHOES5: 'applicable_redeemables_per_category_limit_exceeded',
      [s.ids.card]: 'stored_value',
      'GIFT-50': 'stored_value',
      OLD15: 'voucher_expired',
      [s.ids.bigBasket]: 'order_rules_violated',
    })
    // The request validates to the same result.
    const again = await s.engine.raw.validations.validateStackable(best.request)
    expect(again.order.total_discount_amount).toBe(6700)
    expect(again.redeemables.map((r) => r.status)).toEqual(['APPLICABLE', 'APPLICABLE'])
  })

  it('takes a list of candidates; a limit that excludes one is its reason', async () => {
    const s = await qualificationShop({ stackingRules: { applicable_redeemables_limit: 1 } })
    const best = await s.engine.raw.qualifications.bestStack({
      customer: ana,
      order: s.cart,
      redeemables: [
        { object: 'promotion_tier', id: s.ids.shoesTier },
        { object: 'voucher', id: 'WELCOME20' },
        { object: 'voucher', id: 'PUBLIC10' },
      ],
    })
    expect(best.request?.redeemables).toEqual([{ object: 'voucher', id: 'WELCOME20' }])
    expect(best.total_discount).toBe(5700)
    expect(Object.fromEntries(best.left_out.map((l) => [l.id, l.reason.key]))).toEqual({
      // Given first, the tier would take the one slot and WELCOME20 would be skipped.
      [s.ids.shoesTier]: 'better_combination',
      PUBLIC10: 'applicable_redeemables_limit_exceeded',
    })
  })

  it('returns no request when nothing gives a discount', async () => {
    const s = await qualificationShop()
    const best = await s.engine.qualifications.bestStack({
      customer: { source_id: 'bob' },
      order: { items: [{ source_id: 'socks', related_object: 'product', quantity: 1 }] },
      redeemables: [{ object: 'promotion_tier', id: s.ids.bigBasket }],
    })
    expect(best).toMatchObject({ request: null, validation: null, total_discount: 0 })
    expect(best.left_out.map((l) => l.reason.key)).toEqual(['order_rules_violated'])
  })
})

describe('loyalties.qualifications: the points an order would earn', () => {
  it('gives the hosted estimate and the cascade a payment then really runs', async () => {
    const s = await qualificationShop()
    const estimate = await s.engine.raw.loyalties.qualifications(s.ids.club, { customer: ana, order: s.cart })
    // Order-paid rule alone: 1 point per $1 of 28500. Ana is Bronze (×2): 570, 50 + 570 = 620 reaches
    // Silver, whose upgrade rule adds 25 (a joined rule would not fire: Ana is in the tiers already).
    expect(estimate).toMatchObject({
      campaign: { id: s.ids.club, name: 'Runners club', object: 'campaign' },
      points_estimation: 285,
      cascade: {
        points: 595,
        pending_points: 0,
        balance_before: 50,
        balance_after: 645,
        tier_before: s.ids.bronze,
        tier_after: s.ids.silver,
        rules: [
          { earning_rule_id: s.ids.perDollar, event: 'order.paid', points: 570, pending: false },
          {
            earning_rule_id: s.ids.upgradedSilver,
            event: 'customer.loyalty.tier.upgraded',
            points: 25,
            pending: false,
          },
        ],
      },
    })
    await s.engine.orders.create({ customer: ana, status: 'PAID', amount: 28500 })
    const card = await s.engine.loyalties.getMember(s.ids.club, s.ids.card)
    expect(card.loyalty_card?.balance).toBe(645)
    expect((await s.engine.loyalties.getMemberTier(s.ids.club, s.ids.card))?.id).toBe(s.ids.silver)
  })

  it('a customer who is not a member gets the estimate and an empty cascade', async () => {
    const s = await qualificationShop()
    const estimate = await s.engine.raw.loyalties.qualifications(s.ids.club, {
      customer: { source_id: 'bob' },
      order: s.cart,
    })
    expect(estimate.points_estimation).toBe(285)
    expect(estimate.cascade).toMatchObject({ voucher_id: null, points: 0, rules: [], tier_before: null })
  })
})
