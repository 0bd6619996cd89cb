import { describe, expect, it } from 'vitest'
import { matchesConditions, matchesFilters } from '../../src/rules/match-filters'

describe('filter conditions', () => {
  it('$in, $not_in, $is, $is_not compare scalars by their text', () => {
    expect(matchesConditions('SUCCESS', { $in: ['SUCCESS', 'FAILURE'] })).toBe(true)
    expect(matchesConditions(100, { $in: ['100'] })).toBe(true)
    expect(matchesConditions('SUCCESS', { $not_in: ['SUCCESS'] })).toBe(false)
    expect(matchesConditions('a', { $is: ['a'] })).toBe(true)
    expect(matchesConditions('a', { $is_not: ['a'] })).toBe(false)
    expect(matchesConditions(null, { $in: ['null'] })).toBe(false)
  })

  it('$after, $before on dates; $more_than, $less_than on numbers; absent values never pass a bound', () => {
    expect(matchesConditions('2026-01-15T10:00:00.000Z', { $after: ['2026-01-15'] })).toBe(true)
    expect(matchesConditions('2026-01-15T10:00:00.000Z', { $before: ['2026-01-15T10:00:00Z'] })).toBe(false)
    expect(matchesConditions(500, { $more_than: [499], $less_than: ['501'] })).toBe(true)
    expect(matchesConditions(500, { $more_than: [500] })).toBe(false)
    expect(matchesConditions(500, { $more_than_equal: [500], $less_than_equal: [500] })).toBe(true)
    expect(matchesConditions(null, { $less_than: [1] })).toBe(false)
    expect(matchesConditions(undefined, { $after: ['2026-01-01'] })).toBe(false)
  })

  it('$has_value, $is_unknown, and the string operators', () => {
    expect(matchesConditions('', { $is_unknown: [] })).toBe(true)
    expect(matchesConditions('x', { $has_value: [] })).toBe(true)
    expect(matchesConditions('voucher', { $starts_with: ['vou'], $ends_with: ['her'], $contains: ['uch'] })).toBe(true)
  })

  it('combines fields with the junction', () => {
    const row = { a: 1, b: 'x' }
    expect(matchesFilters(row, { junction: 'AND', fields: { a: { $is: [1] }, b: { $is: ['y'] } } })).toBe(false)
    expect(matchesFilters(row, { junction: 'OR', fields: { a: { $is: [1] }, b: { $is: ['y'] } } })).toBe(true)
    expect(matchesFilters(row, { junction: 'AND', fields: {} })).toBe(true)
  })
})
