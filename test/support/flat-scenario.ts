import type { Engine } from '../../src/engine'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import type { CollectionName, Store, Write } from '../../src/storage/ports'

/*
 * The flat-cost scenario (docs/storage.md#indexes), shared by `bench/flat-cost.ts` (times) and the
 * flat-rows tests (rows read, counted): the requests of a checkout, a member and a publication on a
 * store whose rows grow where the requests look. For a store of n rows: n customers, codes of
 * another campaign, redemptions (half of them on the code and the tier under test), activities,
 * orders and publications; n/2 live session locks on the code under test, counted on its row; n/20
 * live points buckets of the member, counted in the card's stored summary. Fixed beside them: the
 * member's spent buckets and past activities.
 */

/** Points per live bucket of the member: enough that the runs never empty the smallest store's. */
export const BUCKET_POINTS = 100

/** What the requests under test name. */
export interface FlatShop {
  codes: { id: string; code: string }[]
  couponsId: string
  tierId: string
  promoId: string
  welcomeId: string
  clubId: string
  card: { id: string; code: string }
  memberId: string
  coinId: string
}

/** Writes new entities: by store commits, or (a bench on PostgreSQL) by a bulk load into the same tables. */
export type Fill = (writes: Write[]) => Promise<void>

export const put = (collection: CollectionName, value: Record<string, unknown>): Write =>
  ({ op: 'put', collection, value, expectedVersion: null, shape: currentShape(collection) }) as Write

/** Commits new entities in chunks of `chunk` writes. */
export function commitFill(store: Store, chunk = 5000): Fill {
  return async (writes) => {
    for (let i = 0; i < writes.length; i += chunk) {
      const r = await store.commit({ writes: writes.slice(i, i + chunk) })
      if (!r.ok) throw new Error(`filler commit failed: ${JSON.stringify(r.conflict)}`)
    }
  }
}

/** The shop: what the requests use, through the engine, before any filler. */
export async function flatShop(engine: Engine, store: Store): Promise<FlatShop> {
  await engine.products.create({ source_id: 'shoe', name: 'Shoe', price: 5000 })
  const coupons = await engine.campaigns.create({
    name: 'Coupons',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'STATIC',
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } },
    vouchers_count: 3,
  })
  await engine.asyncActions.runPending()
  const codes = (await store.vouchers.list({ where: { campaign_id: coupons.id } })).data.map((s) => ({
    id: s.value.id,
    code: s.value.code,
  }))
  const budget = await engine.validationRules.create({
    name: 'budget',
    rules: {
      '1': { name: 'campaign.redemptions.count', conditions: { $less_than: [10_000_000] } },
      '2': { name: 'redemption.count.per_customer.daily', conditions: { $less_than: [10_000_000] } },
    },
  })
  await engine.validationRules.createAssignment(budget.id, {
    related_object_type: 'campaign',
    related_object_id: coupons.id,
  })
  await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 100_000_000 } })
  const promo = await engine.promotions.create({
    name: 'Promo',
    campaign_type: 'PROMOTION',
    promotion: { tiers: [{ name: 'Off', action: { discount: { type: 'AMOUNT', amount_off: 100 } } }] },
  })
  const welcome = await engine.campaigns.create({
    name: 'Welcome',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'AUTO_UPDATE',
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    vouchers_count: 0,
  })
  const club = await engine.loyalties.create({
    name: 'Club',
    type: 'AUTO_UPDATE',
    vouchers_count: 0,
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
  })
  await engine.loyalties.createEarningRule(club.id, [
    {
      event: 'order.paid',
      loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 100, points: 1 } } },
    },
  ])
  const card = await engine.loyalties.createMember(club.id, { customer: { source_id: 'member' } })
  const coin = await engine.rewards.create({
    name: 'Coin',
    type: 'COIN',
    parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } },
  })
  await engine.rewards.createAssignment(coin.id, { campaign: club.id })
  await engine.orders.create({ customer: { source_id: 'member' }, status: 'PAID', amount: 10_000_000 })
  // The locked code has a quantity, so that its counted locks are what the guard compares.
  const quantity = await store.commit({
    writes: [
      {
        op: 'increment',
        collection: 'vouchers',
        id: codes[0]?.id ?? '',
        by: {},
        set: { 'redemption.quantity': 10_000_000 },
      },
    ],
  })
  if (!quantity.ok) throw new Error(`quantity: ${JSON.stringify(quantity.conflict)}`)
  return {
    codes,
    couponsId: coupons.id,
    tierId: promo.promotion?.tiers[0]?.id ?? '',
    promoId: promo.id,
    welcomeId: welcome.id,
    clubId: club.id,
    card: { id: card.id, code: card.code },
    memberId: card.holder_id ?? '',
    coinId: coin.id,
  }
}

const t = (i: number) => new Date(Date.parse('2025-01-01T00:00:00.000Z') + i * 1000).toISOString()
/** Live rows expire two years on, each a minute after the one before. */
const later = (i: number) => new Date(Date.parse('2028-01-01T00:00:00.000Z') + i * 60_000).toISOString()

/** The member's history, which does not grow with the store: `activities` past activities, `spent` spent buckets. */
export async function fillMember(
  shop: FlatShop,
  fill: Fill,
  { activities, spent }: { activities: number; spent: number },
): Promise<void> {
  const writes: Write[] = []
  for (let i = 0; i < activities; i++) {
    writes.push(
      put('activities', {
        id: `act_m${i}`,
        type: 'customer.filler',
        customer_id: shop.memberId,
        category: 'ACTION',
        data: {},
        created_at: t(i),
        object: 'customer_activity',
      }),
    )
  }
  for (let i = 0; i < spent; i++) {
    writes.push(
      put('points_buckets', {
        id: `lpb_m${i}`,
        voucher_id: shop.card.id,
        campaign_id: shop.clubId,
        customer_id: shop.memberId,
        points: 1,
        remaining: 0,
        expired: 0,
        status: 'SPENT',
        source: { type: 'manual' },
        expires_at: null,
        created_at: t(i),
        object: 'points_bucket',
      }),
    )
  }
  await fill(writes)
}

/**
 * Grows the store from `from` to `to` rows (both even multiples of 20): the filler rows of indexes
 * [from, to), the live locks [from/2, to/2) on the code under test and the member's live buckets
 * [from/20, to/20), then the counters that count them (the code's `session_locks.count`, the card's
 * stored summary) moved by what was added.
 */
export async function grow(store: Store, shop: FlatShop, fill: Fill, from: number, to: number): Promise<void> {
  const code = shop.codes[0]?.id ?? ''
  const writes: Write[] = []
  for (let i = from; i < to; i++) {
    writes.push(
      put('customers', { id: `cust_f${i}`, source_id: `f${i}`, metadata: {}, created_at: t(i), object: 'customer' }),
    )
    writes.push(
      put('vouchers', {
        id: `v_f${i}`,
        code: `F${i}`,
        campaign_id: shop.welcomeId,
        holder_id: null,
        created_at: t(i),
        publish: { count: 0 },
        redemption: { quantity: null, redeemed_quantity: 0 },
      }),
    )
    const mine = i % 4
    writes.push(
      put('redemptions', {
        id: `r_f${i}`,
        date: t(i),
        customer_id: `cust_f${i}`,
        redemption: `r_fp${i}`,
        result: 'SUCCESS',
        status: 'SUCCEEDED',
        related_object_type: mine === 0 ? 'voucher' : 'promotion_tier',
        related_object_id: mine === 0 ? code : mine === 1 ? shop.tierId : `v_f${i}`,
        related_object_parent_id: mine === 0 ? shop.couponsId : mine === 1 ? shop.promoId : shop.welcomeId,
        channel: { channel_id: null, channel_type: 'API' },
        object: 'redemption',
      }),
    )
    writes.push(
      put('activities', {
        id: `act_f${i}`,
        type: 'customer.filler',
        customer_id: `cust_f${i}`,
        category: 'ACTION',
        data: {},
        created_at: t(i),
        object: 'customer_activity',
      }),
    )
    writes.push(
      put('orders', {
        id: `ord_f${i}`,
        source_id: `of${i}`,
        amount: 1000,
        items: [],
        status: 'PAID',
        created_at: t(i),
        object: 'order',
      }),
    )
    writes.push(
      put('publications', {
        id: `pub_f${i}`,
        voucher_id: `v_f${i}`,
        campaign_id: shop.welcomeId,
        customer_id: `cust_f${i}`,
        created_at: t(i),
        object: 'publication',
      }),
    )
  }
  for (let i = from / 2; i < to / 2; i++) {
    writes.push(
      put('sessions', {
        id: `ssn_f${i}`,
        key: `held${i}`,
        voucher_id: code,
        promotion_tier_id: null,
        type: 'LOCK',
        ttl: 7,
        ttl_unit: 'DAYS',
        credits: 0,
        points: 0,
        expires_at: later(i),
        created_at: t(i),
        released_at: null,
        counted: true,
      }),
    )
  }
  for (let i = from / 20; i < to / 20; i++) {
    writes.push(
      put('points_buckets', {
        id: `lpb_l${i}`,
        voucher_id: shop.card.id,
        campaign_id: shop.clubId,
        customer_id: shop.memberId,
        points: BUCKET_POINTS,
        remaining: BUCKET_POINTS,
        expired: 0,
        status: 'ACTIVE',
        source: { type: 'manual' },
        expires_at: later(i),
        created_at: t(i),
        object: 'points_bucket',
      }),
    )
  }
  await fill(writes)
  const added = { locks: (to - from) / 2, points: ((to - from) / 20) * BUCKET_POINTS }
  const counted = await store.commit({
    writes: [
      { op: 'increment', collection: 'vouchers', id: code, by: { 'session_locks.count': added.locks } },
      {
        op: 'increment',
        collection: 'vouchers',
        id: shop.card.id,
        by: { 'loyalty_card.points': added.points, 'loyalty_card.balance': added.points },
      },
    ],
  })
  if (!counted.ok) throw new Error(`counters: ${JSON.stringify(counted.conflict)}`)
}

/** The operations measured, by name, on `engine` (whose store holds the scenario). */
export function flatOperations(engine: Engine, shop: FlatShop): Record<string, () => Promise<unknown>> {
  const order = { items: [{ source_id: 'shoe', quantity: 2 }] }
  const redeemables = [
    { object: 'voucher', id: shop.codes[0]?.code },
    { object: 'voucher', id: shop.codes[1]?.code },
    { object: 'voucher', id: shop.codes[2]?.code },
    { object: 'voucher', id: 'GIFT', gift: { credits: 100 } },
    { object: 'promotion_tier', id: shop.tierId },
  ]
  let k = 0
  return {
    'validate (5 redeemables)': () =>
      engine.raw.validations.validateStackable({ customer: { source_id: 'member' }, order, redeemables }),
    'validate with a session (the locked code)': () =>
      engine.raw.validations.validateStackable({
        customer: { source_id: 'member' },
        order,
        redeemables: [{ object: 'voucher', id: shop.codes[0]?.code }],
        session: { type: 'LOCK', key: 'bench-session' },
      }),
    'redeem (5 redeemables)': () =>
      engine.raw.redemptions.redeemStackable({ customer: { source_id: 'member' }, order, redeemables }),
    "member's paid order": () =>
      engine.orders.create({ customer: { source_id: 'member' }, status: 'PAID', amount: 10_000 }),
    "member's redemption paying 50 points (with earning)": () =>
      engine.raw.redemptions.redeemStackable({
        customer: { source_id: 'member' },
        order: { amount: 10_000 },
        redeemables: [{ object: 'voucher', id: shop.card.code, reward: { id: shop.coinId, points: 50 } }],
      }),
    'reward redemption': () =>
      engine.loyalties.redeemReward(shop.clubId, shop.card.id, {
        reward: { id: shop.coinId, points: 1 },
        order: { amount: 1000 },
      }),
    publication: () =>
      engine.publications.create({ campaign: { name: 'Welcome' }, customer: { source_id: `pub${k++}` } }),
    'activity page (10)': () => engine.customers.listActivity(shop.memberId, { limit: 10 }),
  }
}
