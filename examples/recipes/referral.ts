import { createEngine } from '../../src'

const engine = createEngine()
// A referral program: each code gives the friend $10 off.
await engine.campaigns.create({
  name: 'Refer a friend',
  campaign_type: 'REFERRAL_PROGRAM',
  vouchers_count: 10,
  voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1000 } },
})
await engine.customers.create({ source_id: 'alice' })
const published = await engine.referrals.publish('Refer a friend', { customer: { source_id: 'alice' } })
const code = published.voucher?.code ?? ''

// Bob redeems Alice's code and becomes a holder of it.
const order = { items: [{ source_id: 'tent', price: 8000, quantity: 1 }] }
const bob = await engine.redemptions.redeemStackable({
  customer: { source_id: 'bob' },
  order,
  redeemables: [{ object: 'voucher', id: code }],
})
// Alice may not redeem her own code.
const alice = await engine.validations.validateStackable({
  customer: { source_id: 'alice' },
  order,
  redeemables: [{ object: 'voucher', id: code }],
})
const holders = await engine.referrals.listHolders(code)
const refused = alice.inapplicable_redeemables[0]?.result ?? {}
const key = 'error' in refused ? refused.error.key : undefined
console.log(bob.order.total_amount, key, holders.data.length) // 7000 referrer_not_permitted_to_redeem 2
