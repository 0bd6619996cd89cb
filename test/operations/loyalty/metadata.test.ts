import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'
import { member, program } from './fixtures'

type Engine = ReturnType<typeof testEngine>['engine']

/** A program with a 100-point member and a 1-point MATERIAL reward; then the `relatedObject` schema. */
async function setup(relatedObject: string) {
  const t = testEngine()
  const club = await program(t.engine, {
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 100 }, code_config: { pattern: 'CLUB-####' } },
  })
  const card = await member(t.engine, club.id)
  const product = await t.engine.products.create({ name: 'Mug', source_id: 'mug' })
  const mug = await t.engine.rewards.create({
    name: 'Mug',
    type: 'MATERIAL',
    parameters: { product: { id: product.id } },
    stock: 10,
  })
  await t.engine.rewards.createAssignment(mug.id, { campaign: club.id, parameters: { loyalty: { points: 1 } } })
  await t.engine.metadataSchemas.create({
    related_object: relatedObject,
    properties: { size: { type: 'string', eq: ['S', 'M', 'L'], optional: false } },
    allow_defined_only: true,
  })
  return { ...t, fx: { club: club.id, card: card.code as string, product: product.id, mug: mug.id } }
}

type Fx = Awaited<ReturnType<typeof setup>>['fx']
type Run = (e: Engine, fx: Fx, m: Record<string, unknown>) => Promise<{ metadata?: unknown }>

const cases: [string, string, Run, string][] = [
  [
    'loyalties.createEarningRule',
    'earning_rule',
    async (e, fx, metadata) =>
      (
        await e.loyalties.createEarningRule(fx.club, [
          { event: 'order.paid', loyalty: { type: 'FIXED', points: 1 }, metadata },
        ])
      )[0] ?? {},
    '[0].metadata',
  ],
  [
    'loyalties.createTiers',
    'loyalty_tier',
    async (e, fx, metadata) =>
      (await e.loyalties.createTiers(fx.club, [{ name: 'Bronze', points: { from: 1, to: 99 }, metadata }]))[0] ?? {},
    '[0].metadata',
  ],
  [
    'rewards.create',
    'reward',
    (e, fx, metadata) =>
      e.rewards.create({ name: 'Cap', type: 'MATERIAL', parameters: { product: { id: fx.product } }, metadata }),
    'metadata',
  ],
  [
    'loyalties.redeemReward',
    'redemption',
    (e, fx, metadata) => e.loyalties.redeemReward(fx.club, fx.card, { reward: { id: fx.mug }, metadata }),
    'metadata',
  ],
]

describe('metadata schemas on loyalty writes', () => {
  it.each(cases)('%s keeps metadata the %s schema allows', async (_op, related, run) => {
    const { engine, fx } = await setup(related)
    expect((await run(engine, fx, { size: 'M' })).metadata).toEqual({ size: 'M' })
  })

  it.each(cases)('%s refuses metadata the %s schema does not, naming the property', async (_op, related, run, at) => {
    const { engine, store, fx } = await setup(related)
    const before = await snapshot(store)
    await expect(run(engine, fx, { size: 'XL' })).rejects.toMatchObject({
      code: 400,
      key: 'invalid_metadata',
      path: `${at}.size`,
      details: `Property .${at}.size must be one of ["S","M","L"]`,
    })
    await expect(run(engine, fx, {})).rejects.toMatchObject({ code: 400, path: `${at}.size` })
    await expect(run(engine, fx, { size: 'S', colour: 'red' })).rejects.toMatchObject({
      code: 400,
      path: `${at}.colour`,
    })
    expect(await snapshot(store)).toBe(before)
  })
})
