import { bench, describe } from 'vitest'
import type { EarningLoyalty, EarningRule, MappingPoints } from '../src/model/loyalty'
import { calculateEarnedPoints, type EarningInput, selectEarningRules } from '../src/rules/earned-points'
import { qualifyTier, transitionTier } from '../src/rules/tiers'

// Deterministic data: a small LCG instead of Math.random so every run measures the same work.
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}
const rnd = lcg(42)
const int = (max: number) => Math.floor(rnd() * max)

const loyalties: EarningLoyalty[] = [
  { type: 'FIXED', points: 5 },
  { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1000, points: 1 } } },
  { type: 'PROPORTIONAL', calculation_type: 'ORDER_TOTAL_AMOUNT', order: { total_amount: { every: 500, points: 10 } } },
  {
    type: 'PROPORTIONAL',
    calculation_type: 'ORDER_METADATA',
    order: { metadata: { every: 2, points: 1, property: 'store_visits' } },
  },
  {
    type: 'PROPORTIONAL',
    calculation_type: 'ORDER_ITEMS_AMOUNT',
    order_items: { amount: { every: 200, points: 1, object: 'product', id: 'prod_3' } },
  },
  {
    type: 'PROPORTIONAL',
    calculation_type: 'ORDER_ITEMS_SUBTOTAL_AMOUNT',
    order_items: { subtotal_amount: { every: 200, points: 1, object: 'products_collection', id: 'col_1' } },
  },
  {
    type: 'PROPORTIONAL',
    calculation_type: 'ORDER_ITEMS_QUANTITY',
    order_items: { quantity: { every: 1, points: 2, object: 'sku', id: 'sku_7' } },
  },
  {
    type: 'PROPORTIONAL',
    calculation_type: 'CUSTOMER_METADATA',
    customer: { metadata: { every: 1, points: 1, property: 'age' } },
  },
]
const rules: EarningRule[] = Array.from({ length: 20 }, (_, i) => ({
  id: `ern_${i}`,
  campaign_id: 'camp_1',
  validation_rule_id: null,
  loyalty: loyalties[i % loyalties.length] as EarningLoyalty,
  event: 'order.paid',
  source: { object_id: 'camp_1', object_type: 'campaign' },
  active: true,
  start_date: '2025-01-01T00:00:00Z',
  expiration_date: '2026-01-01T00:00:00Z',
  metadata: {},
  created_at: '2025-01-01T00:00:00Z',
  updated_at: null,
  object: 'earning_rule',
}))
const mappings: (MappingPoints | null)[] = [null, { type: 'MULTIPLY', multiplier: 1.5 }, { type: 'CUSTOM', points: 50 }]
const collections = { col_1: { products: ['prod_1', 'prod_2'], skus: ['sku_9'] } }

const ORDERS = 100_000
const orders: EarningInput[] = Array.from({ length: ORDERS }, () => {
  const items = Array.from({ length: 1 + int(5) }, () => {
    const p = int(10)
    const quantity = 1 + int(3)
    const amount = quantity * (500 + int(10_000))
    return { product_id: `prod_${p}`, sku_id: `sku_${p}`, quantity, amount, subtotal_amount: amount - int(200) }
  })
  const amount = items.reduce((s, it) => s + it.amount, 0)
  return {
    order: { amount, total_amount: amount - int(1000), metadata: { store_visits: int(20) }, items },
    customer: { metadata: { age: 18 + int(60) } },
    collections,
  }
})
const now = new Date('2025-06-15T12:00:00Z')

const tiers = [
  { id: 'bronze', points: { from: 1, to: 249 } },
  { id: 'silver', points: { from: 250, to: 499 } },
  { id: 'gold', points: { from: 500, to: 999 } },
  { id: 'platinum', points: { from: 1000, to: 4999 } },
  { id: 'diamond', points: { from: 5000, to: null } },
]
const MEMBERS = 100_000
const balances = Array.from({ length: MEMBERS }, () => int(8000))

describe('loyalty rules', () => {
  bench(
    'earning: 100,000 paid orders × 20 earning rules (select + points + tier mapping)',
    () => {
      let total = 0
      for (let i = 0; i < ORDERS; i++) {
        const order = orders[i] as EarningInput
        const mapping = mappings[i % 3] ?? null
        for (const rule of selectEarningRules(rules, { event: 'order.paid', now, timeZone: 'UTC' })) {
          total += calculateEarnedPoints(rule.loyalty, order, mapping)
        }
      }
      if (total <= 0) throw new Error('no points')
    },
    { iterations: 10, time: 0, warmupIterations: 2, warmupTime: 0 },
  )

  bench(
    'tiers: qualifyTier for 100,000 members (5 tiers)',
    () => {
      let held = 0
      for (let i = 0; i < MEMBERS; i++) if (qualifyTier(tiers, balances[i] as number) !== null) held++
      if (held === 0) throw new Error('no tiers')
    },
    { iterations: 20, time: 0, warmupIterations: 2, warmupTime: 0 },
  )

  bench(
    'tiers: transitionTier (BALANCE, END_OF_PERIOD dates) for 100,000 members',
    () => {
      let events = 0
      for (let i = 0; i < MEMBERS; i++) {
        const r = transitionTier({
          tiers,
          config: { qualification_type: 'BALANCE', expiration_date: { type: 'END_OF_PERIOD' } },
          current: null,
          points: balances[i] as number,
          now,
          timeZone: 'Europe/Warsaw',
          customerId: `cust_${i}`,
          campaignId: 'camp_1',
        })
        events += r.events.length
      }
      if (events === 0) throw new Error('no events')
    },
    { iterations: 10, time: 0, warmupIterations: 2, warmupTime: 0 },
  )
})
