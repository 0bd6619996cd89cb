import { bench, describe } from 'vitest'
import { createEngine, type Engine } from '../src/engine'
import { seededRandom } from '../src/ids'

/**
 * `promotions.create` with N tiers, each carrying a validation rule (its own, or one shared by all),
 * each iteration a new campaign on one engine per row (its rules created before the clock starts;
 * creation reads nothing that grows with the earlier campaigns). 20,000 tiers is
 * above the default `arrayLength` and `requestBytes` limits, so the engine here raises them.
 */
async function prepare(n: number, shared: boolean): Promise<{ engine: Engine; body: (name: string) => unknown }> {
  const engine = createEngine({
    random: seededRandom(7),
    limits: { arrayLength: 20_000, requestBytes: 16 * 1024 * 1024 },
  })
  const ruleIds: string[] = []
  for (let i = 0; i < (shared ? 1 : n); i++) {
    const rule = await engine.validationRules.create({
      name: `rule ${i}`,
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [i] } }, logic: '1' },
    })
    ruleIds.push(rule.id)
  }
  const tiers = Array.from({ length: n }, (_, i) => ({
    name: `Tier ${i}`,
    action: { discount: { type: 'AMOUNT', amount_off: 100 } },
    validation_rules: [ruleIds[shared ? 0 : i]],
  }))
  return { engine, body: (name) => ({ name, campaign_type: 'PROMOTION', promotion: { tiers } }) }
}

const rows: [number, boolean][] = [
  [1_000, false],
  [5_000, false],
  [10_000, false],
  [20_000, false],
  [20_000, true],
]

describe('promotions.create with N tiers', () => {
  for (const [n, shared] of rows) {
    let ready: Awaited<ReturnType<typeof prepare>> | undefined
    let made = 0
    bench(
      `${n} tiers, ${shared ? 'one shared rule' : 'a rule each'}`,
      async () => {
        if (!ready) throw new Error('not prepared')
        await ready.engine.promotions.create(ready.body(`Big ${++made}`))
      },
      {
        iterations: 3,
        time: 0,
        warmupIterations: 0,
        warmupTime: 0,
        setup: async () => {
          ready ??= await prepare(n, shared)
        },
      },
    )
  }
})
