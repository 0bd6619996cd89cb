/**
 * Flat cost (docs/storage.md#indexes): the same requests on a store holding 1,000, 10,000 and 100,000
 * rows per collection, with the growth where the requests look (half of the redemptions on the code
 * and the tier under test, one member with 5,000 spent points buckets and 10,000 activities, budget
 * rules assigned so that counters are read), and live rows that grow with the store: n/2 live session
 * locks on the code under test and n/20 live points buckets of the member (50,000 and 5,000 at
 * 100,000 rows): a member's paid order earns without reading them, a reward redemption and a
 * redemption paying with points read only the buckets they spend. Rows are written by direct store commits (on PostgreSQL by a
 * bulk load into the same tables, bench/postgres/fill.ts: 615,000 rows through the commit function
 * take too long to wait for).
 *
 *   npx tsx bench/flat-cost.ts            # 1000,10000,100000
 *   npx tsx bench/flat-cost.ts 1000 10000
 *   npx tsx bench/flat-cost.ts --postgres             # on PostgreSQL (PROMO_PG_URL, else embedded)
 *
 * Prints a Markdown table of medians (ms) per operation and size, and the ratio of the largest size
 * to the smallest. Not a test: times on a shared machine are noisy.
 */
import { loadavg } from 'node:os'
import { createEngine } from '../src/engine'
import { seededRandom } from '../src/ids'
import { createMemoryStore } from '../src/memory'
import { currentShape } from '../src/operations/kernel/shape-versions'
import type { CollectionName, Store, Write } from '../src/storage/ports'

const POSTGRES = process.argv.includes('--postgres')
const sizes = process.argv.slice(2).map(Number).filter(Boolean)
const SIZES = sizes.length > 0 ? sizes : [1_000, 10_000, 100_000]
const RUNS = 30
/** Points per live bucket of the member: enough that the runs never empty the 50 of the smallest store. */
const BUCKET_POINTS = 100

/** Writes the filler: by store commits, or on PostgreSQL by a bulk load into the same tables (bench/postgres/fill.ts). */
async function commitAll(store: Store, writes: Write[]): Promise<void> {
  if (POSTGRES) {
    const { bulkInsert } = await import('./postgres/fill')
    await bulkInsert(
      (await (pgUrl as NonNullable<typeof pgUrl>)).url,
      (store as unknown as { schema: string }).schema,
      writes,
    )
    return
  }
  for (let i = 0; i < writes.length; i += 5000) {
    const r = await store.commit({ writes: writes.slice(i, i + 5000) })
    if (!r.ok) throw new Error(`filler commit failed: ${JSON.stringify(r.conflict)}`)
  }
}

const put = (collection: string, value: Record<string, unknown>): Write =>
  ({ op: 'put', collection, value, expectedVersion: null, shape: currentShape(collection as CollectionName) }) as Write

/** The store under test: the memory store, or a fresh schema on PostgreSQL (`--postgres`). */
let pgUrl: Promise<{ url: string; stop(): Promise<void> }> | undefined
async function makeStore(n: number): Promise<Store & { stats: { queries?: number; rowsExamined?: number } }> {
  if (!POSTGRES) return createMemoryStore()
  const { server } = await import('./postgres/server')
  const { createPostgresStore } = await import('../src/postgres')
  pgUrl ??= server()
  const store = createPostgresStore({ connectionString: (await pgUrl).url, schema: `flat_${n}` })
  await store.migrate()
  return store
}

/** What a call examined: rows a memory list read, or queries sent to PostgreSQL. */
function examinedBy(store: { stats: { queries?: number; rowsExamined?: number } }): number {
  return POSTGRES ? (store.stats.queries ?? 0) : (store.stats.rowsExamined ?? 0)
}

async function scenario(n: number) {
  const store = await makeStore(n)
  let now = Date.parse('2026-06-01T10:00:00.000Z')
  const tick = () => {
    now += 1000
    return new Date(now)
  }
  const engine = createEngine({ store, clock: { now: tick }, random: seededRandom(3) })

  // What the requests under test use.
  await engine.products.create({ source_id: 'shoe', name: 'Shoe', price: 5000 })
  const coupons = await engine.campaigns.create({
    name: 'Coupons',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'STATIC',
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } },
    vouchers_count: 3,
  })
  await engine.asyncActions.runPending()
  const codes = (await store.vouchers.list({ where: { campaign_id: coupons.id } })).data.map((s) => s.value)
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
  const tierId = promo.promotion?.tiers[0]?.id ?? ''
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
  const member = card.holder_id ?? ''
  const coin = await engine.rewards.create({
    name: 'Coin',
    type: 'COIN',
    parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } },
  })
  await engine.rewards.createAssignment(coin.id, { campaign: club.id })
  await engine.orders.create({ customer: { source_id: 'member' }, status: 'PAID', amount: 10_000_000 })

  // Filler, where requests look.
  const t = (i: number) => new Date(Date.parse('2025-01-01T00:00:00.000Z') + i * 1000).toISOString()
  const code = codes[0]?.id ?? ''
  const writes: Write[] = []
  for (let i = 0; i < n; i++) {
    writes.push(
      put('customers', { id: `cust_f${i}`, source_id: `f${i}`, metadata: {}, created_at: t(i), object: 'customer' }),
    )
    writes.push(
      put('vouchers', {
        id: `v_f${i}`,
        code: `F${i}`,
        campaign_id: welcome.id,
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
        related_object_id: mine === 0 ? code : mine === 1 ? tierId : `v_f${i}`,
        related_object_parent_id: mine === 0 ? coupons.id : mine === 1 ? promo.id : welcome.id,
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
        campaign_id: welcome.id,
        customer_id: `cust_f${i}`,
        created_at: t(i),
        object: 'publication',
      }),
    )
  }
  for (let i = 0; i < 10_000; i++) {
    writes.push(
      put('activities', {
        id: `act_m${i}`,
        type: 'customer.filler',
        customer_id: member,
        category: 'ACTION',
        data: {},
        created_at: t(i),
        object: 'customer_activity',
      }),
    )
  }
  for (let i = 0; i < 5_000; i++) {
    writes.push(
      put('points_buckets', {
        id: `lpb_m${i}`,
        voucher_id: card.id,
        campaign_id: club.id,
        customer_id: member,
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
  // Live rows where requests look, growing with the store: session locks on the code under test
  // (50,000 at 100,000 rows) and the member's live points buckets (5,000 at 100,000 rows), each
  // expiring later than the one before, two years on.
  const later = (i: number) => new Date(Date.parse('2028-01-01T00:00:00.000Z') + i * 60_000).toISOString()
  for (let i = 0; i < n / 2; i++) {
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
  const liveBuckets = n / 20
  for (let i = 0; i < liveBuckets; i++) {
    writes.push(
      put('points_buckets', {
        id: `lpb_l${i}`,
        voucher_id: card.id,
        campaign_id: club.id,
        customer_id: member,
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
  await commitAll(store, writes)
  // The card's stored summary counts the live buckets written beside it.
  const summed = await store.commit({
    writes: [
      {
        op: 'increment',
        collection: 'vouchers',
        id: card.id,
        by: { 'loyalty_card.points': liveBuckets * BUCKET_POINTS, 'loyalty_card.balance': liveBuckets * BUCKET_POINTS },
      },
    ],
  })
  if (!summed.ok) throw new Error(`card summary: ${JSON.stringify(summed.conflict)}`)
  // The locked code has a quantity, and its counter counts the locks written beside it
  // (docs/storage.md#session-locks): a lock of it is a guarded increment, its own lock a read by key.
  const counted = await store.commit({
    writes: [
      {
        op: 'increment',
        collection: 'vouchers',
        id: code,
        by: { 'session_locks.count': n / 2 },
        set: { 'redemption.quantity': 10_000_000 },
      },
    ],
  })
  if (!counted.ok) throw new Error(`lock counter: ${JSON.stringify(counted.conflict)}`)

  const order = { items: [{ source_id: 'shoe', quantity: 2 }] }
  const redeemables = [
    { object: 'voucher', id: codes[0]?.code },
    { object: 'voucher', id: codes[1]?.code },
    { object: 'voucher', id: codes[2]?.code },
    { object: 'voucher', id: 'GIFT', gift: { credits: 100 } },
    { object: 'promotion_tier', id: tierId },
  ]
  let k = 0
  const ops: Record<string, () => Promise<unknown>> = {
    'validate (5 redeemables)': () =>
      engine.raw.validations.validateStackable({ customer: { source_id: 'member' }, order, redeemables }),
    'validate with a session (the locked code)': () =>
      engine.raw.validations.validateStackable({
        customer: { source_id: 'member' },
        order,
        redeemables: [{ object: 'voucher', id: codes[0]?.code }],
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
        redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 50 } }],
      }),
    'reward redemption': () =>
      engine.loyalties.redeemReward(club.id, card.id, { reward: { id: coin.id, points: 1 }, order: { amount: 1000 } }),
    publication: () =>
      engine.publications.create({ campaign: { name: 'Welcome' }, customer: { source_id: `pub${k++}` } }),
    'activity page (10)': () => engine.customers.listActivity(member, { limit: 10 }),
  }
  return { store, ops }
}

async function main() {
  const started = Date.now()
  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  )
  const table = new Map<string, number[]>()
  const examined = new Map<string, number[]>()
  for (const n of SIZES) {
    const filling = Date.now()
    const { store, ops } = await scenario(n)
    console.log(`${n} rows: set up and filled in ${((Date.now() - filling) / 1000).toFixed(1)} s`)
    for (const [name, op] of Object.entries(ops)) {
      for (let i = 0; i < 5; i++) await op()
      const times: number[] = []
      const rows0 = examinedBy(store)
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now()
        await op()
        times.push(performance.now() - s)
      }
      times.sort((a, b) => a - b)
      table.set(name, [...(table.get(name) ?? []), times[Math.floor(times.length / 2)] as number])
      examined.set(name, [...(examined.get(name) ?? []), (examinedBy(store) - rows0) / RUNS])
    }
  }
  console.log(
    `load average at end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; total ${((Date.now() - started) / 1000).toFixed(0)} s`,
  )
  const head = SIZES.map((n) => n.toLocaleString('en-US'))
  console.log(
    `| operation | ${head.map((h) => `${h} rows (ms)`).join(' | ')} | ${head.at(-1)} ÷ ${head[0]} | ${POSTGRES ? 'queries' : 'rows examined'} per call |`,
  )
  console.log(`| --- | ${SIZES.map(() => '---:').join(' | ')} | ---: | --- |`)
  for (const [name, times] of table) {
    const ratio = (times.at(-1) as number) / (times[0] as number)
    const rows = (examined.get(name) ?? []).map((r) => r.toFixed(0)).join(' / ')
    console.log(`| ${name} | ${times.map((x) => x.toFixed(3)).join(' | ')} | ${ratio.toFixed(2)}× | ${rows} |`)
  }
}

main()
  .then(async () => {
    if (pgUrl) await (await pgUrl).stop()
    process.exit(0)
  })
  .catch((e) => {
    console.error(e)
    process.exit(1)
  })
