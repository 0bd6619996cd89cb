import { createEngine, type ValidationsValidateStackableParams } from '../src'

const engine = createEngine({ timezone: 'Europe/Warsaw' })

await engine.vouchers.create({
  code: 'SPRING20',
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ORDER' },
  redemption: { quantity: 100 },
})
const promotion = await engine.promotions.create({
  name: 'Big basket',
  promotion: { tiers: [{ name: '$10 off', action: { discount: { type: 'AMOUNT', amount_off: 1000 } } }] },
})
const tier = promotion.promotion.tiers[0]?.id ?? ''

const request: ValidationsValidateStackableParams = {
  customer: { source_id: 'customer-42' },
  order: { items: [{ source_id: 'sku-1', price: 6000, quantity: 2 }] },
  redeemables: [
    { object: 'voucher', id: 'SPRING20' },
    { object: 'promotion_tier', id: tier },
  ],
}
const validation = await engine.validations.validateStackable(request)
console.log(validation.valid, validation.order.total_discount_amount, validation.order.total_amount) // true 3400 8600
const redemption = await engine.redemptions.redeemStackable(request)
console.log(redemption.parent_redemption.result, redemption.order.status) // SUCCESS PAID
