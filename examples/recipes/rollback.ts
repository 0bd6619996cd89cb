import { createEngine } from '../../src'

const engine = createEngine()
await engine.vouchers.create({
  code: 'SAVE15',
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'AMOUNT', amount_off: 1500 },
})
await engine.vouchers.create({ code: 'GIFT-40', type: 'GIFT_VOUCHER', gift: { amount: 4000 } })

const redemption = await engine.redemptions.redeemStackable({
  customer: { source_id: 'sam' },
  order: { source_id: 'order-7', items: [{ source_id: 'boots', price: 9000, quantity: 1 }] },
  redeemables: [
    { object: 'voucher', id: 'SAVE15' },
    { object: 'voucher', id: 'GIFT-40', gift: { credits: 4000 } },
  ],
})
// The customer returns the boots: roll back the whole (parent) redemption.
const rollback = await engine.redemptions.rollbackStackable(redemption.parent_redemption.id, { reason: 'returned' })
const coupon = await engine.vouchers.get('SAVE15')
const card = await engine.vouchers.get('GIFT-40')
// The coupon's use and the gift credits come back; the order is canceled (WITH_ORDER, the default).
console.log(rollback.order?.status, coupon.redemption.redeemed_quantity, card.gift?.balance) // CANCELED 0 4000
