import { describe, expect, it } from 'vitest'
import type { PromotionTier } from '../../../src/model/promotion'
import { currentShape } from '../../../src/operations/kernel/shape-versions'
import { testEngine } from '../../support/engine'

/*
 * How a qualification finds promotion tiers (docs/qualifications.md#candidates): each tier stores
 * the keys of what its rules target, kept when it is created and when a rule is assigned to it, and
 * a qualification lists the active tiers holding one of its cart's keys or none in particular.
 */

async function targetedShop() {
  const t = testEngine()
  const { engine } = t
  const shoes = await engine.products.create({ name: 'Shoes', source_id: 'shoes', price: 10000 })
  const socks = await engine.products.create({ name: 'Socks', source_id: 'socks', price: 1000 })
  await engine.products.create({ name: 'Bottle', source_id: 'bottle', price: 2000 })
  const shoes42 = await engine.products.createSku(shoes.id, { sku: 'Shoes 42', source_id: 'shoes-42', price: 11000 })
  const footwear = await engine.products.createCollection({
    name: 'Footwear',
    type: 'STATIC',
    products: [{ id: socks.id, object: 'product' }],
  })
  const rule = (name: string, body: Record<string, unknown>) =>
    engine.raw.validationRules.create({ name, rules: {}, ...body })
  const rules = {
    shoes: await rule('Shoes', { applicable_to: { included: [{ object: 'product', id: shoes.id }] } }),
    // Named by an id no product has, and the source id of the shoes: lines of shoes match it by source.
    bySource: await rule('By source', {
      applicable_to: { included: [{ object: 'product', id: 'prod_elsewhere', source_id: 'shoes' }] },
    }),
    sku: await rule('Size 42', { applicable_to: { included: [{ object: 'sku', id: shoes42.id }] } }),
    footwear: await rule('Footwear', {
      applicable_to: { included: [{ object: 'products_collection', id: footwear.id }] },
    }),
    all: await rule('Everything', { applicable_to: { included_all: true } }),
    overTen: await rule('Over $10', { rules: { '1': { name: 'order.amount', conditions: { $more_than: [1000] } } } }),
  }
  const names = ['shoes', 'bySource', 'sku', 'footwear', 'all', 'overTen', 'plain'] as const
  const promotion = await engine.raw.promotions.create({
    name: 'Targets',
    promotion: {
      tiers: names.map((name) => ({
        name,
        action: { discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS' } },
        ...(name === 'plain' ? {} : { validation_rules: [rules[name].id] }),
      })),
    },
  })
  const tierIds = Object.fromEntries(promotion.promotion.tiers.map((tier) => [tier.name, tier.id])) as Record<
    (typeof names)[number],
    string
  >
  return { ...t, ids: { shoes: shoes.id, shoes42: shoes42.id, footwear: footwear.id }, rules, tierIds }
}

type Shop = Awaited<ReturnType<typeof targetedShop>>

const storedTargets = async (s: Shop, id: string) =>
  ((await s.store.promotion_tiers.get(id))?.value as PromotionTier | undefined)?.targets

/** The tier names a qualification of these lines lists. */
async function listed(s: Shop, items: Record<string, unknown>[]): Promise<string[]> {
  const byId = new Map(Object.entries(s.tierIds).map(([name, id]) => [id, name]))
  const result = await s.engine.raw.qualifications.checkEligibility({ order: { items }, options: { limit: 50 } })
  return result.redeemables.data.map((r) => byId.get(r.id) ?? r.id).sort()
}

describe('promotion tier targets', () => {
  it('are the keys of what the tier’s rules include, or * when they target nothing in particular', async () => {
    const s = await targetedShop()
    expect(await storedTargets(s, s.tierIds.shoes)).toEqual([`product:${s.ids.shoes}`])
    expect(await storedTargets(s, s.tierIds.bySource)).toEqual(['product:prod_elsewhere', 'product_source:shoes'])
    expect(await storedTargets(s, s.tierIds.sku)).toEqual([`sku:${s.ids.shoes42}`])
    expect(await storedTargets(s, s.tierIds.footwear)).toEqual([`collection:${s.ids.footwear}`])
    expect(await storedTargets(s, s.tierIds.all)).toEqual(['*'])
    expect(await storedTargets(s, s.tierIds.overTen)).toEqual(['*'])
    expect(await storedTargets(s, s.tierIds.plain)).toEqual(['*'])
  })

  it('find the tiers a cart’s lines reach: by product id or source id, by SKU, by collection', async () => {
    const s = await targetedShop()
    const anywhere = ['all', 'overTen', 'plain']
    expect(await listed(s, [{ product_id: s.ids.shoes, quantity: 1 }])).toEqual(
      ['bySource', 'shoes', ...anywhere].sort(),
    )
    expect(await listed(s, [{ source_id: 'shoes', related_object: 'product', quantity: 1 }])).toEqual(
      ['bySource', 'shoes', ...anywhere].sort(),
    )
    // A SKU line is a line of its product too.
    expect(await listed(s, [{ source_id: 'shoes-42', related_object: 'sku', quantity: 1 }])).toEqual(
      ['bySource', 'shoes', 'sku', ...anywhere].sort(),
    )
    expect(await listed(s, [{ source_id: 'socks', related_object: 'product', quantity: 2 }])).toEqual(
      ['footwear', ...anywhere].sort(),
    )
    expect(await listed(s, [{ source_id: 'bottle', related_object: 'product', quantity: 1 }])).toEqual(anywhere)
    // A line of a product the catalogue lacks, named by source id only.
    expect(await listed(s, [{ source_id: 'unknown', related_object: 'product', quantity: 1, price: 500 }])).toEqual(
      ['all', 'plain'].sort(),
    )
    // No lines: every active tier is a candidate, listed as validation decides it.
    const order = { amount: 5000 }
    const result = await s.engine.raw.qualifications.checkEligibility({ order, options: { limit: 50 } })
    const applied: string[] = []
    for (const id of Object.values(s.tierIds)) {
      const v = await s.engine.raw.validations.validateStackable({
        order,
        redeemables: [{ object: 'promotion_tier', id }],
      })
      if (v.valid && v.redeemables.some((r) => r.status === 'APPLICABLE')) applied.push(id)
    }
    expect(applied.length).toBeGreaterThan(0)
    expect(result.redeemables.data.map((r) => r.id).sort()).toEqual(applied.sort())
  })

  it('follow a rule assigned later, and a tier turned off is no candidate', async () => {
    const s = await targetedShop()
    const bottle = [{ source_id: 'bottle', related_object: 'product', quantity: 1 }]
    const socks = [{ source_id: 'socks', related_object: 'product', quantity: 2 }]
    await s.engine.validationRules.createAssignment(s.rules.footwear.id, {
      related_object_type: 'promotion_tier',
      related_object_id: s.tierIds.plain,
    })
    expect(await storedTargets(s, s.tierIds.plain)).toEqual([`collection:${s.ids.footwear}`])
    expect(await listed(s, bottle)).toEqual(['all', 'overTen'])
    expect(await listed(s, socks)).toEqual(['all', 'footwear', 'overTen', 'plain'])
    // A rule without targeting restricts nothing more; one that targets adds its keys.
    await s.engine.validationRules.createAssignment(s.rules.overTen.id, {
      related_object_type: 'promotion_tier',
      related_object_id: s.tierIds.shoes,
    })
    expect(await storedTargets(s, s.tierIds.shoes)).toEqual([`product:${s.ids.shoes}`])
    await s.engine.validationRules.createAssignment(s.rules.sku.id, {
      related_object_type: 'promotion_tier',
      related_object_id: s.tierIds.shoes,
    })
    expect(await storedTargets(s, s.tierIds.shoes)).toEqual([`product:${s.ids.shoes}`, `sku:${s.ids.shoes42}`])
    await s.engine.promotions.tiers.disable(s.tierIds.all)
    expect(await listed(s, bottle)).toEqual(['overTen'])
    await s.engine.promotions.tiers.enable(s.tierIds.all)
    expect(await storedTargets(s, s.tierIds.all)).toEqual(['*'])
    expect(await listed(s, bottle)).toEqual(['all', 'overTen'])
  })

  it('a tier stored before targets existed is a candidate of every cart', async () => {
    const s = await targetedShop()
    const stored = await s.store.promotion_tiers.get(s.tierIds.footwear)
    if (!stored) throw new Error('missing tier')
    const { targets: _targets, ...legacy } = stored.value
    const put = await s.store.commit({
      writes: [
        {
          op: 'put',
          collection: 'promotion_tiers',
          value: legacy,
          expectedVersion: stored.version,
          shape: currentShape('promotion_tiers'),
        },
      ],
    })
    expect(put.ok).toBe(true)
    expect(await listed(s, [{ source_id: 'socks', related_object: 'product', quantity: 1 }])).toContain('footwear')
    // Found, then left out as validation would: its rules do not reach these lines.
    expect(await listed(s, [{ source_id: 'bottle', related_object: 'product', quantity: 1 }])).not.toContain('footwear')
  })

  it('are never on the wire: tiers and redemptions show no targets', async () => {
    const s = await targetedShop()
    const created = await s.engine.raw.promotions.create({
      name: 'Shown',
      promotion: { tiers: [{ name: 'One', action: { discount: { type: 'AMOUNT', amount_off: 100 } } }] },
    })
    const [tier] = created.promotion.tiers
    expect(tier).toBeDefined()
    expect(tier).not.toHaveProperty('targets')
    const id = tier?.id ?? ''
    expect(await s.engine.promotions.tiers.get(id)).not.toHaveProperty('targets')
    expect(await s.engine.promotions.tiers.disable(id)).not.toHaveProperty('targets')
    for (const t of (await s.engine.promotions.tiers.list(created.id)).tiers) expect(t).not.toHaveProperty('targets')
    const redeemed = await s.engine.raw.redemptions.redeemStackable({
      order: { items: [{ source_id: 'shoes', related_object: 'product', quantity: 1 }] },
      redeemables: [{ object: 'promotion_tier', id: s.tierIds.shoes }],
    })
    const [child] = redeemed.redemptions
    expect(child?.promotion_tier).toMatchObject({ id: s.tierIds.shoes })
    expect(child?.promotion_tier).not.toHaveProperty('targets')
  })
})
