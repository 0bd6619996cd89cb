import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ValidationResult } from '../../../src/rules/redeemables'
import { testEngine } from '../../support/engine'
import { propertyRuns } from '../../support/store'

type T = ReturnType<typeof testEngine>

/** Every stored value, except the collections a validation may write (activities, sessions). */
async function valuesExceptWrites(store: T['store']): Promise<string> {
  const out: Record<string, unknown> = {}
  for (const [name, repo] of Object.entries(store)) {
    if (name === 'activities' || name === 'sessions') continue
    if (typeof repo === 'object' && repo !== null && 'list' in repo) {
      // By id: every collection is listed whole by id (not all by created_at, docs/storage.md#indexes).
      const page = await (repo as { list(q: object): Promise<{ data: { value: unknown }[] }> }).list({
        order: { field: 'id', direction: 'asc' },
      })
      // A lock counts itself in its code's `session_locks` (docs/storage.md#session-locks): nothing else of the code changes.
      out[name] = page.data.map((s) =>
        name === 'vouchers' ? { ...(s.value as object), session_locks: undefined } : s.value,
      )
    }
  }
  return JSON.stringify(out)
}

const CATEGORY_KINDS = ['EXCLUSIVE', 'JOINT', 'COMMON'] as const

const scenario = fc.record({
  rules: fc.record({
    applicable_redeemables_limit: fc.integer({ min: 1, max: 5 }),
    applicable_redeemables_per_category_limit: fc.integer({ min: 1, max: 3 }),
    applicable_exclusive_redeemables_limit: fc.integer({ min: 1, max: 3 }),
    applicable_exclusive_redeemables_per_category_limit: fc.integer({ min: 1, max: 3 }),
    redeemables_application_mode: fc.constantFrom('ALL', 'PARTIAL'),
    redeemables_sorting_rule: fc.constantFrom('REQUESTED_ORDER', 'CATEGORY_HIERARCHY'),
  }),
  /** The kind and hierarchy of three categories. */
  categories: fc.array(
    fc.record({ kind: fc.constantFrom(...CATEGORY_KINDS), hierarchy: fc.integer({ min: 0, max: 3 }) }),
    {
      minLength: 3,
      maxLength: 3,
    },
  ),
  /** Each coupon: its category (3 = none), whether it is active, its percent off. */
  coupons: fc.array(
    fc.record({
      category: fc.integer({ min: 0, max: 3 }),
      active: fc.boolean(),
      percent: fc.integer({ min: 1, max: 50 }),
    }),
    { minLength: 1, maxLength: 8 },
  ),
  amount: fc.integer({ min: 1, max: 1_000_000 }),
  withCustomer: fc.boolean(),
})
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never

async function build(s: Scenario) {
  const t = testEngine()
  const cats: { id: string }[] = []
  for (const [i, c] of s.categories.entries())
    cats.push(await t.engine.categories.create({ name: `C${i}`, hierarchy: c.hierarchy }))
  const idsOf = (kind: string) => cats.filter((_, i) => s.categories[i]?.kind === kind).map((c) => c.id)
  const exclusive = idsOf('EXCLUSIVE')
  // The management schema wants the exclusive per-category limit ≤ the exclusive limit.
  const rules = {
    ...s.rules,
    applicable_exclusive_redeemables_per_category_limit: Math.min(
      s.rules.applicable_exclusive_redeemables_per_category_limit,
      s.rules.applicable_exclusive_redeemables_limit,
    ),
    applicable_redeemables_per_category_limit: Math.min(
      s.rules.applicable_redeemables_per_category_limit,
      s.rules.applicable_redeemables_limit,
    ),
  }
  await t.engine.stackingRules.create('proj_default', {
    ...rules,
    exclusive_categories: exclusive,
    joint_categories: idsOf('JOINT'),
  })
  for (const [i, c] of s.coupons.entries()) {
    const category = cats[c.category]
    await t.engine.vouchers.create({
      code: `C${i}`,
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: c.percent, effect: 'APPLY_TO_ORDER' },
      active: c.active,
      redemption: { quantity: 3 },
      ...(category ? { category_id: category.id } : {}),
    })
  }
  if (s.withCustomer) await t.engine.customers.create({ source_id: 'cust' })
  const body = {
    redeemables: s.coupons.map((_, i) => ({ object: 'voucher', id: `C${i}` })),
    order: { amount: s.amount },
    ...(s.withCustomer ? { customer: { source_id: 'cust' } } : {}),
  }
  return { ...t, rules, exclusive, body }
}

function applicable(result: ValidationResult) {
  return [...result.redeemables, ...result.skipped_redeemables, ...result.inapplicable_redeemables].filter(
    (r) => r.status === 'APPLICABLE',
  )
}

// 1.2–2.1 s on a 2-core machine at load 18: a safety limit, no timing is asserted.
describe('validateStackable properties', { timeout: 60_000 }, () => {
  it('never applies more redeemables than the limits allow', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { engine, body, rules, exclusive } = await build(s)
        const result = await engine.raw.validations.validateStackable(body)
        const applied = applicable(result)
        expect(applied.length).toBeLessThanOrEqual(rules.applicable_redeemables_limit)
        const perCategory = new Map<string, number>()
        for (const r of applied) for (const c of r.categories) perCategory.set(c.id, (perCategory.get(c.id) ?? 0) + 1)
        for (const n of perCategory.values())
          expect(n).toBeLessThanOrEqual(rules.applicable_redeemables_per_category_limit)
        const isExclusive = (r: (typeof applied)[number]) => r.categories.some((c) => exclusive.includes(c.id))
        const exclusives = applied.filter(isExclusive)
        expect(exclusives.length).toBeLessThanOrEqual(rules.applicable_exclusive_redeemables_limit)
        for (const id of exclusive) {
          const n = exclusives.filter((r) => r.categories.some((c) => c.id === id)).length
          expect(n).toBeLessThanOrEqual(rules.applicable_exclusive_redeemables_per_category_limit)
        }
        // An applied exclusive one leaves no room for a common one (a category neither exclusive nor joint, or none).
        if (exclusives.length > 0) {
          const joint = new Set(result.stacking_rules.joint_categories ?? [])
          const common = applied.filter((r) => !isExclusive(r) && !r.categories.some((c) => joint.has(c.id)))
          expect(common).toEqual([])
        }
        // Every "no" says why.
        for (const r of [...result.redeemables, ...result.skipped_redeemables, ...result.inapplicable_redeemables]) {
          if (r.status !== 'APPLICABLE') expect(r.explanation).toBeDefined()
        }
      }),
      { numRuns: propertyRuns(120) },
    )
  })

  it('is deterministic and writes nothing but a requested lock (and its count on the code) and activity items', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { engine, body, store } = await build(s)
        const before = await valuesExceptWrites(store)
        const sessionsBefore = (await store.sessions.list()).data.length
        const { id: id1, ...first } = await engine.raw.validations.validateStackable(body)
        const { id: id2, ...second } = await engine.raw.validations.validateStackable(body)
        expect(second).toEqual(first)
        expect(id2).not.toBe(id1)
        expect((await store.sessions.list()).data.length).toBe(sessionsBefore)
        expect(await valuesExceptWrites(store)).toBe(before)

        const locked = await engine.raw.validations.validateStackable({ ...body, session: { type: 'LOCK' } })
        expect(await valuesExceptWrites(store)).toBe(before)
        const redeemed =
          locked.valid || locked.stacking_rules.redeemables_application_mode === 'PARTIAL'
            ? locked.redeemables.filter((r) => r.status === 'APPLICABLE').length
            : 0
        expect((await store.sessions.list()).data.length).toBe(sessionsBefore + redeemed)
      }),
      { numRuns: propertyRuns(100) },
    )
  })
})
