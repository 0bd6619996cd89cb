import type { EvaluationContext } from '../../../src/rules/conditions/evaluation-context'

/** A cart: 2 phones at 50000, 3 cases at 2000, 1 cable (SKU) at 1500. */
export function baseContext(overrides: Partial<EvaluationContext> = {}): EvaluationContext {
  return {
    order: {
      amount: 107500,
      total_amount: 97500,
      initial_amount: 110000,
      metadata: { channel: 'web', store: { city: 'Warsaw' } },
      items: [
        { product_id: 'prod_phone', price: 50000, quantity: 2, amount: 100000, metadata: { brand: 'acme' } },
        { product_id: 'prod_case', price: 2000, quantity: 3, amount: 6000, product: { metadata: { color: 'red' } } },
        { product_id: 'prod_cable', sku_id: 'sku_cable_1m', price: 1500, quantity: 1, amount: 1500 },
      ],
    },
    customer: {
      id: 'cust_1',
      source_id: 'alice',
      metadata: { tier: 'gold', age: 31 },
      segments: ['seg_new', 'seg_vip'],
      loyalty_tiers: ['ltr_silver'],
    },
    redemption: { metadata: { channel: 'pos' }, gift_credits: 2500, points_used: 300, discount_amount: 10000 },
    counters: {
      campaign_orders_amount: 900000,
      campaign_orders_amount_discounted: 45000,
      campaign_redemptions: { total: 99, daily: 4, weekly: 10, monthly: 30 },
      campaign_customers: { total: 50, daily: 2, weekly: 5, monthly: 20 },
      customer_campaign_redemptions: { total: 1, daily: 0, weekly: 1, monthly: 1 },
      redemptions: { total: 20, daily: 1, weekly: 3, monthly: 9 },
      customer_redemptions: { total: 2, daily: 0, weekly: 1, monthly: 2 },
    },
    publication: { holder_id: 'cust_1' },
    custom_event: { metadata: { source: 'app' } },
    now: new Date('2024-03-08T12:00:00Z'),
    timeZone: 'UTC',
    collections: { pcol_accessories: { products: ['prod_case'], skus: ['sku_cable_1m'] } },
    ...overrides,
  }
}
