/**
 * The main job (`npm run demo`): a whole checkout on the in-memory store.
 * A catalogue, a 20% coupon, a promotion with tiers and a stack, a gift card and a loyalty program;
 * validate a cart, redeem it, pay the order (points, a tier upgrade), spend points on a reward,
 * roll the redemption back, and read the customer's activity feed. Each step prints one line of what
 * happened and why, naming the docs section (or the file) that decides it.
 */
import { createEngine, type RedeemableResult, seededRandom } from '../src'

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)

const money = (cents: number | undefined) => (cents === undefined ? '' : `$${(cents / 100).toFixed(2)}`)
let now = new Date('2026-11-20T10:00:00Z')
const engine = createEngine({
  clock: { now: () => now },
  random: seededRandom(2026),
  timezone: 'Europe/Warsaw',
  // Apply what applies and report the rest (the default, ALL, fails the whole cart on one bad code).
  stackingRules: { redeemables_application_mode: 'PARTIAL', applicable_redeemables_limit: 10 },
})

// Catalogue.
const shoes = await engine.products.create({ name: 'Running shoes', source_id: 'shoes', price: 12000 })
await engine.products.create({ name: 'Socks', source_id: 'socks', price: 1500 })
await engine.products.create({ name: 'Water bottle', source_id: 'bottle', price: 2500 })

// A 20% coupon, and a gift card with $50 on it.
await engine.vouchers.create({
  code: 'WELCOME20',
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ORDER' },
  redemption: { quantity: 1000 },
})
await engine.vouchers.create({ code: 'GIFT-50', type: 'GIFT_VOUCHER', gift: { amount: 5000 } })
await engine.vouchers.create({
  code: 'SUMMER-OLD',
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'AMOUNT', amount_off: 1500 },
  expiration_date: '2026-09-30T23:59:59Z',
})

// A promotion with two tiers in a stack: $10 off shoes, and 5% off baskets over $300.
const promotion = await engine.promotions.create({
  name: 'Autumn sale',
  promotion: {
    tiers: [
      { name: '$10 off shoes', action: { discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS' } } },
      { name: '5% off over $300', action: { discount: { type: 'PERCENT', percent_off: 5 } } },
    ],
  },
})
const [shoesTier, bigBasketTier] = promotion.promotion.tiers
const onlyShoes = await engine.validationRules.create({
  name: 'Shoes only',
  rules: {},
  applicable_to: { included: [{ object: 'product', id: shoes.id, effect: 'APPLY_TO_EVERY' }] },
})
await engine.validationRules.createAssignment(onlyShoes.id, {
  related_object_type: 'promotion_tier',
  related_object_id: shoesTier?.id ?? '',
})
const over300 = await engine.validationRules.create({
  name: 'Baskets over $300',
  error: { message: 'Spend over $300 to get 5% off.' },
  rules: { '1': { name: 'order.amount', conditions: { $more_than: [30000] } } },
})
await engine.validationRules.createAssignment(over300.id, {
  related_object_type: 'promotion_tier',
  related_object_id: bigBasketTier?.id ?? '',
})
const stack = await engine.promotions.stacks.createInCampaign(promotion.id, {
  name: 'Autumn stack',
  tiers: { ids: [shoesTier?.id ?? '', bigBasketTier?.id ?? ''], hierarchy_mode: 'MANUAL' },
})

// A loyalty program: 1 point per $1 paid, three tiers, and a reward.
const club = await engine.loyalties.create({
  name: 'Runners club',
  type: 'AUTO_UPDATE',
  vouchers_count: 1,
  voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 50 }, code_config: { pattern: 'RUN-####' } },
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
await engine.loyalties.createTiers(club.id, [
  { name: 'Bronze', points: { from: 0, to: 99 } },
  { name: 'Silver', points: { from: 100, to: 999 } },
  { name: 'Gold', points: { from: 1000, to: 100000 } },
])
const mug = await engine.rewards.create({
  name: 'Club mug',
  type: 'MATERIAL',
  stock: 10,
  parameters: { product: { id: shoes.id } },
})
await engine.rewards.createAssignment(mug.id, { campaign: club.id, parameters: { loyalty: { points: 100 } } })
// Ana joins: the card's 50 welcome points place her in Bronze at once.
const card = await engine.loyalties.createMember(club.id, { customer: { source_id: 'ana', name: 'Ana' } })
const tierAtJoin = await engine.loyalties.getMemberTier(club.id, card.code)
console.log(
  `Ana joined ${club.name}: card ${card.code} with ${card.loyalty_card?.balance} points; tier ${tierAtJoin?.name ?? 'none'}, because a new member is placed in the tier their card's points reach at once (docs/behaviour.md#tier-on-join)`,
)

// The cart.
const cart = {
  customer: { source_id: 'ana' },
  order: {
    source_id: 'order-1001',
    status: 'CREATED',
    items: [
      { source_id: 'shoes', related_object: 'product', quantity: 2 },
      { source_id: 'socks', related_object: 'product', quantity: 3 },
    ],
  },
  redeemables: [
    { object: 'voucher', id: 'WELCOME20' },
    { object: 'promotion_tier', id: shoesTier?.id },
    { object: 'promotion_tier', id: bigBasketTier?.id },
    { object: 'voucher', id: 'GIFT-50', gift: { credits: 2000 } },
    { object: 'voucher', id: 'SUMMER-OLD' },
  ],
  options: { expand: ['redeemable'] },
}

const validation = await engine.raw.validations.validateStackable(cart)
const all = [...validation.redeemables, ...validation.inapplicable_redeemables, ...validation.skipped_redeemables]
console.log(
  `\nValidation of order-1001 (cart ${money(validation.order.amount)}): valid=${validation.valid}, because ${validation.inapplicable_redeemables.length} of ${all.length} redeemables are inapplicable and valid is true only when none is; in PARTIAL mode the ${validation.redeemables.length} others still apply (docs/behaviour.md#partial-placement)`,
)
console.table(all.map(row))
// Gift credit is stored value the customer spends, like a payment; the order counts it with the discounts
// only because it lowers what is left to pay.
const giftCredits = sum(validation.redeemables.map((r) => ('gift' in r.result ? r.result.gift.credits : 0)))
console.log(
  `Order: amount ${money(validation.order.amount)}, discounts ${money(validation.order.total_discount_amount - giftCredits)}, gift card pays ${money(giftCredits)}, to pay ${money(validation.order.total_amount)}; the gift credit is the customer's stored value spent like a payment, not a discount (docs/concepts.md#gift-cards)`,
)

// A promotion stack is sent alone: its tiers apply in the stack's order, each checked on the running total.
const stackCheck = await engine.raw.validations.validateStackable({
  customer: cart.customer,
  order: cart.order,
  redeemables: [{ object: 'promotion_stack', id: stack.id }],
  options: { expand: ['redeemable'] },
})
const stackRows = [...stackCheck.redeemables, ...stackCheck.inapplicable_redeemables]
console.log(
  `Stack "${stack.name}" alone: ${stackRows.map((r) => `${r.name} ${r.status}`).join(', ')}; discounts ${money(stackCheck.order.total_discount_amount)}, because a stack's tiers apply in its order, each checked on the running total (docs/concepts.md#validation-and-redemption)`,
)

function row(r: RedeemableResult) {
  const result = r.result as Record<string, unknown>
  const error = result.error as { key: string; message: string; error?: { message: string } } | undefined
  return {
    redeemable: r.name ?? r.id,
    status: r.status,
    discount: money(r.order?.total_applied_discount_amount),
    why: error
      ? `${error.key}: ${error.error?.message ?? error.message}`
      : ((result.details as { message?: string })?.message ?? ''),
  }
}

// Redeem what applies; the order is stored as CREATED, then paid.
const redemption = await engine.raw.redemptions.redeemStackable({ ...cart, redeemables: cart.redeemables.slice(0, 4) })
console.log(
  `\nRedeemed: ${redemption.redemptions.length} redemptions under ${redemption.parent_redemption.id}; order ${redemption.order.id} ${redemption.order.status}, to pay ${money(redemption.order.total_amount)}; the request said CREATED, so nothing is paid and no points are earned yet (a redemption stores PAID unless told otherwise: docs/behaviour.md#redemptions)`,
)
now = new Date('2026-11-20T10:05:00Z')
const tierBefore = await engine.loyalties.getMemberTier(club.id, card.code)
const balanceBefore = (await engine.loyalties.getMember(club.id, card.code)).loyalty_card?.balance ?? 0
const paid = await engine.orders.update('order-1001', { status: 'PAID' })
const member = await engine.loyalties.getMember(club.id, card.code)
const earned = (member.loyalty_card?.balance ?? 0) - balanceBefore
const tierAfter = await engine.loyalties.getMemberTier(club.id, card.code)
console.log(
  `Paid ${money(paid.total_amount)}: card ${card.code} now has ${member.loyalty_card?.balance} points; tier ${tierBefore?.name ?? 'none'} → ${tierAfter?.name ?? 'none'}, because the order becoming PAID fired the order.paid earning rule (+${earned}: 1 point per $1 paid) and the new balance reaches the next tier (docs/concepts.md#earning-rules)`,
)

// Spend points on a reward.
now = new Date('2026-11-20T10:10:00Z')
const reward = await engine.loyalties.redeemReward(club.id, card.code, { reward: { id: mug.id } })
const afterReward = await engine.loyalties.getMember(club.id, card.code)
console.log(
  `Reward "${mug.name}" for ${reward.amount} points: balance ${afterReward.loyalty_card?.balance}; a material reward waits as pending until it is handed over (docs/concepts.md#rewards)`,
)

// Roll the checkout redemption back: what the redemption took comes back; what the paid order earned stays.
now = new Date('2026-11-20T10:15:00Z')
const rollback = await engine.redemptions.rollbackStackable(redemption.parent_redemption.id, { reason: 'returned' })
const gift = await engine.vouchers.get('GIFT-50')
console.log(
  `\nRolled back ${rollback.rollbacks.length} redemptions; order ${rollback.order?.status}; gift card balance ${money(gift.gift?.balance)}; WELCOME20 used ${(await engine.vouchers.get('WELCOME20')).redemption.redeemed_quantity} times, because a rollback gives back what the redemption took and cancels its order (WITH_ORDER: docs/behaviour.md#rollbacks)`,
)
const afterRollback = await engine.loyalties.getMember(club.id, card.code)
console.log(
  `Kept: the ${earned} points order-1001 earned when it was paid (card balance still ${afterRollback.loyalty_card?.balance}), because earning is its own transaction, not part of the redemption; src/operations/checkout/rollback-stackable.ts returns only what the redemption's children took`,
)

// The customer's activity feed, oldest first.
const feed = await engine.customers.listActivity('ana', { limit: 100, order: 'created_at' })
console.log(`\nActivity of ana (${feed.data.length} items): every step above left events on her feed, oldest first`)
console.table(feed.data.map((a) => ({ at: a.created_at.slice(11, 19), type: a.type })))
