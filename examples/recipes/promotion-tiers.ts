import { createEngine } from '../../src'

// PARTIAL: apply what applies and list the rest (the default, ALL, fails the whole request on one "no").
const engine = createEngine({ stackingRules: { redeemables_application_mode: 'PARTIAL' } })
// Two tiers: $10 off from $100, $25 off from $200. Each tier is a redeemable of its own.
const promotion = await engine.promotions.create({
  name: 'Spend more, save more',
  promotion: {
    tiers: [
      { name: '$10 off $100', action: { discount: { type: 'AMOUNT', amount_off: 1000 } } },
      { name: '$25 off $200', action: { discount: { type: 'AMOUNT', amount_off: 2500 } } },
    ],
  },
})
const [ten, twentyFive] = promotion.promotion.tiers
for (const [tier, from] of [
  [ten, 10000],
  [twentyFive, 20000],
] as const) {
  const rule = await engine.validationRules.create({
    name: `Order from ${from}`,
    rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [from] } } },
  })
  await engine.validationRules.createAssignment(rule.id, {
    related_object_type: 'promotion_tier',
    related_object_id: tier?.id ?? '',
  })
}

// A $150 cart qualifies for the first tier only.
const result = await engine.validations.validateStackable({
  order: { items: [{ source_id: 'lamp', price: 15000, quantity: 1 }] },
  redeemables: [
    { object: 'promotion_tier', id: ten?.id ?? '' },
    { object: 'promotion_tier', id: twentyFive?.id ?? '' },
  ],
})
console.log(result.redeemables.length, result.inapplicable_redeemables.length, result.order.total_amount) // 1 1 14000
