import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'

const T0 = '2026-01-15T10:00:00.000Z'

async function setup() {
  const t = testEngine()
  const campaign = await t.engine.campaigns.create({
    name: 'Summer',
    campaign_type: 'DISCOUNT_COUPONS',
    vouchers_count: 2,
    start_date: '2026-06-01T00:00:00.000Z',
    metadata: { region: 'EU' },
    category: 'Seasonal',
    voucher: {
      discount: { type: 'PERCENT', percent_off: 10 },
      redemption: { quantity: 1 },
      code_config: { pattern: 'SUM-####' },
    },
  })
  return { ...t, campaign }
}

describe('templates', () => {
  it('creates a template from a campaign (settings, not codes) and reads it back', async () => {
    const { engine, campaign } = await setup()
    const template = await engine.templates.createCampaignTemplate({ campaign_id: 'Summer', name: 'Seasonal 10%' })
    expect(template).toEqual({
      id: expect.stringMatching(/^camptpl_[0-9A-Za-z]{24}$/),
      name: 'Seasonal 10%',
      description: null,
      campaign_type: 'DISCOUNT_COUPONS',
      campaign: {
        campaign_type: 'DISCOUNT_COUPONS',
        type: 'AUTO_UPDATE',
        description: null,
        start_date: '2026-06-01T00:00:00.000Z',
        expiration_date: null,
        validity_timeframe: null,
        validity_day_of_week: null,
        validity_hours: null,
        active: true,
        activity_duration_after_publishing: null,
        category_id: campaign.category_id,
        metadata: { region: 'EU' },
        auto_join: false,
        join_once: false,
        use_voucher_metadata_schema: false,
        voucher: campaign.voucher,
      },
      created_at: T0,
      updated_at: null,
      object: 'campaign_template',
    })
    expect(template.campaign).not.toHaveProperty('vouchers_count')
    expect(await engine.templates.getCampaignTemplate(template.id)).toEqual(template)
  })

  it('creates a campaign from a template with overrides, through campaigns.create', async () => {
    const { engine, store, campaign } = await setup()
    const template = await engine.templates.createCampaignTemplate({
      campaign_id: campaign.id,
      name: 'T',
      description: 'd',
    })
    const made = await engine.templates.createCampaignFromTemplate(template.id, {
      name: 'Winter',
      vouchers_count: 3,
      start_date: '2026-12-01T00:00:00.000Z',
    })
    expect(made).toMatchObject({
      name: 'Winter',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 3,
      start_date: '2026-12-01T00:00:00.000Z',
      category: 'Seasonal',
      category_id: campaign.category_id,
      metadata: { region: 'EU' },
      voucher: {
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'PERCENT', percent_off: 10 },
        redemption: { quantity: 1 },
      },
    })
    const codes = (await store.vouchers.list({ where: { campaign_id: made.id } })).data.map((s) => s.value.code)
    expect(codes).toHaveLength(3)
    for (const code of codes) expect(code).toMatch(/^SUM-[0-9A-Za-z]{4}$/)
  })

  it('lists with limit, cursor, order, filters, and total only when include_total is true', async () => {
    const { engine, clock, campaign } = await setup()
    const ids: string[] = []
    for (const name of ['A', 'B', 'C']) {
      clock.advance(1000)
      ids.push((await engine.templates.createCampaignTemplate({ campaign_id: campaign.id, name })).id)
    }
    const first = await engine.templates.listCampaignTemplates({ limit: 2 })
    expect(first).toEqual({
      object: 'list',
      data_ref: 'campaign_templates',
      campaign_templates: [expect.objectContaining({ name: 'A' }), expect.objectContaining({ name: 'B' })],
      has_more: true,
      more_starting_after: ids[1],
    })
    const rest = await engine.raw.templates.listCampaignTemplates({
      limit: '2',
      starting_after_id: first.more_starting_after,
      include_total: 'true',
    })
    expect(rest.campaign_templates.map((t) => t.name)).toEqual(['C'])
    expect(rest).toMatchObject({ total: 3, has_more: false, more_starting_after: null })
    expect(await engine.templates.listCampaignTemplates({ include_total: false })).not.toHaveProperty('total')
    const filtered = await engine.templates.listCampaignTemplates({
      include_total: true,
      filters: { junction: 'OR', name: { conditions: { $in: ['A', 'C'] } } },
    })
    expect(filtered.campaign_templates.map((t) => t.name)).toEqual(['A', 'C'])
    expect(filtered.total).toBe(2)
    // A cursor on a template the filters leave out continues from its place (docs/storage.md#cursors).
    const afterB = await engine.templates.listCampaignTemplates({
      starting_after_id: ids[1],
      filters: { junction: 'OR', name: { conditions: { $in: ['A', 'C'] } } },
    })
    expect(afterB.campaign_templates.map((t) => t.name)).toEqual(['C'])
    const byId = (await engine.templates.listCampaignTemplates({ order: '-id' })).campaign_templates.map((t) => t.id)
    expect(byId).toEqual([...ids].sort().reverse())
  })

  it.each([
    [{}, 'campaign_id'],
    [{ campaign_id: 'Summer' }, 'name'],
    [{ campaign_id: 'Summer', name: '' }, 'name'],
    [{ campaign_id: 'Summer', name: 'x', description: 5 }, 'description'],
  ])('rejects the template body %j naming %s, writing nothing', async (body, path) => {
    const { engine, store } = await setup()
    const before = await snapshot(store)
    await expect(engine.raw.templates.createCampaignTemplate(body)).rejects.toMatchObject({ code: 400, path })
    expect(await snapshot(store)).toBe(before)
  })

  it('404s for unknown campaigns and templates; refuses promotion campaigns and a bad override', async () => {
    const { engine, store, campaign } = await setup()
    await engine.promotions.create({
      name: 'Promo',
      campaign_type: 'PROMOTION',
      promotion: { tiers: [{ name: 'T1', action: { discount: { type: 'AMOUNT', amount_off: 100 } } }] },
    })
    const template = await engine.templates.createCampaignTemplate({ campaign_id: campaign.id, name: 'T' })
    const before = await snapshot(store)
    await expect(engine.templates.createCampaignTemplate({ campaign_id: 'Nope', name: 'x' })).rejects.toMatchObject({
      code: 404,
      resource_type: 'campaign',
    })
    await expect(engine.templates.createCampaignTemplate({ campaign_id: 'Promo', name: 'x' })).rejects.toMatchObject({
      code: 400,
      path: 'campaign_id',
    })
    await expect(engine.templates.getCampaignTemplate('camptpl_nope')).rejects.toMatchObject({ code: 404 })
    await expect(engine.templates.createCampaignFromTemplate('camptpl_nope', { name: 'W' })).rejects.toMatchObject({
      code: 404,
      resource_type: 'campaign_template',
    })
    await expect(engine.raw.templates.createCampaignFromTemplate(template.id, {})).rejects.toMatchObject({
      code: 400,
      path: 'name',
    })
    await expect(engine.templates.createCampaignFromTemplate(template.id, { name: 'Summer' })).rejects.toMatchObject({
      code: 409,
    })
    await expect(
      engine.templates.createCampaignFromTemplate(template.id, { name: 'W', campaign_type: 'GIFT_VOUCHERS' }),
    ).rejects.toMatchObject({ code: 400, path: 'campaign_type' })
    await expect(
      engine.templates.createCampaignFromTemplate(template.id, { name: 'W', vouchers_count: -1 }),
    ).rejects.toMatchObject({
      code: 400,
      path: 'vouchers_count',
    })
    expect(await snapshot(store)).toBe(before)
  })

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ order: 'name' }, 'order'],
    [{ include_total: 'yes' }, 'include_total'],
    [{ filters: { campaign: { conditions: { $in: ['x'] } } } }, 'filters.campaign'],
  ])('rejects the list query %j naming %s', async (query, path) => {
    const { engine } = await setup()
    await expect(engine.raw.templates.listCampaignTemplates(query)).rejects.toMatchObject({ code: 400, path })
  })
})
