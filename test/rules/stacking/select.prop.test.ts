import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { StackingRules } from '../../../src/model/stacking'
import {
  kindOf,
  planStack,
  resolveStackingRules,
  type StackCandidate,
  type StackDecision,
  sortRedeemables,
} from '../../../src/rules/stacking'

const POOL = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5']

const rulesArb: fc.Arbitrary<StackingRules> = fc
  .record({
    applicable: fc.integer({ min: 1, max: 6 }),
    perCategory: fc.integer({ min: 1, max: 6 }),
    exclusive: fc.integer({ min: 1, max: 5 }),
    exclusivePerCategory: fc.integer({ min: 1, max: 5 }),
    kinds: fc.array(fc.constantFrom('EXCLUSIVE', 'JOINT', 'COMMON'), {
      minLength: POOL.length,
      maxLength: POOL.length,
    }),
    categoryLimits: fc.dictionary(fc.constantFrom(...POOL), fc.integer({ min: 1, max: 10 }), { maxKeys: 3 }),
    mode: fc.constantFrom('ALL' as const, 'PARTIAL' as const),
    sorting: fc.constantFrom('REQUESTED_ORDER' as const, 'CATEGORY_HIERARCHY' as const),
    grouped: fc.boolean(),
    noEffect: fc.constantFrom('SKIP' as const, 'REDEEM_ANYWAY' as const),
    skipCategories: fc.subarray(POOL.slice(0, 3)),
  })
  .map((g) => {
    const applicable = g.applicable
    const exclusive = g.exclusive
    const categoryLimits = Object.fromEntries(
      Object.entries(g.categoryLimits).map(([id, limit]) => [id, Math.min(limit, applicable)]),
    )
    return resolveStackingRules({
      applicable_redeemables_limit: applicable,
      applicable_redeemables_per_category_limit: Math.min(g.perCategory, applicable),
      applicable_exclusive_redeemables_limit: exclusive,
      applicable_exclusive_redeemables_per_category_limit: Math.min(g.exclusivePerCategory, exclusive),
      applicable_redeemables_category_limits: categoryLimits,
      exclusive_categories: POOL.filter((_, i) => g.kinds[i] === 'EXCLUSIVE'),
      joint_categories: POOL.filter((_, i) => g.kinds[i] === 'JOINT'),
      redeemables_application_mode: g.mode,
      redeemables_sorting_rule: g.sorting,
      grouped_redeemables_sorting_rule: g.grouped ? 'JOINT_ALWAYS_LAST' : null,
      redeemables_no_effect_rule: g.noEffect,
      no_effect_redeem_anyway_categories: POOL.slice(3, 4),
      no_effect_skip_categories: g.skipCategories,
    })
  })

const candidatesArb: fc.Arbitrary<StackCandidate[]> = fc
  .array(
    fc.record({
      status: fc.constantFrom('APPLICABLE' as const, 'APPLICABLE' as const, 'INAPPLICABLE' as const),
      categories: fc.uniqueArray(
        fc.record({ id: fc.constantFrom(...POOL), hierarchy: fc.integer({ min: 0, max: 3 }) }),
        { maxLength: 2, selector: (c) => c.id },
      ),
      no_effect: fc.boolean(),
    }),
    { minLength: 1, maxLength: 10 },
  )
  .map((list) => list.map((c, index) => ({ index, ...c })))

function applied(decisions: StackDecision[], candidates: StackCandidate[]): StackCandidate[] {
  return decisions.filter((d) => d.decision === 'APPLY').map((d) => candidates[d.index] as StackCandidate)
}

describe('stacking properties', () => {
  it('never applies more than the total, per-category and exclusive limits allow', () => {
    fc.assert(
      fc.property(rulesArb, candidatesArb, (rules, candidates) => {
        const chosen = applied(planStack(candidates, rules), candidates)
        expect(chosen.length).toBeLessThanOrEqual(rules.applicable_redeemables_limit)
        for (const id of POOL) {
          const inCategory = chosen.filter((c) => c.categories.some((cat) => cat.id === id))
          const limit =
            rules.applicable_redeemables_category_limits?.[id] ?? rules.applicable_redeemables_per_category_limit
          expect(inCategory.length).toBeLessThanOrEqual(limit)
          if (rules.exclusive_categories.includes(id)) {
            expect(inCategory.length).toBeLessThanOrEqual(rules.applicable_exclusive_redeemables_per_category_limit)
          }
        }
        const exclusive = chosen.filter((c) => kindOf(c.categories, rules) === 'EXCLUSIVE')
        expect(exclusive.length).toBeLessThanOrEqual(rules.applicable_exclusive_redeemables_limit)
        if (exclusive.length > 0) {
          expect(chosen.filter((c) => kindOf(c.categories, rules) === 'COMMON')).toEqual([])
        }
      }),
      { numRuns: 300 },
    )
  })

  it('applies no inapplicable candidate, and under ALL nothing after the first inapplicable one', () => {
    fc.assert(
      fc.property(rulesArb, candidatesArb, (rules, candidates) => {
        const decisions = planStack(candidates, rules)
        expect(decisions.map((d) => d.index).sort((a, b) => a - b)).toEqual(candidates.map((c) => c.index))
        for (const d of decisions) {
          if (candidates[d.index]?.status === 'INAPPLICABLE') expect(d.decision).not.toBe('APPLY')
        }
        if (rules.redeemables_application_mode === 'ALL') {
          const failed = decisions.findIndex((d) => d.decision === 'INAPPLICABLE')
          if (failed >= 0) {
            for (const d of decisions.slice(failed + 1)) {
              expect(d).toMatchObject({ decision: 'SKIP', key: 'preceding_validation_failed' })
            }
          }
        }
      }),
      { numRuns: 200 },
    )
  })

  it('every limit skip names a limit that the counted redeemables really filled', () => {
    fc.assert(
      fc.property(rulesArb, candidatesArb, (rules, candidates) => {
        const decisions = planStack(candidates, rules)
        const appliedIndices = new Set(decisions.filter((d) => d.decision === 'APPLY').map((d) => d.index))
        for (const d of decisions) {
          if (d.decision !== 'SKIP' || d.explanation.counted === undefined) continue
          expect(d.explanation.counted.length).toBe(d.explanation.value)
          for (const index of d.explanation.counted) expect(appliedIndices.has(index)).toBe(true)
        }
      }),
      { numRuns: 200 },
    )
  })

  it('is deterministic and independent of the order the candidates are handed in', () => {
    fc.assert(
      fc.property(
        rulesArb,
        candidatesArb.chain((candidates) =>
          fc.tuple(fc.constant(candidates), fc.shuffledSubarray(candidates, { minLength: candidates.length })),
        ),
        (rules, [candidates, shuffled]) => {
          const first = planStack(candidates, rules)
          expect(planStack(candidates, rules)).toEqual(first)
          expect(planStack(shuffled, rules)).toEqual(first)
          expect(sortRedeemables(shuffled, rules)).toEqual(sortRedeemables(candidates, rules))
        },
      ),
      { numRuns: 200 },
    )
  })
})
