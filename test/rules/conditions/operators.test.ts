import { describe, expect, it } from 'vitest'
import { applyOperator, canonicalOperator, type Operator, valuesEqual } from '../../../src/rules/conditions/operators'

// Friday 2024-03-08 12:00 UTC = 13:00 in Warsaw.
const env = { now: new Date('2024-03-08T12:00:00Z'), timeZone: 'Europe/Warsaw' }

type Case = [Operator, unknown, unknown[], boolean]

const cases: Case[] = [
  ['$is', 'gold', ['gold'], true],
  ['$is', 'gold', ['silver', 'gold'], true],
  ['$is', 'gold', ['silver'], false],
  ['$is', 10, ['10'], true],
  ['$is', true, ['true'], true],
  ['$is', undefined, ['x'], false],
  ['$is', ['seg_1', 'seg_2'], ['seg_1'], true],
  ['$is', ['seg_1'], ['seg_1', 'seg_2'], false],
  ['$is', [], [], false],
  ['$is_not', 'gold', ['silver'], true],
  ['$is_not', 'gold', ['gold'], false],
  ['$is_not', undefined, ['gold'], true],
  ['$is_not', ['seg_1'], ['seg_2'], true],
  ['$is_not', ['seg_1'], ['seg_1'], false],
  ['$in', 'PL', ['PL', 'DE'], true],
  ['$in', 'FR', ['PL', 'DE'], false],
  ['$in', ['seg_1', 'seg_9'], ['seg_9', 'seg_5'], true],
  ['$in', ['seg_1'], ['seg_9'], false],
  ['$not_in', 'FR', ['PL', 'DE'], true],
  ['$not_in', 'PL', ['PL', 'DE'], false],
  ['$less_than', 9999, [10000], true],
  ['$less_than', 10000, [10000], false],
  ['$less_than_or_equal', 10000, [10000], true],
  ['$less_than_or_equal', 10001, [10000], false],
  ['$more_than', 10001, [10000], true],
  ['$more_than', 10000, [10000], false],
  ['$more_than', '150', [100], true],
  ['$more_than', 'abc', [100], false],
  ['$more_than', null, [100], false],
  ['$more_than_or_equal', 10000, [10000], true],
  ['$more_than_or_equal', 9999, [10000], false],
  ['$starts_with', 'SUMMER-24', ['SUMMER'], true],
  ['$starts_with', 'WINTER-24', ['SUMMER'], false],
  ['$ends_with', 'a@example.com', ['@example.com'], true],
  ['$ends_with', 'a@other.com', ['@example.com'], false],
  ['$contains', 'new customer', ['new'], true],
  ['$contains', 'old customer', ['new'], false],
  ['$contains', ['a', 'b', 'c'], ['a', 'c'], true],
  ['$contains', ['a', 'b'], ['a', 'z'], false],
  ['$not_contain', 'old customer', ['new'], true],
  ['$not_contain', ['a', 'b'], ['a'], false],
  ['$count', ['a', 'b'], [2], true],
  ['$count', ['a'], [2], false],
  ['$count_more', ['a', 'b', 'c'], [2], true],
  ['$count_more', ['a', 'b'], [2], false],
  ['$count_less', ['a'], [2], true],
  ['$count_less', ['a', 'b'], [2], false],
  ['$count', 'ab', [2], false],
  ['$not_differ', ['b', 'a'], ['a', 'b'], true],
  ['$not_differ', ['a'], ['a', 'b'], false],
  ['$not_differ', ['a', 'b', 'c'], ['a', 'b'], false],
  ['$not_intersect', ['a', 'b'], ['c'], true],
  ['$not_intersect', ['a', 'b'], ['b'], false],
  // Local calendar days in Warsaw: 22:30Z is still March 8th there, 23:30Z is March 9th.
  ['$timeframe', '2024-03-08T22:30:00Z', ['2024-03-01T00:00:00Z', '2024-03-08T00:00:00Z'], true],
  ['$timeframe', '2024-03-08T23:30:00Z', ['2024-03-01T00:00:00Z', '2024-03-08T00:00:00Z'], false],
  ['$timeframe', '2024-03-08T10:00:00Z', ['2024-03-01T00:00:00Z', '2024-03-08T00:00:00Z'], true],
  ['$timeframe_absolute', '2024-03-08T10:00:00Z', ['2024-03-01T00:00:00Z', '2024-03-08T00:00:00Z'], false],
  ['$timeframe_absolute', '2024-03-05T10:00:00Z', ['2024-03-01T00:00:00Z', '2024-03-08T00:00:00Z'], true],
  ['$timeframe_daily_hours', '2024-03-08T08:30:00Z', ['09:00', '17:00'], true],
  ['$timeframe_daily_hours', '2024-03-08T07:30:00Z', ['09:00', '17:00'], false],
  ['$dow', '2024-03-08T12:00:00Z', [5], true],
  ['$dow', '2024-03-09T23:30:00Z', [6], false],
  ['$dow', '2024-03-09T23:30:00Z', [0], true],
  ['$from', '2024-03-08T12:00:00Z', ['2024-03-08T12:00:00Z'], true],
  ['$from', '2024-03-08T11:59:59Z', ['2024-03-08T12:00:00Z'], false],
  ['$after', '2024-03-08T12:00:00Z', ['2024-03-08T12:00:00Z'], false],
  ['$after', '2024-03-08T12:00:01Z', ['2024-03-08T12:00:00Z'], true],
  ['$before', '2024-03-08T11:00:00Z', ['2024-03-08T12:00:00Z'], true],
  ['$before', '2024-03-08T12:00:00Z', ['2024-03-08T12:00:00Z'], false],
  ['$more_than_ago', '2024-02-01T00:00:00Z', [30], true],
  ['$more_than_ago', '2024-03-01T00:00:00Z', [30], false],
  ['$less_than_ago', '2024-03-01T00:00:00Z', [30], true],
  ['$less_than_ago', '2024-02-01T00:00:00Z', [30], false],
  ['$less_than_ago', '2024-03-10T00:00:00Z', [30], false],
  ['$is_days_ago', '2024-03-05T09:00:00Z', [3], true],
  ['$is_days_ago', '2024-03-04T09:00:00Z', [3], false],
  ['$more_than_future', '2024-04-30T00:00:00Z', [30], true],
  ['$more_than_future', '2024-03-20T00:00:00Z', [30], false],
  ['$less_than_future', '2024-03-20T00:00:00Z', [30], true],
  ['$less_than_future', '2024-03-01T00:00:00Z', [30], false],
  ['$is_days_in_future', '2024-03-10T20:00:00Z', [2], true],
  ['$is_days_in_future', '2024-03-10T23:30:00Z', [2], false],
  ['$has_value', 'x', [], true],
  ['$has_value', '', [], false],
  ['$has_value', null, [], false],
  ['$is_unknown', undefined, [], true],
  ['$is_unknown', 0, [], false],
]

describe('applyOperator', () => {
  it.each(cases)('%s with actual %j and %j gives %s', (op, actual, expected, result) => {
    expect(applyOperator(op, actual, expected, env)).toBe(result)
  })

  it('covers every operator of docs/concepts.md#conditions plus the filter aliases', () => {
    const covered = new Set(cases.map((c) => c[0]))
    expect(covered.size).toBe(32)
  })
})

describe('canonicalOperator', () => {
  it('maps the aliases seen in examples', () => {
    expect(canonicalOperator('$greater_than_or_equal')).toBe('$more_than_or_equal')
    expect(canonicalOperator('$more_than_equal')).toBe('$more_than_or_equal')
    expect(canonicalOperator('$less_than_equal')).toBe('$less_than_or_equal')
    expect(canonicalOperator('$not_contain')).toBe('$not_contain')
    expect(canonicalOperator('$has_value')).toBe('$has_value')
    expect(canonicalOperator('$is_unknown')).toBe('$is_unknown')
    expect(canonicalOperator('$bogus')).toBeNull()
  })
})

describe('valuesEqual', () => {
  it('compares object references by id and dates by instant', () => {
    expect(valuesEqual({ id: 'prod_1', object: 'product' }, 'prod_1')).toBe(true)
    expect(valuesEqual('2024-03-08T13:00:00+01:00', '2024-03-08T12:00:00Z')).toBe(true)
    expect(valuesEqual('a', 'b')).toBe(false)
  })
})
