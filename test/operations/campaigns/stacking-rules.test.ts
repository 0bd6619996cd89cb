import { describe, expect, it } from 'vitest'
import { DEFAULT_STACKING_RULES } from '../../../src/model/stacking'
import { rejection, snapshot, testEngine } from '../../support/engine'
import { SECTION_9_2_DEFAULTS } from '../../support/stacking-defaults'

const PROJECT = 'proj_default'

describe('stackingRules.list / get', () => {
  it('gives the default stacking rules (docs/behaviour.md#default-stacking-rules) until rules are created', async () => {
    const { engine } = testEngine()
    const list = await engine.stackingRules.list(PROJECT)
    expect(list).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [
        {
          ...SECTION_9_2_DEFAULTS,
          object: 'stacking_rules',
        },
      ],
      total: 1,
    })
    expect(await engine.stackingRules.get(PROJECT)).toEqual(list.data[0])
  })

  it('applies the engine option over the defaults', async () => {
    const { engine } = testEngine({
      stackingRules: { applicable_redeemables_limit: 10, redeemables_application_mode: 'PARTIAL' },
    })
    expect(await engine.stackingRules.get(PROJECT)).toMatchObject({
      redeemables_limit: 30,
      applicable_redeemables_limit: 10,
      redeemables_application_mode: 'PARTIAL',
      applicable_redeemables_per_category_limit: 1,
    })
  })

  it('rejects a bad engine option when the engine is created', () => {
    expect(() => testEngine({ stackingRules: { redeemables_limit: 31 } })).toThrow(
      expect.objectContaining({ code: 400, path: 'stackingRules.redeemables_limit' }),
    )
    expect(() => testEngine({ stackingRules: { redeemables_limit: 3 } })).toThrow(
      expect.objectContaining({ code: 400, path: 'applicable_redeemables_limit' }),
    )
  })

  it('gives 404 for another project', async () => {
    const { engine } = testEngine()
    await expect(engine.stackingRules.list('proj_other')).rejects.toMatchObject({ code: 404, resource_type: 'project' })
    await expect(engine.stackingRules.get('proj_other')).rejects.toMatchObject({ code: 404 })
    await expect(engine.stackingRules.create('proj_other', {})).rejects.toMatchObject({ code: 404 })
  })
})

describe('stackingRules.create / update', () => {
  it('creates the project rules, which then replace the defaults and the option', async () => {
    const { engine } = testEngine({ stackingRules: { applicable_redeemables_limit: 10 } })
    const created = await engine.stackingRules.create(PROJECT, {
      redeemables_limit: 20,
      applicable_redeemables_limit: 8,
      applicable_redeemables_per_category_limit: 3,
      applicable_redeemables_category_limits: { cat_flash: 2 },
      applicable_exclusive_redeemables_limit: 5,
      applicable_exclusive_redeemables_per_category_limit: 2,
      exclusive_categories: ['cat_vip'],
      joint_categories: ['cat_flash'],
      redeemables_application_mode: 'PARTIAL',
      redeemables_sorting_rule: 'CATEGORY_HIERARCHY',
      redeemables_no_effect_rule: 'SKIP',
      no_effect_redeem_anyway_categories: ['cat_vip'],
      grouped_redeemables_sorting_rule: 'JOINT_ALWAYS_LAST',
    })
    expect(created).toEqual({
      ...DEFAULT_STACKING_RULES,
      id: 'str_proj_default',
      redeemables_limit: 20,
      applicable_redeemables_limit: 8,
      applicable_redeemables_per_category_limit: 3,
      applicable_redeemables_category_limits: { cat_flash: 2 },
      applicable_exclusive_redeemables_limit: 5,
      applicable_exclusive_redeemables_per_category_limit: 2,
      exclusive_categories: ['cat_vip'],
      joint_categories: ['cat_flash'],
      redeemables_application_mode: 'PARTIAL',
      redeemables_sorting_rule: 'CATEGORY_HIERARCHY',
      redeemables_no_effect_rule: 'SKIP',
      no_effect_redeem_anyway_categories: ['cat_vip'],
      grouped_redeemables_sorting_rule: 'JOINT_ALWAYS_LAST',
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'stacking_rules',
    })
    expect(await engine.stackingRules.list(PROJECT)).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [created],
      total: 1,
    })
    expect(await engine.stackingRules.get(PROJECT)).toEqual(created)
  })

  it('fills fields left out with the defaults, not the engine option', async () => {
    const { engine } = testEngine({ stackingRules: { applicable_redeemables_limit: 10 } })
    const created = await engine.stackingRules.create(PROJECT, { redeemables_limit: 25 })
    expect(created).toMatchObject({ redeemables_limit: 25, applicable_redeemables_limit: 5 })
  })

  it('created rules without category limits or a grouping rule carry {} and null; so does a validation', async () => {
    const { engine } = testEngine()
    const created = await engine.stackingRules.create(PROJECT, { redeemables_limit: 25 })
    expect(created.applicable_redeemables_category_limits).toEqual({})
    expect(created.grouped_redeemables_sorting_rule).toBeNull()
    await engine.vouchers.create({
      code: 'TEN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' },
    })
    const result = await engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { amount: 5000 },
    })
    expect(result.stacking_rules).toMatchObject({
      id: created.id,
      redeemables_limit: 25,
      applicable_redeemables_category_limits: {},
      grouped_redeemables_sorting_rule: null,
    })
  })

  it('a validation without created rules shows the defaults with {} and null', async () => {
    const { engine } = testEngine()
    await engine.vouchers.create({
      code: 'TEN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' },
    })
    const result = await engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { amount: 5000 },
    })
    expect(result.stacking_rules).toMatchObject({
      applicable_redeemables_category_limits: {},
      grouped_redeemables_sorting_rule: null,
    })
    expect(result.stacking_rules).not.toHaveProperty('id')
  })

  it('rejects a second create with 409 stacking_rules_exist and writes nothing', async () => {
    const { engine, store } = testEngine()
    await engine.stackingRules.create(PROJECT, {})
    const before = await snapshot(store)
    const error = await rejection(engine.stackingRules.create(PROJECT, { redeemables_limit: 10 }))
    expect(error).toMatchObject({ code: 409, key: 'stacking_rules_exist' })
    expect(await snapshot(store)).toBe(before)
  })

  it('lets only one of two concurrent creates in', async () => {
    const { engine, store } = testEngine()
    const outcomes = await Promise.allSettled([
      engine.stackingRules.create(PROJECT, { redeemables_limit: 10 }),
      engine.stackingRules.create(PROJECT, { redeemables_limit: 20 }),
    ])
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected'])
    const rejected = outcomes.find((o) => o.status === 'rejected')
    expect(rejected?.status === 'rejected' && rejected.reason).toMatchObject({ code: 409, key: 'stacking_rules_exist' })
    expect((await store.stacking_rules.list()).total).toBe(1)
  })

  describe('rejects out-of-bounds rules naming the field and writes nothing', () => {
    const cases: [string, unknown, string, string][] = [
      ['redeemables_limit over 30', { redeemables_limit: 31 }, 'redeemables_limit', 'must be <= 30'],
      ['redeemables_limit of 0', { redeemables_limit: 0 }, 'redeemables_limit', 'must be >= 1'],
      ['a fractional limit', { redeemables_limit: 2.5 }, 'redeemables_limit', 'must be an integer'],
      ['a limit as a string', { redeemables_limit: '5' }, 'redeemables_limit', 'must be number'],
      [
        'applicable limit above redeemables limit',
        { redeemables_limit: 4, applicable_redeemables_limit: 5 },
        'applicable_redeemables_limit',
        'must be <= redeemables_limit (4)',
      ],
      [
        'applicable limit left at its default above a lowered redeemables limit',
        { redeemables_limit: 3 },
        'applicable_redeemables_limit',
        'must be <= redeemables_limit (3)',
      ],
      [
        'per-category limit above the applicable limit',
        { applicable_redeemables_per_category_limit: 6 },
        'applicable_redeemables_per_category_limit',
        'must be <= applicable_redeemables_limit (5)',
      ],
      [
        'a category limit over 10',
        { applicable_redeemables_limit: 20, applicable_redeemables_category_limits: { cat_a: 11 } },
        'applicable_redeemables_category_limits.cat_a',
        'must be <= 10',
      ],
      [
        'a category limit above the applicable limit',
        { applicable_redeemables_category_limits: { cat_a: 6 } },
        'applicable_redeemables_category_limits.cat_a',
        'must be <= applicable_redeemables_limit (5)',
      ],
      [
        'exclusive limit over 5',
        { applicable_exclusive_redeemables_limit: 6 },
        'applicable_exclusive_redeemables_limit',
        'must be <= 5',
      ],
      [
        'exclusive per-category above the exclusive limit',
        { applicable_exclusive_redeemables_limit: 2, applicable_exclusive_redeemables_per_category_limit: 3 },
        'applicable_exclusive_redeemables_per_category_limit',
        'must be <= applicable_exclusive_redeemables_limit (2)',
      ],
      ['an unknown mode', { redeemables_application_mode: 'SOME' }, 'redeemables_application_mode', 'must be'],
      ['an unknown sorting rule', { redeemables_sorting_rule: 'RANDOM' }, 'redeemables_sorting_rule', 'must be'],
      [
        'overlapping no-effect categories',
        { no_effect_skip_categories: ['cat_a', 'cat_b'], no_effect_redeem_anyway_categories: ['cat_b'] },
        'no_effect_redeem_anyway_categories',
        'must not contain cat_b, which is listed in no_effect_skip_categories',
      ],
      [
        'a category both exclusive and joint',
        { exclusive_categories: ['cat_a'], joint_categories: ['cat_a'] },
        'joint_categories',
        'must not contain cat_a',
      ],
      ['a category list of the wrong type', { exclusive_categories: 'cat_a' }, 'exclusive_categories', 'must be'],
    ]
    for (const [label, body, path, problem] of cases) {
      it(label, async () => {
        const { engine, store } = testEngine()
        const before = await snapshot(store)
        const error = await rejection(engine.raw.stackingRules.create(PROJECT, body))
        expect(error).toMatchObject({ code: 400, key: 'invalid_payload', path })
        expect(error.details).toContain(problem)
        expect(await snapshot(store)).toBe(before)
      })
    }
  })

  it('updates the created rules, checking the merged result', async () => {
    const { engine, clock, store } = testEngine()
    const created = await engine.stackingRules.create(PROJECT, { applicable_redeemables_limit: 10 })
    clock.advance(60_000)
    const updated = await engine.stackingRules.update(PROJECT, created.id, {
      applicable_redeemables_per_category_limit: 4,
      redeemables_products_application_mode: 'ONCE',
    })
    expect(updated).toEqual({
      ...created,
      applicable_redeemables_per_category_limit: 4,
      redeemables_products_application_mode: 'ONCE',
      updated_at: '2026-01-15T10:01:00.000Z',
    })
    expect(await engine.stackingRules.get(PROJECT)).toEqual(updated)
    const before = await snapshot(store)
    const error = await rejection(engine.stackingRules.update(PROJECT, created.id, { redeemables_limit: 8 }))
    expect(error).toMatchObject({ code: 400, path: 'applicable_redeemables_limit' })
    await expect(engine.stackingRules.update(PROJECT, 'str_other', {})).rejects.toMatchObject({ code: 404 })
    expect(await snapshot(store)).toBe(before)
  })

  it('gives 404 when updating before any rules exist', async () => {
    const { engine } = testEngine()
    await expect(engine.stackingRules.update(PROJECT, 'str_proj_default', {})).rejects.toMatchObject({ code: 404 })
  })
})
