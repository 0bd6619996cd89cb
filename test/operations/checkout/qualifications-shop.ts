import { testEngine } from '../../support/engine'
import { program } from '../loyalty/fixtures'

/**
 * A shop with vouchers, promotion tiers and a stack, categories, a wallet and a loyalty program:
 * Ana holds WELCOME20 (20% off, Seasonal), SHOES5 ($5 off shoes, Seasonal), GIFT-50 and OLD15
 * (expired); PUBLIC10 is published to nobody. The Autumn promotion gives $10 off shoes and 5% off
 * baskets over $300, and stacks the two. The Runners club earns 1 point per $1 paid, twice in
 * Bronze, and 25 points for joining Silver.
 */
export async function qualificationShop(options: Parameters<typeof testEngine>[0] = {}) {
  const t = testEngine(options)
  const { engine } = t
  const seasonal = await engine.categories.create({ name: 'Seasonal' })
  const shoes = await engine.products.create({ name: 'Running shoes', source_id: 'shoes', price: 12000 })
  const socks = await engine.products.create({ name: 'Socks', source_id: 'socks', price: 1500 })
  await engine.products.create({ name: 'Water bottle', source_id: 'bottle', price: 2500 })
  await engine.customers.create({ source_id: 'ana', name: 'Ana' })
  await engine.customers.create({ source_id: 'bob', name: 'Bob' })

  // One minute apart, so the default sorting (newest first) is the reverse of their order here.
  const codes = [
    {
      code: 'WELCOME20',
      category_id: seasonal.id,
      discount: { type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ORDER' },
    },
    {
      code: 'SHOES5',
      category_id: seasonal.id,
      discount: { type: 'AMOUNT', amount_off: 500, effect: 'APPLY_TO_ITEMS' },
    },
    { code: 'GIFT-50', type: 'GIFT_VOUCHER', gift: { amount: 5000 } },
    { code: 'OLD15', discount: { type: 'AMOUNT', amount_off: 1500 }, expiration_date: '2025-12-31T23:59:59Z' },
    { code: 'PUBLIC10', discount: { type: 'PERCENT', percent_off: 10 } },
  ]
  for (const code of codes) {
    t.clock.advance(60_000)
    await engine.raw.vouchers.create({ type: 'DISCOUNT_VOUCHER', ...code })
  }
  const assign = (ruleId: string, type: string, id: string) =>
    engine.raw.validationRules.createAssignment(ruleId, { related_object_type: type, related_object_id: id })
  const onlyShoes = await engine.validationRules.create({
    name: 'Shoes only',
    rules: {},
    applicable_to: { included: [{ object: 'product', id: shoes.id }] },
  })
  await assign(onlyShoes.id, 'voucher', 'SHOES5')
  for (const code of ['WELCOME20', 'SHOES5', 'GIFT-50', 'OLD15']) {
    await engine.publications.create({ customer: { source_id: 'ana' }, voucher: code })
  }

  t.clock.advance(60_000)
  const autumn = await engine.promotions.create({
    name: 'Autumn sale',
    promotion: {
      tiers: [
        { name: '$10 off shoes', action: { discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS' } } },
        { name: '5% off over $300', action: { discount: { type: 'PERCENT', percent_off: 5 } } },
      ],
    },
  })
  const [shoesTier, bigBasket] = autumn.promotion.tiers
  await assign(onlyShoes.id, 'promotion_tier', shoesTier?.id ?? '')
  const over300 = await engine.validationRules.create({
    name: 'Baskets over $300',
    rules: { '1': { name: 'order.amount', conditions: { $more_than: [30000] } } },
  })
  await assign(over300.id, 'promotion_tier', bigBasket?.id ?? '')
  const stack = await engine.promotions.stacks.createInCampaign(autumn.id, {
    name: 'Autumn stack',
    tiers: { ids: [shoesTier?.id ?? '', bigBasket?.id ?? ''], hierarchy_mode: 'MANUAL' },
  })

  const club = await program(engine, {
    name: 'Runners club',
    vouchers_count: 1,
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 50 }, code_config: { pattern: 'RUN-####' } },
  })
  const [perDollar] = await engine.loyalties.createEarningRule(club.id, [
    {
      event: 'order.paid',
      loyalty: {
        type: 'PROPORTIONAL',
        calculation_type: 'ORDER_TOTAL_AMOUNT',
        order: { total_amount: { every: 100, points: 1 } },
      },
    },
  ])
  const [bronze, silver] = await engine.loyalties.createTiers(club.id, [
    {
      name: 'Bronze',
      points: { from: 0, to: 99 },
      earning_rules: { [perDollar?.id ?? '']: { type: 'MULTIPLY', multiplier: 2 } },
    },
    { name: 'Silver', points: { from: 100, to: 999 } },
    { name: 'Gold', points: { from: 1000, to: 100000 } },
  ])
  const [upgradedSilver] = await engine.raw.loyalties.createEarningRule(club.id, [
    {
      event: 'customer.loyalty.tier.upgraded',
      loyalty_tier: { id: silver?.id },
      loyalty: { type: 'FIXED', points: 25 },
    },
  ])
  const card = await engine.loyalties.createMember(club.id, { customer: { source_id: 'ana' } })

  const cart = {
    items: [
      { source_id: 'shoes', related_object: 'product', quantity: 2 },
      { source_id: 'socks', related_object: 'product', quantity: 3 },
    ],
  }
  return {
    ...t,
    ids: {
      seasonal: seasonal.id,
      shoes: shoes.id,
      socks: socks.id,
      shoesTier: shoesTier?.id ?? '',
      bigBasket: bigBasket?.id ?? '',
      stack: stack.id,
      autumn: autumn.id,
      club: club.id,
      card: card.code,
      perDollar: perDollar?.id ?? '',
      upgradedSilver: upgradedSilver?.id ?? '',
      bronze: bronze?.id ?? '',
      silver: silver?.id ?? '',
    },
    cart,
  }
}

/** WELCOME20 may be used once per customer, and Ana has used it. */
export async function welcomeUsedOnce(s: Awaited<ReturnType<typeof qualificationShop>>) {
  const once = await s.engine.validationRules.create({
    name: 'Once per customer',
    rules: { '1': { name: 'redemption.count.per_customer', conditions: { $less_than_or_equal: [1] } } },
  })
  await s.engine.validationRules.createAssignment(once.id, {
    related_object_type: 'voucher',
    related_object_id: 'WELCOME20',
  })
  await s.engine.raw.redemptions.redeemStackable({
    customer: { source_id: 'ana' },
    order: s.cart,
    redeemables: [{ object: 'voucher', id: 'WELCOME20' }],
  })
}
