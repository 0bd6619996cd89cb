import { describe, expect, it } from 'vitest'
import { createEngine } from '../../../src/engine'
import { createIdGenerator, seededRandom } from '../../../src/ids'
import { createMemoryStore } from '../../../src/memory'
import type { Changeset, Store } from '../../../src/storage/ports'
import { manualClock, testEngine } from '../../support/engine'
import { autoJoinClub } from '../../support/hot-rows'
import { defaultTestStore } from '../../support/store'
import { watchedStore } from '../../support/watched-store'

/*
 * The open loop's mix (bench/open-loop.ts): a validation and a redemption of a public code, and a paid
 * order in an auto-join program with an earning rule, each by a customer the store has never seen.
 * What each reads and what its commit writes, listed and counted on whichever store the suite runs
 * (docs/storage.md#codes-made-on-demand), so no speed comes from skipping work and no work is done twice.
 */

/** A store that lists, while `on`, each repository call (`collection.method`) and each committed write. */
function listingStore(inner: Store) {
  const reads: string[] = []
  const writes: string[] = []
  let commits = 0
  const state = { on: false }
  const describeWrite = (w: Changeset['writes'][number]) =>
    w.op === 'put'
      ? w.collection === 'activities'
        ? `activity ${(w.value as { type: string }).type}`
        : `${w.collection} ${w.expectedVersion === null ? 'insert' : 'update'}`
      : w.op === 'increment'
        ? `${w.collection}${w.collection === 'counters' ? ` ${w.id.split(':')[0]}:` : ''} ${w.guard ? 'guarded ' : ''}increment`
        : `${w.collection} ${w.op}`
  const store = watchedStore(inner, {
    commit(changeset) {
      if (!state.on) return
      commits++
      writes.push(...changeset.writes.map(describeWrite))
    },
    call(name) {
      if (state.on) reads.push(name)
    },
  })
  return {
    store,
    async listed(run: () => Promise<unknown>) {
      reads.length = 0
      writes.length = 0
      commits = 0
      state.on = true
      try {
        await run()
      } finally {
        state.on = false
      }
      return { reads: [...reads].sort(), writes: [...writes].sort(), commits }
    },
  }
}

const tally = (list: string[]) =>
  list.reduce<Record<string, number>>((n, x) => Object.assign(n, { [x]: (n[x] ?? 0) + 1 }), {})

describe('the open loop mix: reads and writes of each request', () => {
  it('a new customer validating, redeeming a public code, and paying an order in an auto-join program', async () => {
    const listing = listingStore(defaultTestStore() ?? createMemoryStore())
    const { engine } = testEngine({ store: listing.store })
    await engine.products.create({ name: 'Shoe', source_id: 'shoe', price: 5000 })
    await engine.vouchers.create({
      code: 'PUBLIC',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
    })
    await autoJoinClub(engine, 'CLUB-########')
    const order = { amount: 10_000, items: [{ source_id: 'shoe', quantity: 2 }] }
    const redeemables = [{ object: 'voucher' as const, id: 'PUBLIC' }]
    // The steady state: the program's and the code's first requests behind.
    await engine.raw.redemptions.redeemStackable({ customer: { source_id: 'first' }, order, redeemables })
    await engine.raw.orders.create({ customer: { source_id: 'second' }, status: 'PAID', ...order })

    const validation = await listing.listed(() =>
      engine.raw.validations.validateStackable({ customer: { source_id: 'v' }, order, redeemables }),
    )
    // A customer the store does not know records no activity: nothing to commit.
    expect(validation.commits).toBe(0)
    // A checkout's reads: the code, its counters, the customer, the order's products, the stacking
    // rules and the code's rule assignments.
    const checkoutReads = {
      'counters.getMany': 1,
      'customers.findBy': 1,
      'products.findBy': 1,
      'products.getMany': 1,
      'stacking_rules.get': 1,
      'validation_rule_assignments.list': 1,
      'vouchers.findMany': 1,
      'vouchers.getMany': 1,
    }
    expect(tally(validation.reads)).toEqual(checkoutReads)

    // The enrolment's reads: the programs, their rules, tiers and auto-redeemed rewards, the free
    // cards (both passes at once); no card of a customer created in the same commit, no look-up of the
    // new card's code (its pattern holds 62^8 codes: the unique `code` settles a collision), and no
    // tier standing of a card just made.
    const enrolmentReads = {
      'campaigns.list': 1,
      'earning_rules.list': 1,
      'loyalty_tiers.list': 1,
      'reward_assignments.list': 1,
      'vouchers.list': 2,
    }
    // Its writes: the new customer and its paid order's activities (one of each type), the customer,
    // the card (no join-once membership row: the customer is new, docs/storage.md#claims) and its count (a shard of the program's code counter, guarded),
    // the publication, the earned bucket and the card's transaction.
    const enrolmentWrites = {
      'activity customer.created': 1,
      'activity customer.order.created': 1,
      'activity customer.order.paid': 1,
      'activity customer.publication.succeeded': 1,
      'activity customer.voucher.loyalty_card.points_added': 1,
      'activity customer.rewarded.loyalty_points': 1,
      'customers insert': 1,
      'vouchers insert': 1,
      'counters g: guarded increment': 1,
      'publications insert': 1,
      'points_buckets insert': 1,
      'card_transactions insert': 1,
    }

    const redemption = await listing.listed(() =>
      engine.raw.redemptions.redeemStackable({ customer: { source_id: 'r' }, order, redeemables }),
    )
    expect(redemption.commits).toBe(1)
    expect(tally(redemption.reads)).toEqual({ ...enrolmentReads, ...checkoutReads, 'metadata_schemas.findBy': 1 })
    // Besides: the redemption's activity, the order, the parent and child redemptions; the code's
    // redemptions counted (r:, rc:), its redeemed quantity; the customer's summary twice (its order,
    // its redemption: one row write on PostgreSQL, docs/postgres.md#commit).
    expect(tally(redemption.writes)).toEqual({
      ...enrolmentWrites,
      'activity customer.redemption.succeeded': 1,
      'orders insert': 1,
      'redemptions insert': 2,
      'counters r: increment': 1,
      'counters rc: increment': 1,
      'counters cs: increment': 2,
      'vouchers increment': 1,
    })

    const paid = await listing.listed(() =>
      engine.raw.orders.create({ customer: { source_id: 'o' }, status: 'PAID', ...order }),
    )
    expect(paid.commits).toBe(1)
    expect(tally(paid.reads)).toEqual({ ...enrolmentReads, 'customers.findBy': 1, 'metadata_schemas.findBy': 1 })
    expect(tally(paid.writes)).toEqual({
      ...enrolmentWrites,
      'orders insert': 1,
      'counters cs: increment': 1,
    })
  })

  it('a new card code drawn unchecked that another voucher holds: the commit refuses it, the operation decides again and looks its code up', async () => {
    const listing = listingStore(defaultTestStore() ?? createMemoryStore())
    const clock = manualClock()
    const { engine } = testEngine({ store: listing.store, clock })
    const club = await autoJoinClub(engine, 'CLUB-########')
    // Two engines on one store drawing the same codes (one seed) under distinct ids: the second's
    // first draw is the code the first just stored.
    const drawing = (idSeed: number) =>
      createEngine({
        store: listing.store,
        clock,
        random: seededRandom(7),
        ids: createIdGenerator(seededRandom(idSeed)),
      })
    const order = { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] }
    await drawing(1).raw.orders.create({ customer: { source_id: 'first' }, status: 'PAID', ...order })
    const second = await listing.listed(() =>
      drawing(2).raw.orders.create({ customer: { source_id: 'second' }, status: 'PAID', ...order }),
    )
    // The first decision looked nothing up and its commit failed on the code; the second looked it up.
    expect(second.commits).toBe(2)
    expect(second.reads.filter((r) => r === 'vouchers.findMany')).toHaveLength(1)
    const cards = await Promise.all(
      ['first', 'second'].map(async (source) => {
        const customer = await engine.customers.get(source)
        return (await listing.store.vouchers.list({ where: { campaign_id: club.id, holder_id: customer.id } })).data
      }),
    )
    const codes = cards.map((list) => list.map((s) => s.value.code))
    expect(codes.map((c) => c.length)).toEqual([1, 1])
    expect(codes[0]?.[0]).not.toBe(codes[1]?.[0])
    expect(cards.map((list) => list[0]?.value.loyalty_card?.points)).toEqual([10, 10])
  })
})
