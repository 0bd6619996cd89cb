import { createEngine } from '../../src'

const engine = createEngine()
await engine.vouchers.create({ code: 'GIFT-100', type: 'GIFT_VOUCHER', gift: { amount: 10000 } })

// Spend $30 of the card on a $45 order: the card pays part of the order, like a prepaid payment.
const paid = await engine.redemptions.redeemStackable({
  customer: { source_id: 'maria' },
  order: { items: [{ source_id: 'book', price: 4500, quantity: 1 }] },
  redeemables: [{ object: 'voucher', id: 'GIFT-100', gift: { credits: 3000 } }],
})
const card = await engine.vouchers.get('GIFT-100')
console.log(paid.order.total_amount, card.gift?.balance) // 1500 7000
