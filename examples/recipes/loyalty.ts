import { createEngine } from '../../src'

const engine = createEngine()
const program = await engine.loyalties.create({
  name: 'Coffee club',
  type: 'AUTO_UPDATE',
  voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
})
// Earning rule: 1 point for every $1 of a paid order.
await engine.loyalties.createEarningRule(program.id, [
  {
    event: 'order.paid',
    loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 100, points: 1 } } },
  },
])
// A reward: a $5 coupon for 30 points.
const coupons = await engine.campaigns.create({
  name: 'Reward coupons',
  campaign_type: 'DISCOUNT_COUPONS',
  voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
})
const reward = await engine.rewards.create({
  name: '$5 off',
  type: 'CAMPAIGN',
  parameters: { campaign: { id: coupons.id } },
})
await engine.rewards.createAssignment(reward.id, { campaign: program.id, parameters: { loyalty: { points: 30 } } })

const card = await engine.loyalties.createMember(program.id, { customer: { source_id: 'li' } })
await engine.orders.create({
  source_id: 'o-1',
  customer: { source_id: 'li' },
  status: 'PAID',
  items: [{ source_id: 'beans', price: 4200, quantity: 1 }],
})
const earned = await engine.loyalties.getMember(program.id, card.code)
const redeemed = await engine.loyalties.redeemReward(program.id, card.code, { reward: { id: reward.id } })
const after = await engine.loyalties.getMember(program.id, card.code)
console.log(earned.loyalty_card?.balance, redeemed.amount, after.loyalty_card?.balance) // 42 30 12
