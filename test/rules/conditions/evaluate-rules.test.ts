import { describe, expect, it } from 'vitest'
import type { RuleDefinition, RuleSet } from '../../../src/model/validation-rule'
import { evaluateRules } from '../../../src/rules/conditions/evaluate-rules'
import { baseContext } from './fixtures'

const one = (def: RuleDefinition): RuleSet => ({ '1': def })
const passes = (def: RuleDefinition, ctx = baseContext()): boolean => evaluateRules(one(def), ctx).passed

describe('value rules', () => {
  it.each<[RuleDefinition, boolean]>([
    [{ name: 'customer.segment', conditions: { $is: ['seg_new'] } }, true],
    [{ name: 'customer.segment', conditions: { $is: ['seg_old'] } }, false],
    [{ name: 'customer.segment', conditions: { $in: ['seg_old', 'seg_vip'] } }, true],
    [{ name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] } }, true],
    [{ name: 'customer.metadata', property: 'age', conditions: { $more_than: [40] } }, false],
    [{ name: 'customer.loyalty.tier', conditions: { $in: ['ltr_silver'] } }, true],
    [{ name: 'order.amount', conditions: { $more_than: [100000] } }, true],
    [{ name: 'order.amount', conditions: { $more_than: [107500] } }, false],
    [{ name: 'order.total_amount', conditions: { $more_than_or_equal: [100000] } }, false],
    [{ name: 'order.initial_amount', conditions: { $is: [110000] } }, true],
    [{ name: 'order.items.count', conditions: { $is: [3] } }, true],
    [{ name: 'order.metadata', property: 'channel', conditions: { $is: ['web'] } }, true],
    [{ name: 'order.metadata', property: 'store.city', conditions: { $is: ['Warsaw'] } }, true],
    [{ name: 'order.items.price_any', conditions: { $less_than: [1600] } }, true],
    [{ name: 'order.items.price_each', conditions: { $more_than: [1600] } }, false],
    [{ name: 'order.items.price_each', conditions: { $more_than: [1000] } }, true],
    [{ name: 'order.items.metadata_any', property: 'color', conditions: { $is: ['red'] } }, true],
    [{ name: 'order.items.metadata_each', property: 'color', conditions: { $is: ['red'] } }, false],
    [{ name: 'campaign.orders.amount', conditions: { $less_than_or_equal: [1010000] } }, true],
    [{ name: 'campaign.orders.amount', conditions: { $less_than_or_equal: [1009999] } }, false],
    [{ name: 'campaign.orders.amount_discounted', conditions: { $less_than_or_equal: [55000] } }, true],
    [{ name: 'campaign.orders.amount_discounted', conditions: { $less_than: [55000] } }, false],
    [{ name: 'campaign.redemptions.count', conditions: { $less_than_or_equal: [100] } }, true],
    [{ name: 'campaign.redemptions.count.daily', conditions: { $less_than_or_equal: [4] } }, false],
    [{ name: 'campaign.redemptions.count.weekly', conditions: { $is: [11] } }, true],
    [{ name: 'campaign.redemptions.count.monthly', conditions: { $is: [31] } }, true],
    [{ name: 'campaign.redemptions.customers_count', conditions: { $is: [50] } }, true],
    [{ name: 'campaign.redemptions.customers_count.daily', conditions: { $is: [3] } }, true],
    [{ name: 'redemption.count.daily', conditions: { $less_than_or_equal: [2] } }, true],
    [{ name: 'redemption.count.weekly', conditions: { $less_than_or_equal: [3] } }, false],
    [{ name: 'redemption.count.monthly', conditions: { $is: [10] } }, true],
    [{ name: 'redemption.count.per_customer', conditions: { $less_than_or_equal: [2] } }, false],
    [{ name: 'redemption.count.per_customer', conditions: { $less_than_or_equal: [3] } }, true],
    [{ name: 'redemption.count.per_customer.daily', conditions: { $less_than_or_equal: [1] } }, true],
    [{ name: 'redemption.gift.amount', conditions: { $less_than_or_equal: [2000] } }, false],
    [{ name: 'redemption.metadata', property: 'channel', conditions: { $is: ['pos'] } }, true],
    [{ name: 'redemption.reward.pay_with_points.points_used', conditions: { $less_than_or_equal: [300] } }, true],
    [{ name: 'publication.redeemable_by_linked_customer', conditions: { $is: [true] } }, true],
    [{ name: 'custom_event.metadata', property: 'source', conditions: { $is: ['web'] } }, false],
  ])('%j → %s', (def, expected) => {
    expect(passes(def)).toBe(expected)
  })

  it('lets a different customer fail the linked-holder rule', () => {
    const ctx = baseContext({ publication: { holder_id: 'cust_2' } })
    expect(passes({ name: 'publication.redeemable_by_linked_customer', conditions: { $is: [true] } }, ctx)).toBe(false)
  })

  it('explains a failed condition with expected and actual values', () => {
    const result = evaluateRules(
      {
        '1': { name: 'order.items.count', conditions: {} },
        '2': { name: 'order.amount', conditions: { $more_than: [110000] } },
      },
      baseContext(),
    )
    expect(result).toEqual({
      passed: false,
      failures: [
        {
          rule: '2',
          name: 'order.amount',
          operator: '$more_than',
          expected: [110000],
          actual: 107500,
          reason: 'condition_failed',
          detail: 'order.amount $more_than [110000]: actual 107500',
        },
      ],
    })
  })

  it('needs every condition of one rule', () => {
    const def = { name: 'order.amount', conditions: { $more_than: [100000], $less_than: [105000] } }
    expect(evaluateRules(one(def), baseContext()).failures[0]).toMatchObject({ operator: '$less_than', actual: 107500 })
  })

  it('reports a missing customer, a missing property, an unknown or unsupported rule and an unknown operator', () => {
    const ctx = baseContext({ customer: null })
    expect(
      evaluateRules(one({ name: 'customer.segment', conditions: { $is: ['seg_new'] } }), ctx).failures[0],
    ).toMatchObject({
      reason: 'missing_customer',
      detail: 'customer.segment needs a customer and the request has none',
    })
    expect(evaluateRules(one({ name: 'order.metadata', conditions: { $is: ['x'] } }), ctx).failures[0]).toMatchObject({
      reason: 'missing_property',
    })
    expect(evaluateRules(one({ name: 'order.colour', conditions: {} }), ctx).failures[0]).toMatchObject({
      reason: 'unknown_rule',
      detail: 'unknown rule name order.colour',
    })
    expect(evaluateRules(one({ name: 'redemption.api_key', conditions: {} }), ctx).failures[0]).toMatchObject({
      reason: 'unsupported_rule',
    })
    expect(evaluateRules(one({ name: 'order.amount', conditions: { $bigger: [1] } }), ctx).failures[0]).toMatchObject({
      reason: 'unknown_operator',
      operator: '$bigger',
    })
  })
})

describe('logic over rules', () => {
  const rules: RuleSet = {
    '1': { name: 'order.amount', conditions: { $more_than: [200000] } },
    '2': { name: 'customer.segment', conditions: { $is: ['seg_vip'] } },
    '3': { name: 'order.metadata', property: 'channel', conditions: { $is: ['pos'] } },
    logic: '1 OR (2 and 3)',
  }

  it('reports only the rules that decided the "no"', () => {
    const result = evaluateRules(rules, baseContext())
    expect(result.passed).toBe(false)
    expect(result.failures.map((f) => f.rule)).toEqual(['1', '3'])
  })

  it('passes when one alternative holds even though another fails', () => {
    const ctx = baseContext({ order: { ...baseContext().order, metadata: { channel: 'pos' } } })
    expect(evaluateRules(rules, ctx)).toEqual({ passed: true, failures: [] })
  })

  it('ANDs every rule when logic is absent', () => {
    const { logic: _, ...noLogic } = rules
    expect(evaluateRules(noLogic, baseContext()).failures.map((f) => f.rule)).toEqual(['1', '3'])
  })

  it('fails clearly on malformed logic or logic naming a missing rule', () => {
    expect(evaluateRules({ ...rules, logic: '1 or (2' }, baseContext())).toEqual({
      passed: false,
      failures: [
        {
          rule: 'logic',
          name: 'logic',
          reason: 'invalid_logic',
          detail: 'logic "1 or (2": expected ")" but found end of input',
        },
      ],
    })
    expect(evaluateRules({ ...rules, logic: '1 or 4' }, baseContext()).failures[0]).toMatchObject({
      reason: 'invalid_logic',
      detail: 'logic "1 or 4" names rule 4, not defined',
    })
  })

  it('passes an empty rule set', () => {
    expect(evaluateRules({}, baseContext())).toEqual({ passed: true, failures: [] })
    expect(evaluateRules(undefined, baseContext())).toEqual({ passed: true, failures: [] })
  })
})

describe('nested item rules', () => {
  const phone = { id: 'prod_phone', object: 'product' }
  const accessories = { id: 'pcol_accessories', object: 'products_collection' }

  it('order.items.any: a listed item with enough quantity', () => {
    const def = (n: number): RuleDefinition => ({
      name: 'order.items.any',
      conditions: { $is: [phone] },
      rules: { '1': { name: 'order.items.quantity', conditions: { $more_than_or_equal: [n] } } },
    })
    expect(passes(def(2))).toBe(true)
    const result = evaluateRules(one(def(3)), baseContext())
    expect(result.failures[0]).toEqual({
      rule: '1',
      name: 'order.items.any',
      operator: '$is',
      expected: [{ id: 'prod_phone', object: 'product' }],
      actual: { matched_item_indices: [0] },
      reason: 'condition_failed',
      detail: 'order.items.any: no matching item satisfies the item rules',
      nested: [
        {
          rule: '1.1',
          name: 'order.items.quantity',
          operator: '$more_than_or_equal',
          expected: [3],
          actual: 2,
          reason: 'condition_failed',
          detail: 'order.items.quantity $more_than_or_equal [3]: actual 2',
          item_index: 0,
        },
      ],
    })
  })

  it('order.items.any over a collection with aggregated quantity and amount', () => {
    const def = (rules: RuleSet): RuleDefinition => ({
      name: 'order.items.any',
      conditions: { $is: [accessories] },
      rules,
    })
    // Collection lines: 3 cases (6000) and 1 cable (1500).
    expect(passes(def({ '1': { name: 'order.items.aggregated_quantity', conditions: { $is: [4] } } }))).toBe(true)
    expect(passes(def({ '1': { name: 'order.items.aggregated_amount', conditions: { $is: [7500] } } }))).toBe(true)
    expect(passes(def({ '1': { name: 'order.items.aggregated_amount', conditions: { $more_than: [7500] } } }))).toBe(
      false,
    )
    expect(passes(def({ '1': { name: 'order.items.price', conditions: { $is: [1500] } } }))).toBe(true)
  })

  it('order.items.every: every listed item present and satisfying', () => {
    const both = { name: 'order.items.every', conditions: { $is: [phone, { id: 'prod_case', object: 'product' }] } }
    expect(passes(both)).toBe(true)
    const withTv = { name: 'order.items.every', conditions: { $is: [phone, { id: 'prod_tv', object: 'product' }] } }
    expect(evaluateRules(one(withTv), baseContext()).failures[0]).toMatchObject({
      detail: 'order.items.every: a listed item is not in the order',
    })
    const allPriced = {
      name: 'order.items.every',
      conditions: {},
      rules: { '1': { name: 'order.items.price', conditions: { $more_than: [1000] } } },
    }
    expect(passes(allPriced)).toBe(true)
  })

  it('order.items.none: excluded items absent', () => {
    expect(passes({ name: 'order.items.none', conditions: { $is: [{ id: 'prod_tv', object: 'product' }] } })).toBe(true)
    expect(passes({ name: 'order.items.none', conditions: { $is: [phone] } })).toBe(false)
    // With sub-rules: no phone line with quantity above 5.
    expect(
      passes({
        name: 'order.items.none',
        conditions: { $is: [phone] },
        rules: { '1': { name: 'order.items.quantity', conditions: { $more_than: [5] } } },
      }),
    ).toBe(true)
  })

  it('order.items.cheapest and most_expensive pick the extreme line of the whole order', () => {
    expect(passes({ name: 'order.items.cheapest', conditions: { $is: [accessories] } })).toBe(true)
    expect(passes({ name: 'order.items.most_expensive', conditions: { $is: [phone] } })).toBe(true)
    expect(
      evaluateRules(one({ name: 'order.items.most_expensive', conditions: { $is: [accessories] } }), baseContext())
        .failures[0],
    ).toMatchObject({
      detail: 'order.items.most_expensive: the most expensive item (prod_phone) is not a listed item',
    })
  })

  it('order.items.metadata as a sub-rule and $is_not excluding lines', () => {
    expect(
      passes({
        name: 'order.items.any',
        conditions: { $is_not: [phone] },
        rules: { '1': { name: 'order.items.metadata', property: 'color', conditions: { $is: ['red'] } } },
      }),
    ).toBe(true)
    expect(
      passes({
        name: 'order.items.any',
        conditions: { $is_not: [{ id: 'prod_case', object: 'product' }] },
        rules: { '1': { name: 'order.items.metadata', property: 'color', conditions: { $is: ['red'] } } },
      }),
    ).toBe(false)
  })

  it('nested logic with or', () => {
    expect(
      passes({
        name: 'order.items.any',
        conditions: { $is: [phone] },
        rules: {
          '1': { name: 'order.items.quantity', conditions: { $more_than: [5] } },
          '2': { name: 'order.items.price', conditions: { $is: [50000] } },
          logic: '1 or 2',
        },
      }),
    ).toBe(true)
  })
})

describe('legacy product and SKU rules', () => {
  it('product.id $is needs every listed product, $in any, $is_not none', () => {
    expect(passes({ name: 'product.id', conditions: { $is: [{ id: 'prod_phone' }] } })).toBe(true)
    expect(passes({ name: 'product.id', conditions: { $is: [{ id: 'prod_phone' }, { id: 'prod_tv' }] } })).toBe(false)
    expect(passes({ name: 'product.id', conditions: { $in: [{ id: 'prod_phone' }, { id: 'prod_tv' }] } })).toBe(true)
    expect(passes({ name: 'product.id', conditions: { $is_not: [{ id: 'prod_tv' }] } })).toBe(true)
    expect(
      evaluateRules(one({ name: 'product.id', conditions: { $is: [{ id: 'prod_tv' }] } }), baseContext()).failures[0],
    ).toEqual({
      rule: '1',
      name: 'product.id',
      operator: '$is',
      expected: [{ id: 'prod_tv' }],
      actual: ['prod_phone', 'prod_case', 'prod_cable'],
      reason: 'condition_failed',
      detail: 'product.id $is ["prod_tv"]: the order has ["prod_phone","prod_case","prod_cable"]',
    })
  })

  it('product.id with nested product.quantity', () => {
    const def = (n: number): RuleDefinition => ({
      name: 'product.id',
      conditions: { $is: [{ id: 'prod_case', object: 'product' }] },
      rules: { '1': { name: 'product.quantity', conditions: { $more_than_or_equal: [n] } } },
    })
    expect(passes(def(3))).toBe(true)
    expect(passes(def(4))).toBe(false)
  })

  it('sku.id, sku.price and top-level product rules over any line', () => {
    expect(passes({ name: 'sku.id', conditions: { $is: [{ id: 'sku_cable_1m' }] } })).toBe(true)
    expect(passes({ name: 'sku.price', conditions: { $is: [1500] } })).toBe(true)
    expect(passes({ name: 'product.price', conditions: { $more_than: [60000] } })).toBe(false)
    expect(passes({ name: 'product.metadata', property: 'color', conditions: { $is: ['red'] } })).toBe(true)
    expect(passes({ name: 'sku.quantity', conditions: { $more_than: [2] } })).toBe(true)
  })
})
