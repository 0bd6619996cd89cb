import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { RuleSet } from '../../../src/model/validation-rule'
import type { EvaluationContext } from '../../../src/rules/conditions/evaluation-context'
import { evaluateValidationRule } from '../../../src/rules/conditions/verdict'

const item = fc.record({
  product_id: fc.constantFrom('prod_a', 'prod_b', 'prod_c'),
  price: fc.integer({ min: 0, max: 100_000 }),
  quantity: fc.integer({ min: 1, max: 5 }),
  metadata: fc.record({ color: fc.constantFrom('red', 'blue') }),
})

const context: fc.Arbitrary<EvaluationContext> = fc.record({
  order: fc.record({
    amount: fc.integer({ min: 0, max: 1_000_000 }),
    initial_amount: fc.integer({ min: 0, max: 1_000_000 }),
    items: fc.array(item, { maxLength: 5 }),
    metadata: fc.record({ channel: fc.constantFrom('web', 'pos') }),
  }),
  customer: fc.option(
    fc.record({
      id: fc.constantFrom('cust_1', 'cust_2'),
      segments: fc.subarray(['seg_1', 'seg_2', 'seg_3']),
      metadata: fc.record({ age: fc.integer({ min: 0, max: 99 }) }),
    }),
    { nil: null },
  ),
  counters: fc.record({ redemptions: fc.record({ daily: fc.nat(10) }) }),
  now: fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }),
  timeZone: fc.constantFrom('UTC', 'Europe/Warsaw', 'America/New_York'),
})

const leaf = fc.oneof(
  fc.record({ name: fc.constant('order.amount'), conditions: fc.record({ $more_than: fc.tuple(fc.nat(1_000_000)) }) }),
  fc.record({ name: fc.constant('customer.segment'), conditions: fc.record({ $in: fc.subarray(['seg_1', 'seg_2']) }) }),
  fc.record({
    name: fc.constant('order.items.any'),
    conditions: fc.record({
      $is: fc.tuple(fc.record({ id: fc.constantFrom('prod_a', 'prod_b'), object: fc.constant('product') })),
    }),
    rules: fc.record({
      '1': fc.record({
        name: fc.constant('order.items.quantity'),
        conditions: fc.record({ $more_than: fc.tuple(fc.nat(4)) }),
      }),
    }),
  }),
  fc.record({
    name: fc.constant('redemption.count.daily'),
    conditions: fc.record({ $less_than_or_equal: fc.tuple(fc.nat(10)) }),
  }),
)

const ruleSet: fc.Arbitrary<RuleSet> = fc
  .tuple(leaf, leaf, leaf, fc.constantFrom('1 and 2 and 3', '(1 or 2) and 3', '1 OR 2 or 3', '1 and (2 or 3)'))
  .map(([a, b, c, logic]) => ({ '1': a, '2': b, '3': c, logic }) as RuleSet)

describe('evaluateValidationRule properties', () => {
  it('is deterministic and does not mutate its inputs', () => {
    fc.assert(
      fc.property(context, ruleSet, (ctx, rules) => {
        const before = structuredClone(ctx)
        const rulesBefore = structuredClone(rules)
        const rule = { id: 'val_p', rules, error: { message: 'nope' } }
        const first = evaluateValidationRule(rule, ctx)
        const second = evaluateValidationRule(rule, ctx)
        expect(second).toEqual(first)
        expect(ctx).toEqual(before)
        expect(rules).toEqual(rulesBefore)
        // A "no" always explains itself, a "yes" never carries failures.
        expect(first.passed).toBe(first.failures.length === 0)
        expect(first.error === undefined).toBe(first.passed)
      }),
      { numRuns: 200 },
    )
  })
})
