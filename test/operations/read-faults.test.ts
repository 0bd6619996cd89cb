import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine'
import { EngineError } from '../../src/errors'
import { seededRandom } from '../../src/ids'
import type { Store } from '../../src/storage/ports'
import { snapshot, testEngine } from '../support/engine'
import { cardPayingWithPoints, mugReward } from './loyalty/fixtures'

/*
 * A database that stops answering in the middle of an operation (a saturated pool's connect timeout):
 * from the k-th store call on, every call fails, for each k up to the operation's last call. The
 * operation fails with that fault and writes nothing, and no read it started early and meant to await
 * later is left rejected with nobody listening: Node ends a process on an unhandled rejection
 * (docs/storage.md#load-decide-commit). Each call answers after a turn of the event loop, as a
 * database does, so a rejection that waits a turn for its handler is seen.
 */

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled)
})
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
})

function unavailable(): EngineError {
  return new EngineError({
    code: 500,
    key: 'store_unavailable',
    message: 'The database could not be reached',
    details: 'timeout exceeded when trying to connect (injected)',
  })
}

/**
 * `inner` with every call answering a turn later. `fails(n)` says whether call number `n` fails;
 * a commit that fails is never applied.
 */
function faulty(inner: Store, fails: (n: number, commit: boolean) => boolean): { store: Store; calls: () => number } {
  let calls = 0
  const call = async (commit: boolean, f: () => Promise<unknown>) => {
    const n = ++calls
    // One to three turns, varied by call, so reads started together settle in different orders.
    for (let i = 0; i <= n % 3; i++) await new Promise((r) => setImmediate(r))
    if (fails(n, commit)) throw unavailable()
    return f()
  }
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, prop, receiver) {
        const member = Reflect.get(t, prop, receiver)
        if (typeof member === 'function')
          return (...args: unknown[]) => call(prop === 'commit', () => member.apply(t, args))
        if (member !== null && typeof member === 'object') return wrap(member)
        return member
      },
    })
  return { store: wrap(inner), calls: () => calls }
}

interface Scenario {
  name: string
  setup(engine: Engine): Promise<unknown>
  run(engine: Engine, setup: never): Promise<unknown>
}

/** An auto-join program earning on paid orders, with tiers and an auto-redeemed reward. */
async function autoJoinProgram(engine: Engine) {
  const club = await engine.loyalties.create({
    name: 'Club',
    type: 'AUTO_UPDATE',
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
    auto_join: true,
  })
  await engine.asyncActions.runPending()
  await engine.loyalties.createEarningRule(club.id, [
    {
      event: 'order.paid',
      loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1, points: 1 } } },
    },
  ])
  await engine.loyalties.createTiers(club.id, [{ name: 'Gold', points: { from: 100 } }])
  await mugReward(engine, club.id)
  await engine.orders.create({ customer: { source_id: 'alice' }, status: 'PAID', amount: 50 })
  return club
}

const SCENARIOS: Scenario[] = [
  {
    name: 'a paid order of a new customer in a shop with an auto-join program',
    setup: autoJoinProgram,
    run: (engine) => engine.orders.create({ customer: { source_id: 'bob' }, status: 'PAID', amount: 250 }),
  },
  {
    name: "a paid order of a member (the card's ledger, standing and the day's auto-redemptions)",
    setup: autoJoinProgram,
    run: (engine) => engine.orders.create({ customer: { source_id: 'alice' }, status: 'PAID', amount: 250 }),
  },
  {
    name: 'a redemption paying with points',
    setup: cardPayingWithPoints,
    run: (engine, { card, coin }: Awaited<ReturnType<typeof cardPayingWithPoints>>) =>
      engine.redemptions.redeemStackable({
        customer: { source_id: 'alice' },
        order: { amount: 5000, status: 'PAID' },
        redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 80 } }],
      }),
  },
  {
    name: 'a reward redemption',
    setup: cardPayingWithPoints,
    run: (engine, { club, card, coin }: Awaited<ReturnType<typeof cardPayingWithPoints>>) =>
      engine.loyalties.redeemReward(club.id, card.code, {
        reward: { id: coin.id, points: 120 },
        order: { amount: 5000 },
      }),
  },
  {
    name: 'a validation of a code and a promotion tier for a new customer',
    async setup(engine) {
      await engine.vouchers.create({
        code: 'TEN',
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'PERCENT', percent_off: 10 },
      })
      await autoJoinProgram(engine)
    },
    run: (engine) =>
      engine.validations.validateStackable({
        customer: { source_id: 'carol' },
        order: { amount: 10_000, items: [{ source_id: 'mug', quantity: 1, price: 10_000 }] },
        redeemables: [{ object: 'voucher', id: 'TEN' }],
        options: { expand: ['order'] },
      }),
  },
  {
    name: "a qualification of a member's wallet and the cart",
    async setup(engine) {
      await engine.vouchers.create({
        code: 'TEN',
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'PERCENT', percent_off: 10 },
      })
      await autoJoinProgram(engine)
    },
    run: (engine) =>
      engine.raw.qualifications.checkEligibility({
        customer: { source_id: 'alice' },
        order: { amount: 10_000, items: [{ source_id: 'mug', quantity: 1, price: 10_000 }] },
      }),
  },
]

/**
 * How the database fails from the `k`-th store call of an operation on. The commit fails too, so the
 * store stays as it was: which calls an operation makes, and in what order, may vary with timing (a
 * prefetch a step no longer needs), and a fault only in a read the operation can do without must not
 * let it commit here.
 */
const MODES = {
  // Down from then on (a pool whose connections all time out): every later call fails too.
  'every call from the k-th on': (k: number) => (n: number, commit: boolean) => n >= k || commit,
  // One read fails, the others answer.
  'the k-th call and the commit': (k: number) => (n: number, commit: boolean) => n === k || commit,
}

describe('a database that fails mid-operation', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: fails with the fault, writes nothing, leaves no rejection unhandled`, async () => {
      const { engine, clock, store } = testEngine()
      const made = (await scenario.setup(engine)) as never
      const before = await snapshot(store)
      const feed = await store.changes({ limit: 10_000 })
      const on = (s: Store) => createEngine({ store: s, clock, random: seededRandom(7) })
      // The same operation on an identical shop, never failing, counts its store calls (commit included).
      const control = testEngine()
      const counted = faulty(control.store, () => false)
      await scenario.run(on(counted.store), (await scenario.setup(control.engine)) as never)
      const total = counted.calls()
      expect(total).toBeGreaterThan(3)
      for (const [mode, failing] of Object.entries(MODES)) {
        for (let k = 1; k <= total; k++) {
          const at = `${mode}, k = ${k} of ${total}`
          unhandled.length = 0
          const error = await scenario.run(on(faulty(store, failing(k)).store), made).then(
            () => undefined,
            (e: unknown) => e,
          )
          // Abandoned reads settle, and late handlers would be too late, within a few turns.
          for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r))
          expect(unhandled, at).toEqual([])
          expect(error, at).toBeInstanceOf(EngineError)
          expect((error as EngineError).key, at).toBe('store_unavailable')
          expect(await snapshot(store), at).toBe(before)
          expect(await store.changes({ limit: 10_000 }), at).toEqual(feed)
        }
      }
    }, 60_000)
  }
})
