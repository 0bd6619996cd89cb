/**
 * The recipe "show the customer what they can use and earn, then apply the best": a qualification
 * lists the offers Ana's cart qualifies for, the loyalty estimate says what paying earns, and the
 * best stack picks the combination that takes the most off, ready to redeem.
 */
import { createEngine, seededRandom } from '../src'

const engine = createEngine({
  clock: { now: () => new Date('2026-11-24T10:00:00Z') },
  random: seededRandom(7),
  // Two offers per order at most: the best stack has to choose.
  stackingRules: { applicable_redeemables_limit: 2 },
})
const money = (cents: number) => `$${(cents / 100).toFixed(2)}`

// A shop: shoes, a coupon in Ana's wallet, two promotion tiers (one on shoes), a loyalty program.
const shoes = await engine.products.create({ name: 'Running shoes', source_id: 'shoes', price: 12000 })
await engine.products.create({ name: 'Socks', source_id: 'socks', price: 1500 })
await engine.vouchers.create({
  code: 'ANA15',
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'PERCENT', percent_off: 15 },
})
await engine.publications.create({ customer: { source_id: 'ana' }, voucher: 'ANA15' })
const sale = await engine.promotions.create({
  name: 'Winter sale',
  promotion: {
    tiers: [
      { name: '$20 off shoes', action: { discount: { type: 'AMOUNT', amount_off: 2000, effect: 'APPLY_TO_ITEMS' } } },
      { name: '$5 off everything', action: { discount: { type: 'AMOUNT', amount_off: 500 } } },
    ],
  },
})
const onShoes = await engine.validationRules.create({
  name: 'Shoes',
  rules: {},
  applicable_to: { included: [{ object: 'product', id: shoes.id }] },
})
const [shoesTier] = sale.promotion.tiers
await engine.validationRules.createAssignment(onShoes.id, {
  related_object_type: 'promotion_tier',
  related_object_id: shoesTier?.id ?? '',
})
const club = await engine.loyalties.create({
  name: 'Club',
  type: 'AUTO_UPDATE',
  vouchers_count: 1,
  voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'CLUB-####' } },
})
await engine.asyncActions.runPending()
await engine.loyalties.createEarningRule(club.id, [
  {
    event: 'order.paid',
    loyalty: {
      type: 'PROPORTIONAL',
      calculation_type: 'ORDER_TOTAL_AMOUNT',
      order: { total_amount: { every: 100, points: 1 } },
    },
  },
])
await engine.loyalties.createMember(club.id, { customer: { source_id: 'ana' } })

const customer = { source_id: 'ana' }
const order = {
  items: [
    { source_id: 'shoes', related_object: 'product', quantity: 1 },
    { source_id: 'socks', related_object: 'product', quantity: 2 },
  ],
}

// 1. What can Ana use on this cart? Best deal first, each with what it takes off.
const offers = await engine.qualifications.checkEligibility({
  customer,
  order,
  options: { sorting_rule: 'BEST_DEAL', expand: ['redeemable'] },
})
const label = new Map(offers.redeemables.data.map((o) => [o.id, o.object === 'voucher' ? o.id : (o.name ?? o.id)]))
for (const offer of offers.redeemables.data) {
  console.log(`${label.get(offer.id)}: ${money(offer.order?.total_applied_discount_amount ?? 0)} off`)
}

// 2. What would paying earn? (Nothing is written.)
const estimate = await engine.loyalties.qualifications(club.id, { customer, order })
console.log(`Paying the whole cart earns ${estimate.points_estimation} points`)

// 3. The best combination, as a ready request: redeem it.
const best = await engine.qualifications.bestStack({ customer, order })
const chosen = best.request?.redeemables.map((r) => label.get(r.id) ?? r.id) ?? []
console.log(`Best stack: ${chosen.join(' + ')}, ${money(best.total_discount)} off`)
for (const out of best.left_out) console.log(`Left out: ${label.get(out.id) ?? out.id} (${out.reason.message})`)
if (best.request) {
  const redemption = await engine.redemptions.redeemStackable(best.request)
  console.log(`Redeemed: ${redemption.parent_redemption.result}, to pay ${money(redemption.order.total_amount)}`)
}
