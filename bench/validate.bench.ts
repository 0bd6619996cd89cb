import { bench, describe } from 'vitest'
import { createEngine, engineContext } from '../src/engine'
import { seededRandom } from '../src/ids'
import { loadRequest } from '../src/operations/checkout/load-request'
import { decideRedeemables } from '../src/rules/redeemables'
import { parseStackableRequest } from '../src/schema/stackable'

/**
 * `validateStackable` with 5 redeemables (2 coupons, 2 promotion tiers, a gift card) over a 100-line
 * order on the memory store, against its pure part alone (`decideRedeemables` on the input loaded
 * once): the difference is what parsing, reading through the ports and shaping the result cost.
 */

const NOW = new Date('2026-11-22T12:00:00.000Z')
const engine = createEngine({ clock: { now: () => NOW }, random: seededRandom(7) })

const products: string[] = []
for (let i = 0; i < 5; i++) {
  const p = await engine.raw.products.create({ name: `P${i}`, source_id: `p${i}`, price: 1000 + i * 500 })
  products.push(p.id)
}
const mugs = await engine.raw.validationRules.create({
  name: 'First two products',
  rules: { '1': { name: 'order.amount', conditions: { $more_than: [10000] } } },
  applicable_to: {
    included: [
      { object: 'product', id: products[0] },
      { object: 'product', id: products[1] },
    ],
  },
})
const items10 = await engine.vouchers.create({
  code: 'ITEMS10',
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS' },
})
await engine.validationRules.createAssignment(mugs.id, {
  related_object_type: 'voucher',
  related_object_id: items10.id,
})
await engine.vouchers.create({
  code: 'SPLIT500',
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'AMOUNT', amount_off: 50000, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' },
})
const campaign = await engine.promotions.create({
  name: 'Bench promotion',
  promotion: {
    tiers: [
      { name: '5% order', action: { discount: { type: 'PERCENT', percent_off: 5, effect: 'APPLY_TO_ORDER' } } },
      { name: '$20 order', action: { discount: { type: 'AMOUNT', amount_off: 2000, effect: 'APPLY_TO_ORDER' } } },
    ],
  },
})
await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 1_000_000 } })

const body = {
  redeemables: [
    { object: 'voucher', id: 'ITEMS10' },
    { object: 'voucher', id: 'SPLIT500' },
    ...campaign.promotion.tiers.map((t) => ({ object: 'promotion_tier', id: t.id })),
    { object: 'voucher', id: 'GIFT', gift: { credits: 5000 } },
  ],
  order: {
    items: Array.from({ length: 100 }, (_, i) => ({
      product_id: products[i % products.length],
      price: 1000 + ((i * 7919) % 50000),
      quantity: 1 + ((i * 31) % 7),
    })),
  },
}

const check = await engine.raw.validations.validateStackable(body)
if (!check.valid || check.redeemables.some((r) => r.status !== 'APPLICABLE')) {
  throw new Error(
    `bench setup: expected 5 applicable redeemables, got ${JSON.stringify(check.redeemables.map((r) => r.status))}`,
  )
}
const loaded = await loadRequest(engineContext(engine), parseStackableRequest(body), NOW, { sessionKey: undefined })

describe('validation: 5 redeemables over a 100-line order (memory store)', () => {
  bench('validateStackable (parse, load through the ports, decide, shape)', async () => {
    await engine.raw.validations.validateStackable(body)
  })

  bench('decideRedeemables alone (the pure decision on the loaded input)', () => {
    decideRedeemables(loaded.input)
  })

  bench('loadRequest alone (reads through the ports)', async () => {
    await loadRequest(engineContext(engine), parseStackableRequest(body), NOW, { sessionKey: undefined })
  })
})
