import type { testEngine } from '../../support/engine'

type Engine = ReturnType<typeof testEngine>['engine']

/** A DONE loyalty program with `count` cards (the async generation has run). */
export async function program(engine: Engine, body: Record<string, unknown> = {}) {
  const created = await engine.loyalties.create({
    name: 'Club',
    type: 'AUTO_UPDATE',
    vouchers_count: 2,
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'CLUB-####' } },
    ...body,
  })
  await engine.asyncActions.runPending()
  return engine.loyalties.get(created.id)
}

/** A DONE loyalty program with one `order.paid` earning rule of the given `loyalty`. */
export async function programEarning(engine: Engine, loyalty: Record<string, unknown>) {
  const club = await program(engine)
  await engine.raw.loyalties.createEarningRule(club.id, [{ event: 'order.paid', loyalty }])
  return club
}

export async function member(engine: Engine, campaignId: string, sourceId = 'alice') {
  return engine.loyalties.createMember(campaignId, { customer: { source_id: sourceId } })
}

/**
 * A member paying with points: a program earning 1 point per 1000 of a PAID order's total, alice's
 * card holding 500 points (from a paid order of 500000), and a COIN reward (1 point = 1 cent)
 * assigned to the program.
 */
export async function cardPayingWithPoints(engine: Engine) {
  const club = await programEarning(engine, {
    type: 'PROPORTIONAL',
    calculation_type: 'ORDER_TOTAL_AMOUNT',
    order: { total_amount: { every: 1000, points: 1 } },
  })
  const card = await engine.loyalties.createMember(club.id, { customer: { source_id: 'alice' } })
  await engine.orders.create({ customer: { source_id: 'alice' }, status: 'PAID', amount: 500000 })
  const coin = await engine.rewards.create({
    name: '1 pt = 1 cent',
    type: 'COIN',
    parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } },
  })
  const assignment = await engine.rewards.createAssignment(coin.id, { campaign: club.id })
  return { club, card, coin, assignment }
}

/** A MATERIAL reward, the mug (product `mug`), assigned to the program at 100 points: auto-redeemed unless told. */
export async function mugReward(
  engine: Engine,
  campaignId: string,
  options: { autoRedeem?: boolean; stock?: number } = {},
) {
  const product = await engine.products.create({ name: 'Mug', source_id: 'mug' })
  const mug = await engine.rewards.create({
    name: 'Mug',
    type: 'MATERIAL',
    parameters: { product: { id: product.id } },
    ...(options.stock === undefined ? {} : { stock: options.stock }),
  })
  await engine.rewards.createAssignment(mug.id, {
    campaign: campaignId,
    parameters: { loyalty: { points: 100, auto_redeem: options.autoRedeem ?? true } },
  })
  return mug
}
