import { describe, expect, it } from 'vitest'
import { createEngine, engineContext } from '../../src/engine'
import { EngineError } from '../../src/errors'
import { seededRandom } from '../../src/ids'
import { createMemoryStore, type FaultStep } from '../../src/memory'
import { manualClock, snapshot } from '../support/engine'

/*
 * All or nothing, whatever throws (docs/storage.md#commit): real changesets of real operations are
 * committed with a fault injected at every step the memory store takes to apply them (freezing a
 * value, writing an entity, updating its keys and indexes). Each time the caller gets an EngineError
 * and the store, its indexes and its change feed are exactly as before.
 */

type Engine = ReturnType<typeof createEngine>

interface Scenario {
  name: string
  setup: (engine: Engine) => Promise<void>
  run: (engine: Engine) => Promise<unknown>
}

const SCENARIOS: Scenario[] = [
  {
    name: 'a stacked redemption of a coupon, a gift card and a promotion tier for a new customer',
    async setup(engine) {
      await engine.vouchers.create({
        code: 'ONCE',
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'PERCENT', percent_off: 10 },
        redemption: { quantity: 1 },
      })
      await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 5000 } })
      await engine.promotions.create({
        name: 'Promo',
        campaign_type: 'PROMOTION',
        promotion: { tiers: [{ name: 'Five off', action: { discount: { type: 'AMOUNT', amount_off: 500 } } }] },
      })
    },
    async run(engine) {
      const tiers = await engineContext(engine).store.promotion_tiers.list()
      return engine.redemptions.redeemStackable({
        customer: { source_id: 'new-customer' },
        order: { amount: 10_000, items: [{ source_id: 'shoe', quantity: 2, price: 5000 }] },
        redeemables: [
          { object: 'voucher', id: 'ONCE' },
          { object: 'voucher', id: 'GIFT', gift: { credits: 2000 } },
          { object: 'promotion_tier', id: tiers.data[0]?.value.id ?? '' },
        ],
      })
    },
  },
  {
    name: 'a customer with a natural key',
    async setup() {},
    run: (engine) => engine.customers.create({ source_id: 'alice', name: 'Alice' }),
  },
]

/** Runs `scenario` on a fresh, identical engine whose store calls `faults` at each apply step. */
async function prepared(scenario: Scenario, faults: (step: FaultStep) => void) {
  let armed = false
  const store = createMemoryStore({ faults: (step) => armed && faults(step) })
  const engine = createEngine({ store, clock: manualClock(), random: seededRandom(7) })
  await scenario.setup(engine)
  armed = true
  return {
    engine,
    store,
    disarm: () => {
      armed = false
    },
  }
}

describe('the memory store applies a commit whole or not at all', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: a fault at any step of its commit leaves the store unchanged`, async () => {
      // A dry run counts the steps of the real changeset.
      const steps: FaultStep[] = []
      const dry = await prepared(scenario, (step) => steps.push(step))
      await scenario.run(dry.engine)
      expect(steps.length).toBeGreaterThan(3)
      for (const target of steps) {
        const { engine, store, disarm } = await prepared(scenario, (step) => {
          if (step.stage === target.stage && step.position === target.position) {
            throw new RangeError('Maximum call stack size exceeded (injected)')
          }
        })
        const before = await snapshot(store)
        const feed = await store.changes({ limit: 10_000 })
        const error = await scenario.run(engine).then(
          () => undefined,
          (e: unknown) => e,
        )
        expect(error, `${target.stage} #${target.position}`).toBeInstanceOf(EngineError)
        expect((error as EngineError).key).toBe('commit_failed')
        expect(await snapshot(store), `${target.stage} #${target.position}`).toBe(before)
        expect(await store.changes({ limit: 10_000 })).toEqual(feed)
        // The indexes are intact too: the same operation then succeeds on the untouched store.
        disarm()
        await expect(scenario.run(createEngineOn(store))).resolves.toBeDefined()
      }
    }, 60_000)
  }
})

function createEngineOn(store: ReturnType<typeof createMemoryStore>) {
  return createEngine({ store, clock: manualClock(), random: seededRandom(8) })
}

describe('the memory store applies an alternative whole or not at all', () => {
  /** A single-use code: the setup every run of this test starts from. */
  async function prepared(faults: (step: FaultStep) => void = () => {}) {
    let armed = false
    const store = createMemoryStore({ faults: (step) => armed && faults(step) })
    const engine = createEngine({ store, clock: manualClock(), random: seededRandom(7) })
    await engine.customers.create({ source_id: 'ana' })
    await engine.vouchers.create({
      code: 'ONCE',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
      redemption: { quantity: 1 },
    })
    return { store, engine, arm: (on: boolean) => (armed = on) }
  }
  const redeem = (engine: Engine) =>
    engine.redemptions.redeemStackable({
      customer: { source_id: 'ana' },
      order: { amount: 1000 },
      redeemables: [{ object: 'voucher', id: 'ONCE' }],
    })

  it('two concurrent redemptions of a single-use code: a fault at any step of the alternative leaves the store unchanged', async () => {
    // The real changesets: two requests that read the code unused; the second commit finds it used
    // and is answered by its alternative, the failed redemption.
    const dry = await prepared()
    const commits: Parameters<typeof dry.store.commit>[0][] = []
    const commit = dry.store.commit.bind(dry.store)
    const recording = Object.assign(Object.create(dry.store), {
      commit: (changeset: (typeof commits)[number]) => {
        commits.push(changeset)
        return commit(changeset)
      },
    }) as typeof dry.store
    const engine = createEngine({ store: recording, clock: manualClock(), random: seededRandom(9) })
    const [a, b] = await Promise.all([redeem(engine), redeem(engine)])
    expect([a.parent_redemption.result, b.parent_redemption.result].sort()).toEqual(['FAILURE', 'SUCCESS'])
    expect(commits).toHaveLength(2)
    const [first, second] = commits as [(typeof commits)[number], (typeof commits)[number]]
    expect(second.alternatives?.length).toBeGreaterThan(0)

    // The steps the store takes to apply the alternative.
    const steps: FaultStep[] = []
    const counted = await prepared((step) => steps.push(step))
    await counted.store.commit(first)
    counted.arm(true)
    const applied = await counted.store.commit(second)
    expect(applied.ok && applied.alternative?.index).toBe(0)
    expect(steps.length).toBeGreaterThan(3)

    for (const target of steps) {
      const run = await prepared((step) => {
        if (step.stage === target.stage && step.position === target.position) throw new RangeError('injected')
      })
      await run.store.commit(first)
      const before = await snapshot(run.store)
      const feed = await run.store.changes({ limit: 10_000 })
      run.arm(true)
      const error = await run.store.commit(second).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error, `${target.stage} #${target.position}`).toBeInstanceOf(EngineError)
      expect((error as EngineError).key).toBe('commit_failed')
      expect(await snapshot(run.store), `${target.stage} #${target.position}`).toBe(before)
      expect(await run.store.changes({ limit: 10_000 })).toEqual(feed)
      run.arm(false)
      const again = await run.store.commit(second)
      expect(again.ok && again.alternative?.index).toBe(0)
    }
  }, 60_000)
})
