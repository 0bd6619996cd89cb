import { expect } from 'vitest'
import type { Engine } from '../../src/engine'
import type { Store } from '../../src/storage/ports'
import { cardPayingWithPoints } from '../operations/loyalty/fixtures'

/**
 * The shop the store-cost tests measure (on the memory store and on PostgreSQL): a known customer, a
 * product, a 10% code, a capped code under a per-customer budget rule, a gift card and a promotion
 * tier; returns a request naming four of them.
 */
export async function seedChainShop(engine: Engine) {
  await engine.customers.create({ source_id: 'ana' })
  await seedShoeAndCode(engine, 'TEN', { type: 'PERCENT', percent_off: 10 })
  const capped = await engine.vouchers.create({
    code: 'CAPPED',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100 },
    redemption: { quantity: 1000 },
  })
  await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 50_000 } })
  const rule = await engine.validationRules.create({
    name: 'budget',
    rules: { '1': { name: 'redemption.count.per_customer', conditions: { $less_than_or_equal: [100] } } },
  })
  await engine.validationRules.createAssignment(rule.id, {
    related_object_type: 'voucher',
    related_object_id: capped.id,
  })
  const promo = await engine.promotions.create({
    name: 'Promo',
    campaign_type: 'PROMOTION',
    promotion: { tiers: [{ name: 'Five off', action: { discount: { type: 'AMOUNT', amount_off: 500 } } }] },
  })
  const tier = promo.promotion?.tiers[0]?.id ?? ''
  return {
    customer: { source_id: 'ana' },
    order: { items: [{ source_id: 'shoe', quantity: 2 }] },
    redeemables: [
      { object: 'voucher' as const, id: 'TEN' },
      { object: 'voucher' as const, id: 'CAPPED' },
      { object: 'voucher' as const, id: 'GIFT', gift: { credits: 1000 } },
      { object: 'promotion_tier' as const, id: tier },
    ],
  }
}

/**
 * A known customer and one capped code; returns the one-line request naming both, which the
 * round-trip tests run cold and then with the engine's load hints warm.
 */
export async function seedOneLineShop(engine: Engine) {
  await engine.raw.vouchers.create({
    code: 'ONE',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
    redemption: { quantity: 1000 },
  })
  await engine.raw.customers.create({ source_id: 'shopper' })
  return {
    redeemables: [{ object: 'voucher' as const, id: 'ONE' }],
    order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
    customer: { source_id: 'shopper' },
  }
}

/**
 * The loyalty chains the store-cost tests measure: a member's redemption paying with points (and
 * earning on the paid order), a paid order, a reward redemption. Returns each one's depth, and
 * beside it (`queries`) what the counter counts besides, when it does: statements sent on PostgreSQL.
 */
export async function loyaltyChains(
  engine: Engine,
  counter: { reset(): void; readonly depth: number; readonly queries?: number },
) {
  const { club, card, coin } = await cardPayingWithPoints(engine)
  const queries: Record<string, number | undefined> = {}
  const measure = async (run: () => Promise<unknown>, name: string) => {
    counter.reset()
    await run()
    queries[name] = counter.queries
    return counter.depth
  }
  return {
    memberRedemption: await measure(
      () =>
        engine.redemptions.redeemStackable({
          customer: { source_id: 'alice' },
          order: { amount: 100_000 },
          redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 10 } }],
        }),
      'memberRedemption',
    ),
    paidOrder: await measure(
      () => engine.orders.create({ customer: { source_id: 'alice' }, status: 'PAID', amount: 20_000 }),
      'paidOrder',
    ),
    rewardRedemption: await measure(
      () =>
        engine.loyalties.redeemReward(club.id, card.id, {
          reward: { id: coin.id, points: 5 },
          order: { amount: 1000 },
        }),
      'rewardRedemption',
    ),
    queries,
  }
}

/**
 * A shop for a publication's chain: an AUTO_UPDATE campaign "Welcome" with 5 free codes made, and
 * a customer "known" (a publication for "new" creates its customer).
 */
export async function seedPublicationShop(engine: Engine): Promise<void> {
  await engine.campaigns.create({
    name: 'Welcome',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'AUTO_UPDATE',
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    vouchers_count: 5,
  })
  await engine.asyncActions.runPending()
  await engine.customers.create({ source_id: 'known' })
}

/** How an auto-join program's new members get their cards: made on demand, or taken from codes made before. */
export type AutoJoinCards = 'AUTO_UPDATE, made on demand' | 'AUTO_UPDATE, free cards made before' | 'STATIC, free cards'

export const AUTO_JOIN_CARDS: readonly AutoJoinCards[] = [
  'AUTO_UPDATE, made on demand',
  'AUTO_UPDATE, free cards made before',
  'STATIC, free cards',
]

/**
 * The open loop's shop (bench/open-loop.ts): a product, a public code and an auto-join program earning
 * on paid orders, whose cards are made on demand or taken from the 5 made with it.
 */
export async function seedAutoJoinShop(engine: Engine, cards: AutoJoinCards): Promise<{ clubId: string }> {
  await seedShoeAndCode(engine, 'PUBLIC', { type: 'AMOUNT', amount_off: 100 })
  const club = await engine.loyalties.create({
    name: 'Club',
    type: cards.startsWith('STATIC') ? 'STATIC' : 'AUTO_UPDATE',
    auto_join: true,
    vouchers_count: cards === 'AUTO_UPDATE, made on demand' ? 0 : 5,
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'CLUB-########' } },
  })
  await engine.asyncActions.runPending()
  await engine.raw.loyalties.createEarningRule(club.id, [
    { event: 'order.paid', loyalty: { type: 'FIXED', points: 10 } },
  ])
  return { clubId: club.id }
}

/**
 * A new customer's paid order and a new customer's redemption of the public code (the open loop's
 * mix, after one redemption that lets the engine remember the code): each one's chain, what the
 * counter counts besides (statements on PostgreSQL), and the card each new member got, beside the
 * program's free cards before (read from `store`, uncounted).
 */
export async function newMemberChains(
  engine: Engine,
  counter: { reset(): void; readonly depth: number; readonly queries?: number },
  store: Store,
  clubId: string,
) {
  const order = { amount: 10_000, items: [{ source_id: 'shoe', quantity: 2 }] }
  const redeem = (source_id: string) =>
    engine.redemptions.redeemStackable({
      customer: { source_id },
      order,
      redeemables: [{ object: 'voucher', id: 'PUBLIC' }],
    })
  await redeem('warm')
  const codes = async (where: { holder_id: string | null }) =>
    (await store.vouchers.list({ where: { campaign_id: clubId, ...where }, count: false })).data.map(
      (v) => v.value.code,
    )
  const free = await codes({ holder_id: null })
  const measure = async (run: () => Promise<unknown>) => {
    counter.reset()
    await run()
    return { depth: counter.depth, queries: counter.queries }
  }
  const paidOrder = await measure(() =>
    engine.orders.create({ customer: { source_id: 'o1' }, status: 'PAID', ...order }),
  )
  const redemption = await measure(() => redeem('r1'))
  const cardOf = async (source_id: string) => {
    const customer = await store.customers.findBy('source_id', source_id)
    return codes({ holder_id: customer?.value.id ?? 'none' })
  }
  return { paidOrder, redemption, free, cards: { o1: await cardOf('o1'), r1: await cardOf('r1') } }
}

/** Each new member got one card: one of the free cards where the program had them, else one made on demand. */
export function expectCardsFrom(
  cards: AutoJoinCards,
  chains: { free: string[]; cards: Record<string, string[]> },
): void {
  for (const [customer, held] of Object.entries(chains.cards)) {
    expect(held, customer).toHaveLength(1)
    const [code] = held as [string]
    expect(code, customer).toMatch(/^CLUB-/)
    expect(chains.free.includes(code), customer).toBe(cards !== 'AUTO_UPDATE, made on demand')
  }
  if (cards === 'AUTO_UPDATE, made on demand') expect(chains.free).toEqual([])
  else expect(chains.free).toHaveLength(4)
}

/** The product every chain shop sells (5,000 a unit) and a discount code of the shop. */
async function seedShoeAndCode(
  engine: Engine,
  code: string,
  discount: { type: 'PERCENT'; percent_off: number } | { type: 'AMOUNT'; amount_off: number },
): Promise<void> {
  await engine.products.create({ source_id: 'shoe', name: 'Shoe', price: 5000 })
  await engine.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount })
}
