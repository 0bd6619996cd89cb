import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../../../src/ids'
import { currentShape } from '../../../src/operations/kernel/shape-versions'
import type { CollectionName } from '../../../src/storage/collections'
import type { Entity } from '../../../src/storage/ports'
import { testEngine } from '../../support/engine'
import { propertyRuns } from '../../support/store'

/*
 * Level 2 started from hints (docs/postgres.md#loads): what level 1 found last time for a code, a tier
 * or a customer. A hint gone stale (a code deleted and made again under the same code, moved to
 * another campaign, a customer made again under the same source_id) never decides anything: an engine
 * with hints gives exactly what an engine without them gives (`loadHints: 0`), each on its own store
 * with the same history, ids included.
 */

type T = ReturnType<typeof testEngine>

const order = { amount: 10_000, items: [{ product_id: 'prod_1', quantity: 1, price: 10_000 }] }
/** A rule no order of these tests passes. */
const hugeOrder = { '1': { name: 'order.amount', conditions: { $more_than: [1_000_000] } } }
/** At most one redemption per customer. */
const oncePerCustomer = { '1': { name: 'redemption.count.per_customer', conditions: { $less_than_or_equal: [1] } } }

/** The outcome of an operation, whether it answered or threw. */
async function outcome<R>(run: () => Promise<R>): Promise<{ ok: R } | { error: unknown }> {
  try {
    return { ok: await run() }
  } catch (error) {
    return { error }
  }
}

/** Runs a step on the hinted engine and on the one without hints; both answer the same, which is returned. */
async function both<R>(pair: readonly [T, T], run: (t: T) => Promise<R>): Promise<R> {
  const hinted = await outcome(() => run(pair[0]))
  const cold = await outcome(() => run(pair[1]))
  expect(hinted).toEqual(cold)
  if ('error' in hinted) throw hinted.error
  return hinted.ok
}

function pair(): readonly [T, T] {
  return [testEngine(), testEngine({ loadHints: 0 })]
}

/** Writes a stored value as a host's own tooling would (no engine operation moves a code to another campaign). */
async function put<C extends CollectionName>(t: T, collection: C, id: string, change: (v: Entity<C>) => Entity<C>) {
  const stored = await t.store[collection].get(id)
  if (!stored) throw new Error(`${collection} ${id} missing`)
  const value = change(stored.value as Entity<C>)
  const done = await t.store.commit({
    writes: [
      { op: 'put', collection, value, expectedVersion: stored.version, shape: currentShape(collection) } as never,
    ],
  })
  expect(done.ok).toBe(true)
}

async function remove(t: T, collection: CollectionName, id: string) {
  const stored = await t.store[collection].get(id)
  const done = await t.store.commit({
    writes: [{ op: 'delete', collection, id, expectedVersion: stored?.version ?? 0 }],
  })
  expect(done.ok).toBe(true)
}

/** Two coupon campaigns: `Open`, and `Closed`, whose rule no order passes. */
async function campaigns(t: T) {
  const discount = { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' } as const
  const open = await t.engine.campaigns.create({
    name: 'Open',
    campaign_type: 'DISCOUNT_COUPONS',
    voucher: { type: 'DISCOUNT_VOUCHER', discount },
  })
  const closed = await t.engine.campaigns.create({
    name: 'Closed',
    campaign_type: 'DISCOUNT_COUPONS',
    voucher: { type: 'DISCOUNT_VOUCHER', discount },
  })
  const rule = await t.engine.validationRules.create({ name: 'Huge orders', rules: hugeOrder })
  await t.engine.validationRules.createAssignment(rule.id, {
    related_object_type: 'campaign',
    related_object_id: closed.id,
  })
  // Known customers: their ids are hinted from the first request on.
  await t.engine.customers.create({ source_id: 'ana' })
  await t.engine.customers.create({ source_id: 'bob' })
  return { open: open.id, closed: closed.id }
}

const validate = (t: T, code: string, customer = 'ana') =>
  t.engine.validations.validateStackable({
    customer: { source_id: customer },
    order,
    redeemables: [{ object: 'voucher', id: code }],
  })

const redeem = (t: T, code: string, customer = 'ana') =>
  t.engine.redemptions.redeemStackable({
    customer: { source_id: customer },
    order,
    redeemables: [{ object: 'voucher', id: code }],
  })

describe('stale hints give what an engine without hints gives', () => {
  it('a code deleted and made again under the same code in another campaign: its new campaign and rules decide', async () => {
    const engines = pair()
    const ids = await both(engines, campaigns)
    const first = await both(engines, (t) => t.engine.vouchers.create({ code: 'SHIFT', campaign_id: ids.open }))
    expect((await both(engines, (t) => validate(t, 'SHIFT'))).valid).toBe(true)
    expect((await both(engines, (t) => redeem(t, 'SHIFT'))).parent_redemption.result).toBe('SUCCESS')
    // The hinted engine now remembers SHIFT as `first`, in `Open`.
    await both(engines, (t) => remove(t, 'vouchers', first.id))
    const again = await both(engines, (t) => t.engine.vouchers.create({ code: 'SHIFT', campaign_id: ids.closed }))
    expect(again.id).not.toBe(first.id)
    const refused = await both(engines, (t) => validate(t, 'SHIFT'))
    expect(refused.valid).toBe(false)
    expect(refused.redeemables[0]?.result).toMatchObject({ error: { key: 'order_rules_violated' } })
    expect((await both(engines, (t) => redeem(t, 'SHIFT'))).parent_redemption.result).toBe('FAILURE')
    // And back in `Open` under a third id: valid again.
    await both(engines, (t) => remove(t, 'vouchers', again.id))
    await both(engines, (t) => t.engine.vouchers.create({ code: 'SHIFT', campaign_id: ids.open }))
    expect((await both(engines, (t) => validate(t, 'SHIFT'))).valid).toBe(true)
  })

  it("a code moved to another campaign under the same id: the new campaign's rules decide", async () => {
    const engines = pair()
    const ids = await both(engines, campaigns)
    const code = await both(engines, (t) => t.engine.vouchers.create({ code: 'MOVED', campaign_id: ids.open }))
    expect((await both(engines, (t) => validate(t, 'MOVED'))).valid).toBe(true)
    await both(engines, (t) =>
      put(t, 'vouchers', code.id, (v) => ({ ...v, campaign_id: ids.closed, campaign: 'Closed' })),
    )
    const refused = await both(engines, (t) => validate(t, 'MOVED'))
    expect(refused.valid).toBe(false)
    expect((await both(engines, (t) => redeem(t, 'MOVED'))).parent_redemption.result).toBe('FAILURE')
    await both(engines, (t) => put(t, 'vouchers', code.id, (v) => ({ ...v, campaign_id: ids.open, campaign: 'Open' })))
    expect((await both(engines, (t) => redeem(t, 'MOVED'))).parent_redemption.result).toBe('SUCCESS')
  })

  it("a customer deleted and made again under the same source_id: the new customer's counters decide", async () => {
    const engines = pair()
    await both(engines, (t) =>
      t.engine.vouchers.create({
        code: 'ONCE',
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      }),
    )
    const rule = await both(engines, (t) =>
      t.engine.validationRules.create({ name: 'Once each', rules: oncePerCustomer }),
    )
    const code = await both(engines, async (t) => (await t.store.vouchers.findBy('code', 'ONCE'))?.value.id as string)
    await both(engines, (t) =>
      t.engine.validationRules.createAssignment(rule.id, { related_object_type: 'voucher', related_object_id: code }),
    )
    const ana = await both(engines, (t) => t.engine.customers.create({ source_id: 'ana' }))
    expect((await both(engines, (t) => validate(t, 'ONCE'))).valid).toBe(true)
    // Another engine on the same store (another process) makes `ana` again and redeems for her: the
    // engines under test still remember `ana` as the first customer, who never redeemed.
    const again = await both(engines, async (t) => {
      const other = testEngine({ store: t.store, random: seededRandom(7) })
      await remove(other, 'customers', ana.id)
      const made = await other.engine.customers.create({ source_id: 'ana' })
      expect((await redeem(other, 'ONCE')).parent_redemption.result).toBe('SUCCESS')
      return made
    })
    expect(again.id).not.toBe(ana.id)
    expect((await both(engines, (t) => validate(t, 'ONCE'))).valid).toBe(false)
    expect((await both(engines, (t) => redeem(t, 'ONCE'))).parent_redemption.result).toBe('FAILURE')
    expect((await both(engines, (t) => validate(t, 'ONCE', 'bob'))).valid).toBe(true)
  })

  it('a rule assigned to a code since its rules were last read: the rules its assignments name decide', async () => {
    const engines = pair()
    const ids = await both(engines, campaigns)
    const code = await both(engines, (t) => t.engine.vouchers.create({ code: 'RULED', campaign_id: ids.open }))
    const small = await both(engines, (t) =>
      t.engine.validationRules.create({
        name: 'Any order',
        rules: { '1': { name: 'order.amount', conditions: { $more_than: [1] } } },
      }),
    )
    await both(engines, (t) =>
      t.engine.validationRules.createAssignment(small.id, {
        related_object_type: 'voucher',
        related_object_id: code.id,
      }),
    )
    expect((await both(engines, (t) => validate(t, 'RULED'))).valid).toBe(true)
    expect((await both(engines, (t) => validate(t, 'RULED'))).valid).toBe(true)
    // The hinted engine expects the one rule; the code now has two.
    const huge = await both(engines, (t) => t.engine.validationRules.create({ name: 'Huge', rules: hugeOrder }))
    await both(engines, (t) =>
      t.engine.validationRules.createAssignment(huge.id, {
        related_object_type: 'voucher',
        related_object_id: code.id,
      }),
    )
    expect((await both(engines, (t) => validate(t, 'RULED'))).valid).toBe(false)
    expect((await both(engines, (t) => redeem(t, 'RULED'))).parent_redemption.result).toBe('FAILURE')
  })

  it('a product deleted and made again under the same source_id: a line naming it is priced from the new one', async () => {
    const engines = pair()
    const shoe = await both(engines, (t) => t.engine.products.create({ source_id: 'shoe', name: 'Shoe', price: 5000 }))
    await both(engines, (t) =>
      t.engine.vouchers.create({
        code: 'TEN',
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'PERCENT', percent_off: 10 },
      }),
    )
    const priced = (t: T) =>
      t.engine.validations.validateStackable({
        order: { items: [{ source_id: 'shoe', quantity: 1 }] },
        redeemables: [{ object: 'voucher', id: 'TEN' }],
      })
    expect((await both(engines, priced)).order?.amount).toBe(5000)
    expect((await both(engines, priced)).order?.amount).toBe(5000)
    await both(engines, (t) => remove(t, 'products', shoe.id))
    await both(engines, (t) => t.engine.products.create({ source_id: 'shoe', name: 'Shoe', price: 7000 }))
    expect((await both(engines, priced)).order?.amount).toBe(7000)
  })

  it('random sequences of validations, redemptions, codes made again or moved and customers made again', async () => {
    const step = fc.oneof(
      fc.record({
        op: fc.constantFrom('validate' as const, 'redeem' as const),
        code: fc.constantFrom('X', 'Y'),
        customer: fc.constantFrom('ana', 'bob'),
      }),
      fc.record({ op: fc.constant('remake' as const), code: fc.constantFrom('X', 'Y'), closed: fc.boolean() }),
      fc.record({ op: fc.constant('move' as const), code: fc.constantFrom('X', 'Y'), closed: fc.boolean() }),
      fc.record({ op: fc.constant('customer' as const), customer: fc.constantFrom('ana', 'bob') }),
      fc.record({ op: fc.constant('assign' as const), code: fc.constantFrom('X', 'Y') }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const engines = pair()
        // Another engine on each store (another process), with ids of its own.
        const others = engines.map((t) => testEngine({ store: t.store, random: seededRandom(7) }))
        const ids = await both(engines, campaigns)
        const rule = await both(engines, (t) =>
          t.engine.validationRules.create({ name: 'Once each', rules: oncePerCustomer }),
        )
        const huge = await both(engines, (t) => t.engine.validationRules.create({ name: 'Huge', rules: hugeOrder }))
        for (const code of ['X', 'Y']) {
          const made = await both(engines, (t) => t.engine.vouchers.create({ code, campaign_id: ids.open }))
          await both(engines, (t) =>
            t.engine.validationRules.createAssignment(rule.id, {
              related_object_type: 'voucher',
              related_object_id: made.id,
            }),
          )
        }
        for (const s of steps) {
          const campaign = 'closed' in s && s.closed ? ids.closed : ids.open
          const named = 'closed' in s && s.closed ? 'Closed' : 'Open'
          const idOf = async (t: T, code: string) => (await t.store.vouchers.findBy('code', code))?.value.id as string
          if (s.op === 'validate') await both(engines, (t) => validate(t, s.code, s.customer))
          else if (s.op === 'redeem') await both(engines, (t) => redeem(t, s.code, s.customer))
          else if (s.op === 'assign') {
            // A rule no order passes, assigned to the code (a second time: refused, as duplicate).
            await both(engines, async (t) =>
              outcome(async () =>
                t.engine.validationRules.createAssignment(huge.id, {
                  related_object_type: 'voucher',
                  related_object_id: await idOf(t, s.code),
                }),
              ),
            )
          } else if (s.op === 'remake') {
            await both(engines, async (t) => remove(t, 'vouchers', await idOf(t, s.code)))
            await both(engines, (t) => t.engine.vouchers.create({ code: s.code, campaign_id: campaign }))
          } else if (s.op === 'move') {
            await both(engines, async (t) =>
              put(t, 'vouchers', await idOf(t, s.code), (v) => ({ ...v, campaign_id: campaign, campaign: named })),
            )
          } else {
            // Made again by another engine on the same store, which redeems X for the new customer.
            await both(engines, async (t) => {
              const other = others[engines.indexOf(t)] as T
              const known = await t.store.customers.findBy('source_id', s.customer)
              if (known) await remove(t, 'customers', known.value.id)
              await other.engine.customers.create({ source_id: s.customer })
              return outcome(() => redeem(other, 'X', s.customer))
            })
          }
        }
      }),
      { numRuns: propertyRuns(100) },
    )
  })
})
