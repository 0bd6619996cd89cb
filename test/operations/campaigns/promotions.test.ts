import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import { rejection, snapshot, testEngine } from '../../support/engine'

const tenOff = { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' }

function promotionBody(name = 'Spring sale', tiers: unknown[] = [{ name: 'Ten off', action: { discount: tenOff } }]) {
  return { name, promotion: { tiers } }
}

describe('promotions.create', () => {
  it('creates a PROMOTION campaign with its tiers expanded', async () => {
    const { engine } = testEngine()
    const campaign = await engine.raw.promotions.create({
      name: 'Spring sale',
      description: 'Tiers by basket size',
      start_date: '2026-03-01T00:00:00.000Z',
      metadata: { region: 'EU' },
      promotion: {
        tiers: [
          { name: 'Ten off', banner: '10 off', action: { discount: tenOff }, metadata: { level: 1 } },
          { name: 'Fifteen percent', action: { discount: { type: 'PERCENT', percent_off: 15, amount_limit: 5000 } } },
        ],
      },
    })
    expect(campaign).toMatchObject({
      name: 'Spring sale',
      description: 'Tiers by basket size',
      campaign_type: 'PROMOTION',
      type: 'STATIC',
      vouchers_count: 0,
      creation_status: 'DONE',
      vouchers_generation_status: 'DONE',
      active: true,
      start_date: '2026-03-01T00:00:00.000Z',
      category: null,
      category_id: null,
      categories: [],
      metadata: { region: 'EU' },
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'campaign',
    })
    expect(campaign.id).toMatch(/^camp_[0-9A-Za-z]{24}$/)
    const { promotion } = campaign
    expect(promotion).toMatchObject({ object: 'list', data_ref: 'tiers', total: 2, has_more: false })
    const [first, second] = promotion.tiers
    expect(first).toEqual({
      id: first?.id,
      name: 'Ten off',
      banner: '10 off',
      action: { discount: tenOff },
      metadata: { level: 1 },
      hierarchy: 1,
      promotion_id: campaign.id,
      campaign_id: campaign.id,
      campaign: {
        id: campaign.id,
        start_date: '2026-03-01T00:00:00.000Z',
        expiration_date: null,
        validity_timeframe: null,
        validity_day_of_week: null,
        validity_hours: null,
        active: true,
        category_id: null,
        object: 'campaign',
      },
      active: true,
      summary: { redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_discount_amount: 0 } },
      category_id: null,
      categories: [],
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      validation_rule_assignments: { object: 'list', data_ref: 'data', data: [], total: 0 },
      object: 'promotion_tier',
    })
    expect(first?.id).toMatch(/^promo_[0-9A-Za-z]{24}$/)
    expect(second).toMatchObject({
      name: 'Fifteen percent',
      hierarchy: 2,
      action: { discount: { type: 'PERCENT', percent_off: 15, amount_limit: 5000 } },
    })
    // The stored campaign keeps tier ids only.
    const stored = await engineContext(engine).store.campaigns.get(campaign.id)
    expect(stored?.value.promotion).toEqual({ tiers: [first?.id, second?.id] })
    expect(await engine.promotions.tiers.get(second?.id ?? '')).toEqual(second)
  })

  it('accepts every discount type', async () => {
    const { engine } = testEngine()
    const discounts = [
      { type: 'AMOUNT', amount_off: 500, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY', aggregated_amount_limit: 2000 },
      { type: 'PERCENT', percent_off: 12.5, effect: 'APPLY_TO_ITEMS', amount_limit: 300 },
      { type: 'FIXED', fixed_amount: 9900, effect: 'APPLY_TO_ORDER' },
      { type: 'UNIT', unit_off: 1, unit_type: 'prod_5h1pp1ng', effect: 'ADD_MISSING_ITEMS' },
      { type: 'UNIT', unit_off: 2, unit_type: 'prod_mug' },
      {
        type: 'UNIT',
        effect: 'ADD_MANY_ITEMS',
        units: [
          { unit_off: 1, unit_type: 'prod_mug', effect: 'ADD_NEW_ITEMS' },
          { unit_off: 1, unit_type: 'prod_5h1pp1ng', effect: 'ADD_MISSING_ITEMS' },
        ],
      },
    ]
    const campaign = await engine.raw.promotions.create(
      promotionBody(
        'All types',
        discounts.map((discount, i) => ({ name: `Tier ${i + 1}`, action: { discount } })),
      ),
    )
    expect(campaign.promotion.tiers.map((t) => t.action.discount)).toEqual(discounts)
    expect(campaign.promotion.tiers.map((t) => t.hierarchy)).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('resolves category_id and a category name, creating an unknown name', async () => {
    const { engine, store } = testEngine()
    const category = {
      id: 'cat_flash',
      name: 'Flash',
      hierarchy: 1,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: null,
      object: 'category' as const,
    }
    await store.commit({ writes: [{ op: 'put', collection: 'categories', value: category, expectedVersion: null }] })
    const byId = await engine.raw.promotions.create({ ...promotionBody('A'), category_id: 'cat_flash' })
    expect(byId).toMatchObject({ category: 'Flash', category_id: 'cat_flash', categories: [category] })
    const byName = await engine.raw.promotions.create({ ...promotionBody('B'), category: 'Flash' })
    expect(byName).toMatchObject({ category: 'Flash', category_id: 'cat_flash', categories: [category] })
    // An unknown name creates the category, as campaigns.create does.
    const created = await engine.raw.promotions.create({ ...promotionBody('C'), category: 'Seasonal' })
    const seasonal = (await store.categories.findBy('name', 'Seasonal'))?.value
    expect(seasonal).toMatchObject({ name: 'Seasonal', hierarchy: 1, object: 'category' })
    expect(created).toMatchObject({ category: 'Seasonal', category_id: seasonal?.id, categories: [seasonal] })
    await expect(
      engine.raw.promotions.create({ ...promotionBody('D'), category_id: 'cat_none' }),
    ).rejects.toMatchObject({
      code: 404,
      resource_type: 'category',
    })
  })

  it('assigns the validation rules a tier names', async () => {
    const { engine } = testEngine()
    const rule = await engine.validationRules.create({
      name: 'Over 100',
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [10000] } } },
    })
    const campaign = await engine.raw.promotions.create(
      promotionBody('Ruled', [{ name: 'Big basket', action: { discount: tenOff }, validation_rules: [rule.id] }]),
    )
    const tier = campaign.promotion.tiers[0]
    expect(tier?.validation_rule_assignments).toMatchObject({
      total: 1,
      data: [{ rule_id: rule.id, related_object_id: tier?.id, related_object_type: 'promotion_tier' }],
    })
    expect((await engine.validationRules.get(rule.id)).assignments_count).toBe(1)
  })

  describe('rejects bad input naming the field and writes nothing', () => {
    const cases: [string, unknown, string][] = [
      ['a missing name', { promotion: { tiers: [{ name: 'T', action: { discount: tenOff } }] } }, 'name'],
      ['a name of the wrong type', { ...promotionBody(), name: 7 }, 'name'],
      ['no tiers', { name: 'X', promotion: { tiers: [] } }, 'promotion.tiers'],
      ['a tier without action', promotionBody('X', [{ name: 'T' }]), 'promotion.tiers[0].action'],
      [
        'an unknown discount type',
        promotionBody('X', [{ name: 'T', action: { discount: { type: 'SHIPPING' } } }]),
        'promotion.tiers[0].action.discount.type',
      ],
      [
        'a negative amount_off',
        promotionBody('X', [{ name: 'T', action: { discount: { type: 'AMOUNT', amount_off: -1 } } }]),
        'promotion.tiers[0].action.discount.amount_off',
      ],
      [
        'a fractional amount_off',
        promotionBody('X', [{ name: 'T', action: { discount: { type: 'AMOUNT', amount_off: 9.5 } } }]),
        'promotion.tiers[0].action.discount.amount_off',
      ],
      [
        'percent_off over 100',
        promotionBody('X', [{ name: 'T', action: { discount: { type: 'PERCENT', percent_off: 101 } } }]),
        'promotion.tiers[0].action.discount.percent_off',
      ],
      [
        'an effect of another type',
        promotionBody('X', [
          {
            name: 'T',
            action: { discount: { type: 'PERCENT', percent_off: 5, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' } },
          },
        ]),
        'promotion.tiers[0].action.discount.effect',
      ],
      [
        'a UNIT without unit_type',
        promotionBody('X', [{ name: 'T', action: { discount: { type: 'UNIT', unit_off: 1 } } }]),
        'promotion.tiers[0].action.discount.unit_type',
      ],
      [
        'ADD_MANY_ITEMS without units',
        promotionBody('X', [{ name: 'T', action: { discount: { type: 'UNIT', effect: 'ADD_MANY_ITEMS' } } }]),
        'promotion.tiers[0].action.discount.units',
      ],
      ['both category and category_id', { ...promotionBody(), category: 'A', category_id: 'cat_a' }, 'category_id'],
      [
        'an expiration before the start',
        { ...promotionBody(), start_date: '2026-03-01T00:00:00Z', expiration_date: '2026-02-01T00:00:00Z' },
        'expiration_date',
      ],
      [
        'a timeframe with no start',
        { ...promotionBody(), validity_timeframe: { duration: 'PT1H', interval: 'P1D' } },
        'start_date',
      ],
      [
        'a tier naming a rule twice',
        promotionBody('X', [{ name: 'T', action: { discount: tenOff }, validation_rules: ['val_a', 'val_a'] }]),
        'promotion.tiers[0].validation_rules',
      ],
    ]
    for (const [label, body, path] of cases) {
      it(label, async () => {
        const { engine, store } = testEngine()
        const before = await snapshot(store)
        const error = await rejection(engine.raw.promotions.create(body))
        expect(error).toMatchObject({ code: 400, key: 'invalid_payload', path })
        expect(await snapshot(store)).toBe(before)
      })
    }
  })

  it('rejects a duplicate campaign name with 409 and writes nothing', async () => {
    const { engine, store } = testEngine()
    await engine.raw.promotions.create(promotionBody('Same'))
    const before = await snapshot(store)
    const error = await rejection(engine.raw.promotions.create(promotionBody('Same')))
    expect(error).toMatchObject({ code: 409, key: 'duplicate_found', path: 'name' })
    expect(await snapshot(store)).toBe(before)
  })

  it('rejects an unknown validation rule with 404 and writes nothing', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    const body = promotionBody('X', [{ name: 'T', action: { discount: tenOff }, validation_rules: ['val_missing'] }])
    await expect(engine.raw.promotions.create(body)).rejects.toMatchObject({ code: 404, resource_id: 'val_missing' })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('promotions.tiers', () => {
  it('adds a tier after the existing ones and updates the campaign', async () => {
    const { engine, clock, store } = testEngine()
    const campaign = await engine.raw.promotions.create(promotionBody())
    clock.advance(60_000)
    const tier = await engine.promotions.tiers.create(campaign.id, {
      name: 'Free shipping',
      action: { discount: { type: 'UNIT', unit_off: 1, unit_type: 'prod_5h1pp1ng', effect: 'ADD_MISSING_ITEMS' } },
      active: false,
    })
    expect(tier).toMatchObject({
      name: 'Free shipping',
      hierarchy: 2,
      active: false,
      campaign_id: campaign.id,
      created_at: '2026-01-15T10:01:00.000Z',
      updated_at: null,
    })
    const stored = await store.campaigns.get(campaign.id)
    expect(stored?.value.promotion?.tiers).toEqual([campaign.promotion.tiers[0]?.id, tier.id])
    expect(stored?.value.updated_at).toBe('2026-01-15T10:01:00.000Z')
  })

  it('counts a tier timeframe from the campaign start when the tier has none', async () => {
    const { engine, store } = testEngine()
    const timeframe = { duration: 'PT1H', interval: 'P1D' }
    const dated = await engine.raw.promotions.create({ ...promotionBody('Dated'), start_date: '2026-02-01T00:00:00Z' })
    const tier = await engine.raw.promotions.tiers.create(dated.id, {
      name: 'Happy hour',
      action: { discount: tenOff },
      validity_timeframe: timeframe,
    })
    expect(tier.validity_timeframe).toEqual(timeframe)
    const undated = await engine.raw.promotions.create(promotionBody('Undated'))
    const before = await snapshot(store)
    const error = await rejection(
      engine.raw.promotions.tiers.create(undated.id, {
        name: 'T',
        action: { discount: tenOff },
        validity_timeframe: timeframe,
      }),
    )
    expect(error).toMatchObject({ code: 400, path: 'start_date' })
    expect(await snapshot(store)).toBe(before)
  })

  it('enables and disables a tier, stamping updated_at', async () => {
    const { engine, clock } = testEngine()
    const campaign = await engine.raw.promotions.create(
      promotionBody('X', [{ name: 'T', action: { discount: tenOff }, active: false }]),
    )
    const id = campaign.promotion.tiers[0]?.id ?? ''
    clock.advance(1000)
    expect(await engine.promotions.tiers.enable(id)).toMatchObject({
      active: true,
      updated_at: '2026-01-15T10:00:01.000Z',
    })
    clock.advance(1000)
    expect(await engine.promotions.tiers.disable(id)).toMatchObject({
      active: false,
      updated_at: '2026-01-15T10:00:02.000Z',
    })
    expect((await engine.promotions.tiers.get(id)).active).toBe(false)
  })

  it('gives 404 for an unknown tier or campaign, and 400 for a bad tier body', async () => {
    const { engine, store } = testEngine()
    await expect(engine.promotions.tiers.get('promo_none')).rejects.toMatchObject({ code: 404 })
    await expect(engine.promotions.tiers.enable('promo_none')).rejects.toMatchObject({ code: 404 })
    await expect(
      engine.raw.promotions.tiers.create('camp_none', { name: 'T', action: { discount: tenOff } }),
    ).rejects.toMatchObject({ code: 404, resource_type: 'campaign' })
    const campaign = await engine.raw.promotions.create(promotionBody())
    const before = await snapshot(store)
    const error = await rejection(
      engine.raw.promotions.tiers.create(campaign.id, { name: 'T', action: { discount: {} } }),
    )
    expect(error).toMatchObject({ code: 400, path: 'action.discount.type' })
    const missing = await rejection(engine.raw.promotions.tiers.create(campaign.id, { action: { discount: tenOff } }))
    expect(missing).toMatchObject({ code: 400, path: 'name' })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('promotions.stacks', () => {
  async function campaignWithTiers(engine: ReturnType<typeof testEngine>['engine'], name: string, count: number) {
    const tiers = Array.from({ length: count }, (_, i) => ({ name: `T${i + 1}`, action: { discount: tenOff } }))
    const campaign = await engine.raw.promotions.create(promotionBody(name, tiers))
    return { campaign, ids: campaign.promotion.tiers.map((t) => t.id) }
  }

  it('creates a stack and reads it back', async () => {
    const { engine } = testEngine()
    const { campaign, ids } = await campaignWithTiers(engine, 'P', 3)
    const stack = await engine.raw.promotions.stacks.createInCampaign(campaign.id, {
      name: 'Best two',
      tiers: { ids: [ids[2], ids[0]], hierarchy_mode: 'MANUAL' },
    })
    expect(stack).toEqual({
      id: stack.id,
      name: 'Best two',
      campaign_id: campaign.id,
      tiers: { ids: [ids[2], ids[0]], hierarchy_mode: 'MANUAL' },
      category_id: null,
      categories: [],
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'promotion_stack',
    })
    expect(stack.id).toMatch(/^stack_[0-9A-Za-z]{24}$/)
    expect(await engine.promotions.stacks.get(stack.id)).toEqual(stack)
  })

  it('accepts 30 tiers and rejects 31 naming tiers.ids with the bound', async () => {
    const { engine, store } = testEngine()
    const { campaign, ids } = await campaignWithTiers(engine, 'P', 31)
    const thirty = await engine.promotions.stacks.createInCampaign(campaign.id, {
      name: 'Thirty',
      tiers: { ids: ids.slice(0, 30) },
    })
    expect(thirty.tiers.ids).toHaveLength(30)
    const before = await snapshot(store)
    const error = await rejection(
      engine.promotions.stacks.createInCampaign(campaign.id, { name: 'Too many', tiers: { ids } }),
    )
    expect(error).toMatchObject({ code: 400, key: 'invalid_payload', path: 'tiers.ids' })
    expect(error.details).toContain('at most 30')
    expect(await snapshot(store)).toBe(before)
  })

  it('rejects bad stacks naming the field and writes nothing', async () => {
    const { engine, store } = testEngine()
    const { campaign, ids } = await campaignWithTiers(engine, 'P', 2)
    const other = await campaignWithTiers(engine, 'Q', 1)
    const before = await snapshot(store)
    const cases: [unknown, string][] = [
      [{ tiers: { ids } }, 'name'],
      [{ name: 'S' }, 'tiers'],
      [{ name: 'S', tiers: { ids: [] } }, 'tiers.ids'],
      [{ name: 'S', tiers: { ids: [ids[0], ids[0]] } }, 'tiers.ids'],
      [{ name: 'S', tiers: { ids: 'x' } }, 'tiers.ids'],
      [{ name: 'S', tiers: { ids, hierarchy_mode: 'AUTO' } }, 'tiers.hierarchy_mode'],
      [{ name: 'S', tiers: { ids: [ids[0], other.ids[0]] } }, 'tiers.ids[1]'],
    ]
    for (const [body, path] of cases) {
      const error = await rejection(engine.raw.promotions.stacks.createInCampaign(campaign.id, body))
      expect(error, JSON.stringify(body)).toMatchObject({ code: 400, path })
    }
    await expect(
      engine.promotions.stacks.createInCampaign(campaign.id, { name: 'S', tiers: { ids: ['promo_none'] } }),
    ).rejects.toMatchObject({ code: 404, resource_id: 'promo_none' })
    await expect(
      engine.promotions.stacks.createInCampaign('camp_none', { name: 'S', tiers: { ids } }),
    ).rejects.toMatchObject({ code: 404 })
    expect(await snapshot(store)).toBe(before)
  })

  it('lists with order, paging and created_at / updated_at bounds', async () => {
    const { engine, clock, store } = testEngine()
    const p = await campaignWithTiers(engine, 'P', 1)
    const q = await campaignWithTiers(engine, 'Q', 1)
    const make = async (campaignId: string, name: string, tierId: string | undefined) => {
      clock.advance(60_000)
      return engine.raw.promotions.stacks.createInCampaign(campaignId, { name, tiers: { ids: [tierId] } })
    }
    const b = await make(p.campaign.id, 'Bravo', p.ids[0]) // 10:01
    const a = await make(p.campaign.id, 'Alpha', p.ids[0]) // 10:02
    const c = await make(q.campaign.id, 'Charlie', q.ids[0]) // 10:03
    // Give Bravo an updated_at to filter on.
    const stored = await store.promotion_stacks.get(b.id)
    if (!stored) throw new Error('missing')
    await store.commit({
      writes: [
        {
          op: 'put',
          collection: 'promotion_stacks',
          value: { ...stored.value, updated_at: '2026-01-15T11:00:00.000Z' },
          expectedVersion: stored.version,
        },
      ],
    })

    const names = (list: { data: { name: string }[] }) => list.data.map((s) => s.name)
    const all = await engine.promotions.stacks.list()
    expect(all).toMatchObject({ object: 'list', data_ref: 'data', total: 3 })
    expect(names(all)).toEqual(['Bravo', 'Alpha', 'Charlie'])
    expect(names(await engine.promotions.stacks.list({ order: '-created_at' }))).toEqual(['Charlie', 'Alpha', 'Bravo'])
    expect(names(await engine.promotions.stacks.list({ order: 'name' }))).toEqual(['Alpha', 'Bravo', 'Charlie'])
    expect(names(await engine.promotions.stacks.list({ order: '-name', limit: 2, page: 2 }))).toEqual(['Alpha'])
    expect(names(await engine.promotions.stacks.list({ order: '-updated_at', limit: 1 }))).toEqual(['Bravo'])
    expect(names(await engine.promotions.stacks.list({ limit: '2' }))).toEqual(['Bravo', 'Alpha'])
    const window = await engine.promotions.stacks.list({
      created_at: { after: '2026-01-15T10:01:00.000Z', before: '2026-01-15T10:03:00.000Z' },
    })
    expect(names(window)).toEqual(['Alpha'])
    expect(window.total).toBe(1)
    expect(names(await engine.promotions.stacks.list({ created_at: { after: '2026-01-15' } }))).toEqual([
      'Bravo',
      'Alpha',
      'Charlie',
    ])
    expect(names(await engine.promotions.stacks.list({ created_at: { before: '2026-01-15' } }))).toEqual([])
    expect(names(await engine.promotions.stacks.list({ updated_at: { after: '2026-01-15T10:30:00Z' } }))).toEqual([
      'Bravo',
    ])
    const inP = await engine.promotions.stacks.listInCampaign(p.campaign.id, { order: '-created_at' })
    expect(inP.total).toBe(2)
    expect(names(inP)).toEqual(['Alpha', 'Bravo'])
    expect(names(await engine.promotions.stacks.listInCampaign(q.campaign.id))).toEqual(['Charlie'])
    // By name, like every other campaignId path.
    expect(names(await engine.promotions.stacks.listInCampaign(q.campaign.name))).toEqual(['Charlie'])
    expect(a.campaign_id).toBe(p.campaign.id)
    expect(c.campaign_id).toBe(q.campaign.id)
  })

  it('rejects bad list queries naming the parameter', async () => {
    const { engine } = testEngine()
    const cases: [unknown, string][] = [
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ page: 0 }, 'page'],
      [{ page: 101 }, 'page'],
      [{ order: 'code' }, 'order'],
      [{ created_at: { before: 'yesterday' } }, 'created_at.before'],
      [{ updated_at: { since: '2026-01-01' } }, 'updated_at.since'],
    ]
    for (const [query, path] of cases) {
      const error = await rejection(engine.raw.promotions.stacks.list(query))
      expect(error, JSON.stringify(query)).toMatchObject({ code: 400, key: 'invalid_query_params', path })
    }
    await expect(engine.promotions.stacks.listInCampaign('camp_none')).rejects.toMatchObject({ code: 404 })
  })

  it('createInCampaign and tiers.create take the campaign name too; a non-promotion name is 404', async () => {
    const { engine } = testEngine()
    const { campaign, ids } = await campaignWithTiers(engine, 'Named', 1)
    const stack = await engine.promotions.stacks.createInCampaign(campaign.name, { name: 'S', tiers: { ids } })
    expect(stack.campaign_id).toBe(campaign.id)
    const tier = await engine.raw.promotions.tiers.create(campaign.name, { name: 'T2', action: { discount: tenOff } })
    expect(tier.campaign_id).toBe(campaign.id)
    await engine.raw.campaigns.create({
      name: 'Coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: tenOff },
    })
    await expect(engine.promotions.stacks.listInCampaign('Coupons')).rejects.toMatchObject({
      code: 404,
      path: 'campaignId',
    })
  })
})
