import { describe, expect, it } from 'vitest'
import { countingStore, type StoreCounts } from '../../support/counting-store'
import { testEngine } from '../../support/engine'

/**
 * What `promotions.create` asks of the store for `n` tiers, each carrying a validation rule (its own
 * or one shared by all), on a store already holding `n` other tiers with assigned rules.
 */
async function creationCost(n: number, rules: 'own' | 'shared'): Promise<StoreCounts> {
  const counting = countingStore()
  const { engine } = testEngine({ store: counting.store, limits: { arrayLength: 2 * n } })
  const ruleIds: string[] = []
  for (let i = 0; i < (rules === 'own' ? n : 1); i++) {
    const rule = await engine.validationRules.create({
      name: `rule ${i}`,
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [i] } }, logic: '1' },
    })
    ruleIds.push(rule.id)
  }
  const tiers = (name: string) =>
    Array.from({ length: n }, (_, i) => ({
      name: `${name} ${i}`,
      action: { discount: { type: 'AMOUNT', amount_off: 100 } },
      validation_rules: [ruleIds[rules === 'own' ? i : 0]],
    }))
  await engine.raw.promotions.create({ name: 'Earlier', campaign_type: 'PROMOTION', promotion: { tiers: tiers('E') } })
  counting.reset()
  const made = await engine.raw.promotions.create({
    name: 'Big',
    campaign_type: 'PROMOTION',
    promotion: { tiers: tiers('T') },
  })
  expect(made.promotion.tiers).toHaveLength(n)
  expect(made.promotion.tiers.every((t) => t.validation_rule_assignments?.total === 1)).toBe(true)
  return { ...counting.counts }
}

describe('promotions.create with many tiers', () => {
  it.each(['own', 'shared'] as const)('asks the store for work linear in the tiers (rules: %s)', async (rules) => {
    const small = await creationCost(200, rules)
    const large = await creationCost(400, rules)
    // Per-tier reads (metadata schema, category) are allowed; anything per tier × tier is not.
    expect(large.calls).toBeLessThanOrEqual(2 * small.calls + 2)
    expect(large.rows).toBeLessThanOrEqual(2 * small.rows + 2)
  })

  it('renders the assignments it made exactly as a later read lists them', async () => {
    const { engine } = testEngine()
    const rule = await engine.validationRules.create({
      name: 'r',
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [1] } }, logic: '1' },
    })
    const other = await engine.validationRules.create({
      name: 'r2',
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [2] } }, logic: '1' },
    })
    const made = await engine.promotions.create({
      name: 'P',
      campaign_type: 'PROMOTION',
      promotion: {
        tiers: [
          { name: 'A', action: { discount: { type: 'AMOUNT', amount_off: 1 } }, validation_rules: [rule.id, other.id] },
          { name: 'B', action: { discount: { type: 'AMOUNT', amount_off: 1 } } },
        ],
      },
    })
    for (const tier of made.promotion.tiers) expect(await engine.promotions.tiers.get(tier.id)).toEqual(tier)
  })
})
