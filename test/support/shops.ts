import type { Engine } from '../../src/engine'

/** Shops the tests and the benches share, built through the engine's own operations. */

/** Three coupons, a gift card and a promotion tier: the redeemables of the commit-size bench. */
export async function fiveRedeemables(engine: Engine) {
  for (let i = 0; i < 3; i++) {
    await engine.vouchers.create({
      code: `C${i}`,
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 5 },
    })
  }
  await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 1_000_000 } })
  const promo = await engine.promotions.create({
    name: 'Promo',
    campaign_type: 'PROMOTION',
    promotion: { tiers: [{ name: 'Off', action: { discount: { type: 'AMOUNT', amount_off: 100 } } }] },
  })
  return [
    { object: 'voucher' as const, id: 'C0' },
    { object: 'voucher' as const, id: 'C1' },
    { object: 'voucher' as const, id: 'C2' },
    { object: 'voucher' as const, id: 'GIFT', gift: { credits: 100 } },
    { object: 'promotion_tier' as const, id: promo.promotion?.tiers[0]?.id ?? '' },
  ]
}

/**
 * A loyalty program whose one card holds `points`, held by the customer `ana` (created first), and a
 * COIN reward (1 point = 1 cent) assigned to it: a card to pay with points from.
 */
export async function cardWithPoints(engine: Engine, points: number) {
  const club = await engine.loyalties.create({
    name: 'Club',
    type: 'AUTO_UPDATE',
    vouchers_count: 1,
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points } },
  })
  await engine.asyncActions.runPending()
  const card = await engine.loyalties.createMember(club.id, { customer: { source_id: 'ana' } })
  const coin = await engine.rewards.create({
    name: 'Coin',
    type: 'COIN',
    parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } },
  })
  await engine.rewards.createAssignment(coin.id, { campaign: club.id })
  return { club, card, coin }
}

/**
 * A promotion tier of $1 off each unit of one product, at most `limit` units across all redemptions
 * (a per-line unit budget: `product_campaign_quantity_limit`); returns the tier's id.
 */
export async function unitBudgetTier(engine: Engine, productId: string, limit: number): Promise<string> {
  const promotion = await engine.raw.promotions.create({
    name: 'Per unit',
    promotion: {
      tiers: [
        {
          name: '$1 off each unit',
          action: { discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' } },
        },
      ],
    },
  })
  const tier = promotion.promotion.tiers[0]?.id as string
  const rule = await engine.raw.validationRules.create({
    name: 'Unit budget',
    rules: {},
    applicable_to: { included: [{ object: 'product', id: productId, product_campaign_quantity_limit: limit }] },
  })
  await engine.validationRules.createAssignment(rule.id, {
    related_object_type: 'promotion_tier',
    related_object_id: tier,
  })
  return tier
}

/** A code `DAILY` ($1 off) under a budget rule of at most 3 redemptions a day; returns the code. */
export async function dailyLimitedCode(engine: Engine) {
  const code = await engine.raw.vouchers.create({
    code: 'DAILY',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
  })
  const rule = await engine.raw.validationRules.create({
    name: 'at most 3 a day',
    rules: { '1': { name: 'redemption.count.daily', conditions: { $less_than_or_equal: [3] } } },
  })
  await engine.raw.validationRules.createAssignment(rule.id, {
    related_object_type: 'voucher',
    related_object_id: code.id,
  })
  return code
}
