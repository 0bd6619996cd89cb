import assert from 'node:assert/strict'
import { type Engine, engineContext } from '../../src/engine'
import { EngineError } from '../../src/errors'
import type { CalculatedOrderItem } from '../../src/model/order'
import type { Store } from '../../src/storage/ports'

/*
 * Rows that requests of different customers share (docs/storage.md#shared-rows), in a shop with an
 * auto-join loyalty program: each family's requests come from distinct customers, and what fits is
 * known, so a test asserts exact outcomes, no 409, at most 1.2 commits per request and a change feed
 * that holds exactly what was committed. The memory suite runs them with interleaved promises, the
 * PostgreSQL one from 4 processes (test/postgres/hot-rows.test.ts).
 */

/** What the shop's fixtures are called (plain data: the PostgreSQL children get it as JSON). */
export interface HotShop {
  club: string
  mug: string
  /** A reward of 10 points without stock: what a member's own spends race for. */
  sticker: string
  coupons: string
  quantityCode: string
  giftCode: string
  budgetCode: string
  tier: string
  referralCode: string
  lockCode: string
  /** A promotion tier discounting shoes, at most UNITS shoes in its campaign, and that budget's counter row. */
  unitTier: string
  unitRow: string
}

export const QUANTITY = 100
export const STOCK = 100
export const GIFT = 10_000
export const CREDITS = 70
export const BUDGET = 40
export const LOCKS = 10
export const UNITS = 40

/** An auto-join loyalty program whose cards' codes follow `pattern`, earning 10 points per paid order. */
export async function autoJoinClub(engine: Engine, pattern: string): Promise<{ id: string }> {
  const club = await engine.loyalties.create({
    name: 'Club',
    type: 'AUTO_UPDATE',
    auto_join: true,
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern } },
  })
  await engine.asyncActions.runPending()
  await engine.loyalties.createEarningRule(club.id, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 10 } }])
  return club
}

/** The shop: products, an auto-join program earning on paid orders with a MATERIAL reward, and one redeemable per family. */
export async function hotShop(engine: Engine): Promise<HotShop> {
  const shoe = await engine.products.create({ name: 'Shoe', source_id: 'shoe', price: 5000 })
  const club = await autoJoinClub(engine, 'CLUB-######')
  const product = await engine.products.create({ name: 'Mug', source_id: 'mug' })
  const mug = await engine.rewards.create({
    name: 'Mug',
    type: 'MATERIAL',
    parameters: { product: { id: product.id } },
    stock: STOCK,
  })
  await engine.rewards.createAssignment(mug.id, { campaign: club.id, parameters: { loyalty: { points: 10 } } })
  const sticker = await engine.rewards.create({
    name: 'Sticker',
    type: 'MATERIAL',
    parameters: { product: { id: product.id } },
  })
  await engine.rewards.createAssignment(sticker.id, { campaign: club.id, parameters: { loyalty: { points: 10 } } })
  const coupons = await engine.campaigns.create({
    name: 'On demand',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'AUTO_UPDATE',
    voucher: {
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
      code_config: { pattern: 'OD-#######' },
    },
  })
  const amountOff = { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } as const
  await engine.vouchers.create({ code: 'Q100', ...amountOff, redemption: { quantity: QUANTITY } })
  await engine.vouchers.create({ code: 'LOCKED', ...amountOff, redemption: { quantity: LOCKS } })
  await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: GIFT } })
  const budget = await engine.campaigns.create({
    name: 'Budget',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'STATIC',
    voucher: { ...amountOff },
    vouchers_count: 1,
  })
  const rule = await engine.validationRules.create({
    name: `at most ${BUDGET}`,
    rules: { '1': { name: 'campaign.redemptions.count', conditions: { $less_than_or_equal: [BUDGET] } } },
  })
  await engine.validationRules.createAssignment(rule.id, {
    related_object_type: 'campaign',
    related_object_id: budget.id,
  })
  const budgetCode = (await engineContext(engine).store.vouchers.list({ where: { campaign_id: budget.id } })).data[0]
    ?.value.code as string
  const promo = await engine.promotions.create({
    name: 'Promo',
    campaign_type: 'PROMOTION',
    promotion: { tiers: [{ name: 'Off', action: { discount: { type: 'AMOUNT', amount_off: 50 } } }] },
  })
  const referral = await engine.campaigns.create({
    name: 'Friends',
    campaign_type: 'REFERRAL_PROGRAM',
    type: 'STATIC',
    voucher: { ...amountOff },
    vouchers_count: 1,
  })
  const referralCode = (await engineContext(engine).store.vouchers.list({ where: { campaign_id: referral.id } }))
    .data[0]?.value.code as string
  await engine.publications.create({ campaign: referral.id, customer: { source_id: 'referrer' } })
  const units = await engine.promotions.create({
    name: 'Shoes',
    campaign_type: 'PROMOTION',
    promotion: {
      tiers: [
        {
          name: '$1 off each shoe',
          action: { discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' } },
        },
      ],
    },
  })
  const unitTier = units.promotion?.tiers[0]?.id ?? ''
  const budgetRule = await engine.validationRules.create({
    name: `at most ${UNITS} shoes`,
    rules: {},
    applicable_to: { included: [{ object: 'product', id: shoe.id, product_campaign_quantity_limit: UNITS }] },
  } as never)
  await engine.validationRules.createAssignment(budgetRule.id, {
    related_object_type: 'promotion_tier',
    related_object_id: unitTier,
  })
  return {
    club: club.id,
    mug: mug.id,
    sticker: sticker.id,
    coupons: coupons.id,
    quantityCode: 'Q100',
    giftCode: 'GIFT',
    budgetCode,
    tier: promo.promotion?.tiers[0]?.id ?? '',
    referralCode,
    lockCode: 'LOCKED',
    unitTier,
    unitRow: `u:${units.id}:product/${shoe.id}`,
  }
}

/** What one request gave: `ok`, or the key of its error or the failure code of its redemption. */
export type Outcome = string

/** Runs a request and names its outcome; anything but an EngineError is a bug and rethrown. */
export async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    const r = (await run()) as { parent_redemption?: { result: string; failure_code?: string } } | undefined
    const parent = r?.parent_redemption
    if (parent && parent.result !== 'SUCCESS') return parent.failure_code ?? 'failure'
    return 'ok'
  } catch (error) {
    if (error instanceof EngineError) return error.key
    throw error
  }
}

const redeem = (engine: Engine, customer: string, redeemable: Record<string, unknown>) =>
  engine.redemptions.redeemStackable({
    customer: { source_id: customer },
    order: { amount: 10_000, items: [{ source_id: 'shoe', quantity: 2 }] },
    redeemables: [redeemable as never],
  })

export interface Family {
  name: string
  /** Work done before the race (members with points, for the reward), per customer. */
  before?(engine: Engine, shop: HotShop, customer: string): Promise<void>
  /** One request by a new customer. */
  request(engine: Engine, shop: HotShop, customer: string): Promise<unknown>
  /** What `n` requests give: outcome → count. */
  expected(n: number): Record<Outcome, number>
  /** Commits per request allowed (default 1.2). */
  commitsPerRequest?: number
  /** What the store must show after `n` requests. */
  check?(engine: Engine, shop: HotShop, n: number): Promise<void>
  /** How many operations one customer's request makes (1 unless said): the commit bound counts them. */
  operations?(customer: string): number
}

/** A customer's number, the last part of its id (`cust-3`, `cust-1-3`). */
const numberOf = (customer: string) => Number(customer.split('-').at(-1))

/** How many operations the customers' requests of a family make: the bound on commits is 1.2 per operation. */
export function operationsOf(family: Family, customers: readonly string[]): number {
  return customers.reduce((sum, c) => sum + (family.operations?.(c) ?? 1), 0)
}

/** Shoes a customer of the unit budget family orders: 1 to 5, so budgets run out part way through requests. */
const shoesOf = (customer: string) => 1 + (numberOf(customer) % 5)

const exactly = (n: number, fits: number, refusal: string) =>
  n <= fits ? { ok: n } : { ok: fits, [refusal]: n - fits }

export const FAMILIES: readonly Family[] = [
  {
    name: 'publications from an AUTO_UPDATE campaign',
    request: (e, s, c) => e.publications.create({ campaign: s.coupons, customer: { source_id: c } }),
    expected: (n) => ({ ok: n }),
    async check(e, s, n) {
      assert.equal((await e.campaigns.get(s.coupons)).vouchers_count, n)
      const codes = await engineContext(e).store.vouchers.list({ where: { campaign_id: s.coupons }, count: true })
      assert.equal(codes.total, n)
    },
  },
  {
    name: 'loyalties.createMember',
    request: (e, s, c) => e.loyalties.createMember(s.club, { customer: { source_id: c } }),
    expected: (n) => ({ ok: n }),
    async check(e, s, n) {
      assert.equal((await e.loyalties.get(s.club)).vouchers_count, n)
    },
  },
  {
    name: 'paid orders by new customers of an auto-join program',
    request: (e, _s, c) => e.orders.create({ customer: { source_id: c }, status: 'PAID', amount: 10_000 }),
    expected: (n) => ({ ok: n }),
    async check(e, s, n) {
      assert.equal((await e.loyalties.get(s.club)).vouchers_count, n)
      const cards = await engineContext(e).store.vouchers.list({
        where: { campaign_id: s.club },
        limit: 100,
        count: true,
      })
      assert.equal(cards.total, n)
      for (const card of cards.data) assert.equal(card.value.loyalty_card?.balance, 10)
    },
  },
  {
    name: 'a MATERIAL reward with stock 100 redeemed by members holding the points',
    // Each member earns 10 points with a paid order first, one at a time.
    async before(e, _s, c) {
      await e.orders.create({ customer: { source_id: c }, status: 'PAID', amount: 10_000 })
    },
    async request(e, s, c) {
      const customer = await e.customers.get(c)
      const card = await engineContext(e).store.vouchers.list({
        where: { campaign_id: s.club, holder_id: customer.id },
      })
      return e.loyalties.redeemReward(s.club, card.data[0]?.value.id ?? '', { reward: { id: s.mug } })
    },
    expected: (n) => exactly(n, STOCK, 'reward_out_of_stock'),
    async check(e, s, n) {
      assert.equal((await e.rewards.get(s.mug)).stock, Math.max(0, STOCK - n))
    },
  },
  {
    name: 'a code with quantity 100',
    request: (e, s, c) => redeem(e, c, { object: 'voucher', id: s.quantityCode }),
    expected: (n) => exactly(n, QUANTITY, 'quantity_exceeded'),
    async check(e, s, n) {
      assert.equal((await e.vouchers.get(s.quantityCode)).redemption.redeemed_quantity, Math.min(n, QUANTITY))
    },
  },
  {
    name: 'a gift card',
    request: (e, s, c) => redeem(e, c, { object: 'voucher', id: s.giftCode, gift: { credits: CREDITS } }),
    expected: (n) => exactly(n, Math.floor(GIFT / CREDITS), 'gift_amount_exceeded'),
    async check(e, s, n) {
      const spent = Math.min(n, Math.floor(GIFT / CREDITS)) * CREDITS
      assert.equal((await e.vouchers.get(s.giftCode)).gift?.balance, GIFT - spent)
    },
  },
  {
    name: 'a campaign budget rule',
    request: (e, s, c) => redeem(e, c, { object: 'voucher', id: s.budgetCode }),
    expected: (n) => exactly(n, BUDGET, 'redemption_rules_violated'),
  },
  {
    // docs/storage.md#session-locks: every other customer validates with a LOCK session, then
    // redeems with its key; the others redeem at once without one. A holder is never refused.
    name: 'a checkout validating with a session lock, then redeeming, beside shoppers without one',
    operations: (c) => (numberOf(c) % 2 === 0 ? 2 : 1),
    async request(e, s, c) {
      const code = { object: 'voucher', id: s.lockCode }
      if (numberOf(c) % 2 === 1) return redeem(e, c, code)
      const session = { type: 'LOCK', key: `ssn-${c}` } as const
      const order = { amount: 10_000, items: [{ source_id: 'shoe', quantity: 2 }] }
      const validation = await e.validations.validateStackable({
        customer: { source_id: c },
        order,
        redeemables: [code as never],
        session,
      })
      const redemption = await e.redemptions.redeemStackable({
        customer: { source_id: c },
        order,
        redeemables: [code as never],
        session,
      })
      if (validation.session && redemption.parent_redemption.result !== 'SUCCESS') {
        throw new Error(`${c} held a lock and was refused: ${redemption.parent_redemption.failure_code}`)
      }
      return redemption
    },
    expected: (n) => exactly(n, LOCKS, 'quantity_exceeded'),
    async check(e, s, n) {
      const voucher = await e.vouchers.get(s.lockCode)
      assert.equal(voucher.redemption.redeemed_quantity, Math.min(n, LOCKS))
      // Every lock was consumed by its holder's redemption.
      const stored = await engineContext(e).store.vouchers.get(voucher.id)
      assert.equal(stored?.value.session_locks?.count ?? 0, 0)
    },
  },
  {
    name: 'a promotion tier',
    request: (e, s, c) => redeem(e, c, { object: 'promotion_tier', id: s.tier }),
    expected: (n) => ({ ok: n }),
  },
  {
    // docs/storage.md#alternatives: customer i orders 1 + i mod 5 shoes; the budget's row is
    // incremented under a guard at UNITS. A request that finds fewer units left at commit than it
    // took gets, in the same commit, the answer prepared for the value it found: fewer shoes off, or
    // none. Exact answers fill the budget exactly: min(demand, UNITS) units in all.
    name: 'a per-line unit budget (shoes discounted across redemptions)',
    request: (e, s, c) =>
      e.redemptions.redeemStackable({
        customer: { source_id: c },
        order: { amount: 50_000, items: [{ source_id: 'shoe', quantity: shoesOf(c) }] },
        redeemables: [{ object: 'promotion_tier', id: s.unitTier }],
      }),
    expected: (n) => ({ ok: n }),
    async check(e, s, n) {
      const { store } = engineContext(e)
      const children = await store.redemptions.list({ where: { related_object_id: s.unitTier }, limit: 1000 })
      assert.equal(children.data.length, n)
      // Each redemption's order as answered: the shoes it held and those it discounted.
      const lines = await Promise.all(
        children.data.map(async (r) => {
          const redemption = (await e.redemptions.get(r.value.id)) as { order?: { items?: CalculatedOrderItem[] } }
          return redemption.order?.items?.[0] as CalculatedOrderItem
        }),
      )
      const demand = lines.reduce((sum, l) => sum + (l.quantity ?? 0), 0)
      const row = await store.counters.get(s.unitRow)
      assert.equal(row?.value.count ?? 0, Math.min(demand, UNITS))
      // The row is exactly what the stored redemptions say they counted, and what their orders discounted.
      const counted = children.data.reduce((sum, r) => sum + (r.value.unit_counts?.[s.unitRow] ?? 0), 0)
      assert.equal(counted, Math.min(demand, UNITS))
      assert.equal(
        lines.reduce((sum, l) => sum + (l.discount_quantity ?? 0), 0),
        Math.min(demand, UNITS),
      )
    },
  },
  {
    name: 'a referral code',
    request: (e, s, c) => redeem(e, c, { object: 'voucher', id: s.referralCode }),
    expected: (n) => ({ ok: n }),
  },
]

/** The one member whose own card the last two families hammer. */
export const MEMBER = 'member'

/** How many times `before` ran for a shop: the member families prepare on some calls only. */
const calls = new WeakMap<HotShop, number>()
function call(shop: HotShop): number {
  const n = calls.get(shop) ?? 0
  calls.set(shop, n + 1)
  return n
}

async function memberCard(e: Engine, s: HotShop) {
  const customer = await e.customers.get(MEMBER)
  const cards = await engineContext(e).store.vouchers.list({ where: { campaign_id: s.club, holder_id: customer.id } })
  assert.equal(cards.data.length, 1, 'one card')
  return cards.data[0]?.value as NonNullable<(typeof cards.data)[number]>['value']
}

/** The member's card holds what its buckets hold, and never less than nothing. */
async function cardMatchesBuckets(e: Engine, s: HotShop, balance: number, points: number) {
  const card = await memberCard(e, s)
  const buckets = await engineContext(e).store.points_buckets.list({ where: { voucher_id: card.id } })
  assert.equal(card.loyalty_card?.balance, balance)
  assert.equal(card.loyalty_card?.points, points)
  assert.equal(
    buckets.data.reduce((n, b) => n + b.value.remaining, 0),
    balance,
  )
  assert.equal(
    buckets.data.reduce((n, b) => n + b.value.points, 0),
    points,
  )
}

/**
 * One customer's own loyalty card (docs/storage.md#loyalty-cards-and-their-buckets): the card's
 * summary moves by increments, so a member's concurrent paid orders all earn, and concurrent spends
 * all land while the points last. Every request is the same member's.
 */
export const MEMBER_FAMILIES: readonly Family[] = [
  {
    name: "one member's paid orders earning on their own card",
    async before(e, s) {
      if (call(s) === 0) await e.loyalties.createMember(s.club, { customer: { source_id: MEMBER } })
    },
    request: (e) => e.orders.create({ customer: { source_id: MEMBER }, status: 'PAID', amount: 10_000 }),
    expected: (n) => ({ ok: n }),
    check: (e, s, n) => cardMatchesBuckets(e, s, 10 * n, 10 * n),
  },
  {
    name: "one member's reward redemptions spending their own card's points, enough for half of them",
    // Every other call earns 10 points (a paid order, one at a time): points for ⌈n/2⌉ rewards, in as many buckets.
    async before(e, s) {
      if (call(s) % 2 === 0) await e.orders.create({ customer: { source_id: MEMBER }, status: 'PAID', amount: 10_000 })
    },
    async request(e, s) {
      return e.loyalties.redeemReward(s.club, (await memberCard(e, s)).id, { reward: { id: s.sticker } })
    },
    expected: (n) => exactly(n, Math.ceil(n / 2), 'loyalty_card_points_exceeded'),
    check: (e, s, n) => cardMatchesBuckets(e, s, 0, 10 * Math.ceil(n / 2)),
  },
]

/** Tiers the tier families give the club: 10 points (one paid order) reach the first. */
const TIERS = [
  { name: 'Bronze', points: { from: 10, to: 99 } },
  { name: 'Silver', points: { from: 100, to: 399 } },
  { name: 'Gold', points: { from: 400, to: 799 } },
  { name: 'Platinum', points: { from: 800 } },
]

/** The tier a balance qualifies for. */
const tierFor = (balance: number) => [...TIERS].reverse().find((t) => balance >= t.points.from)?.name ?? null

/** The member's tier events, in order, as `type tier`. */
async function tierEvents(e: Engine, sourceId: string): Promise<string[]> {
  const customer = await e.customers.get(sourceId)
  const types = [
    'customer.loyalty.tier.joined',
    'customer.loyalty.tier.upgraded',
    'customer.loyalty.tier.downgraded',
    'customer.loyalty.tier.left',
  ]
  const pages = await Promise.all(
    types.map((type) =>
      engineContext(e).store.activities.list({ where: { customer_id: customer.id, type }, limit: 100 }),
    ),
  )
  return pages
    .flatMap((p) => p.data.map((a) => a.value))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
    .map((a) => `${a.type} ${(a.data as { tier?: { name?: string } }).tier?.name}`)
}

/**
 * A member's tier under concurrent requests (docs/storage.md#a-members-tier): moves are written with
 * the card's increment, guarded with the balance, and the answers for another request's move or an
 * edge crossed meanwhile ride in the commit, so the tier is the final balance's, each edge crossed
 * announced once, in about one commit per request.
 */
export const TIER_FAMILIES: readonly Family[] = [
  {
    name: "one member's paid orders crossing tier edges",
    async before(e, s) {
      if (call(s) > 0) return
      await e.loyalties.createTiers(s.club, TIERS)
      await e.loyalties.createMember(s.club, { customer: { source_id: MEMBER } })
    },
    request: (e) => e.orders.create({ customer: { source_id: MEMBER }, status: 'PAID', amount: 10_000 }),
    expected: (n) => ({ ok: n }),
    // One commit per request on the memory store; from 4 processes on PostgreSQL 120 orders took up
    // to 146 commits in five runs (three within 144): a few attempts find a tier held at commit that no
    // answer covers (a member with no standing when read, two edges past the tier held) and decide
    // again. The bound leaves room for a loaded machine's wider races (one member's own orders, not a
    // row distinct customers share); before the prepared answers it took 2.8 per request.
    commitsPerRequest: 1.5,
    async check(e, s, n) {
      await cardMatchesBuckets(e, s, 10 * n, 10 * n)
      const card = await memberCard(e, s)
      assert.equal((await e.loyalties.getMemberTier(null, card.id))?.name ?? null, tierFor(10 * n))
      const reached = TIERS.filter((t) => t.points.from <= 10 * n).map((t) => t.name)
      // Each edge announced once; an answer prepared by an attempt carries that attempt's time, so the
      // events need not be in the order of the commits.
      assert.deepEqual(
        (await tierEvents(e, MEMBER)).sort(),
        reached.map((name, i) => `customer.loyalty.tier.${i === 0 ? 'joined' : 'upgraded'} ${name}`).sort(),
      )
    },
  },
  {
    name: 'distinct members each crossing into a tier at once',
    async before(e, s, c) {
      if (call(s) === 0) await e.loyalties.createTiers(s.club, TIERS)
      await e.loyalties.createMember(s.club, { customer: { source_id: c } })
    },
    request: (e, _s, c) => e.orders.create({ customer: { source_id: c }, status: 'PAID', amount: 10_000 }),
    expected: (n) => ({ ok: n }),
    async check(e, s, n) {
      const cards = await engineContext(e).store.vouchers.list({
        where: { campaign_id: s.club },
        limit: 100,
        count: true,
      })
      assert.equal(cards.total, n)
      for (const { value: card } of cards.data) {
        assert.equal(card.loyalty_card?.balance, 10)
        assert.equal((await e.loyalties.getMemberTier(null, card.id))?.name, 'Bronze')
        const holder = await engineContext(e).store.customers.get(card.holder_id ?? '')
        assert.deepEqual(await tierEvents(e, holder?.value.source_id ?? ''), ['customer.loyalty.tier.joined Bronze'])
      }
    },
  },
]

/** Every entity the change feed's last change names is stored as that change says, and nothing else changed. */
export async function feedMatchesStore(store: Store): Promise<number> {
  const last = new Map<string, { op: string; version: number; value: unknown }>()
  let after = 0
  for (;;) {
    const page = await store.changes({ after, limit: 1000 })
    for (const c of page.data) {
      const slot = `${c.collection}/${c.id}`
      const before = last.get(slot)
      // The feed lists one entity's writes in the order they were made (docs/storage.md#change-feed).
      if (before?.op === 'put' && c.op === 'put')
        assert.ok(c.version > before.version, `${slot}: version ${c.version} listed after ${before.version}`)
      last.set(slot, c)
    }
    after = page.next_after
    if (!page.has_more) break
  }
  const byCollection = new Map<string, string[]>()
  for (const slot of last.keys()) {
    const [collection = '', ...rest] = slot.split('/')
    byCollection.set(collection, [...(byCollection.get(collection) ?? []), rest.join('/')])
  }
  for (const [collection, ids] of byCollection) {
    const repo = store[collection as keyof Store] as unknown as {
      getMany(ids: readonly string[]): Promise<{ value: { id: string }; version: number }[]>
    }
    const found = new Map((await repo.getMany(ids)).map((s) => [s.value.id, s]))
    for (const id of ids) {
      const change = last.get(`${collection}/${id}`) as { op: string; version: number; value: unknown }
      const stored = found.get(id)
      if (change.op === 'delete') assert.equal(stored, undefined, `${collection}/${id} deleted`)
      else {
        assert.equal(stored?.version, change.version, `${collection}/${id}: the feed's version is the stored one`)
        assert.deepEqual(stored?.value, change.value, `${collection}/${id}: the feed's value is the stored one`)
      }
    }
  }
  return last.size
}

/** Tallies outcomes. */
export function tally(outcomes: readonly Outcome[]): Record<Outcome, number> {
  const out: Record<Outcome, number> = {}
  for (const o of outcomes) out[o] = (out[o] ?? 0) + 1
  return out
}

/** Every family the hot-rows suites race: distinct customers on shared rows, then one member's own card. */
export const ALL_FAMILIES: readonly Family[] = [...FAMILIES, ...MEMBER_FAMILIES, ...TIER_FAMILIES]
