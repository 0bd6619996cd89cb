import { describe, expect, it } from 'vitest'
import type { EngineError } from '../../../src/errors'
import type { Voucher } from '../../../src/model/voucher'
import { rejection, snapshot, testEngine, without } from '../../support/engine'

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

async function vouchersOf(store: ReturnType<typeof testEngine>['store'], campaignId: string): Promise<Voucher[]> {
  return (await store.vouchers.list({ where: { campaign_id: campaignId } })).data.map((s) => s.value)
}

const summer = {
  name: 'Summer',
  campaign_type: 'DISCOUNT_COUPONS',
  vouchers_count: 3,
  category: 'Seasonal',
  start_date: '2026-06-01T00:00:00.000Z',
  expiration_date: '2026-08-31T23:59:59.000Z',
  validity_timeframe: { duration: 'PT1H', interval: 'P1D' },
  validity_day_of_week: [1, 2, 3],
  metadata: { region: 'EU' },
  voucher: {
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'PERCENT', percent_off: 10 },
    redemption: { quantity: 1 },
    code_config: { pattern: 'SUMMER-####' },
  },
}

describe('campaigns.create', () => {
  it('creates a DISCOUNT_COUPONS campaign with its codes, all inheriting the campaign', async () => {
    const { engine, store } = testEngine()
    const campaign = await engine.raw.campaigns.create(summer)
    expect(campaign).toMatchObject({
      name: 'Summer',
      description: null,
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'AUTO_UPDATE',
      vouchers_count: 3,
      start_date: '2026-06-01T00:00:00.000Z',
      expiration_date: '2026-08-31T23:59:59.000Z',
      validity_timeframe: { duration: 'PT1H', interval: 'P1D' },
      validity_day_of_week: [1, 2, 3],
      validity_hours: null,
      active: true,
      category: 'Seasonal',
      metadata: { region: 'EU' },
      creation_status: 'DONE',
      vouchers_generation_status: 'DONE',
      protected: false,
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'campaign',
      voucher: {
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'PERCENT', percent_off: 10 },
        gift: null,
        loyalty_card: null,
        redemption: { quantity: 1 },
        code_config: { pattern: 'SUMMER-####', length: 4, charset: ALNUM },
        is_referral_code: false,
      },
    })
    expect(campaign.id).toMatch(/^camp_[0-9A-Za-z]{24}$/)
    // The category named by `category` did not exist: it was created with the default hierarchy.
    expect(campaign.categories).toEqual([
      {
        id: campaign.category_id,
        name: 'Seasonal',
        hierarchy: 1,
        created_at: '2026-01-15T10:00:00.000Z',
        updated_at: null,
        object: 'category',
      },
    ])
    expect(await engine.categories.get('Seasonal')).toEqual(campaign.categories[0])

    const codes = await vouchersOf(store, campaign.id)
    expect(codes).toHaveLength(3)
    expect(new Set(codes.map((v) => v.code)).size).toBe(3)
    for (const v of codes) {
      expect(v.code).toMatch(/^SUMMER-[0-9A-Za-z]{4}$/)
      expect(v).toMatchObject({
        campaign: 'Summer',
        campaign_id: campaign.id,
        category: 'Seasonal',
        category_id: campaign.category_id,
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'PERCENT', percent_off: 10 },
        gift: null,
        start_date: '2026-06-01T00:00:00.000Z',
        expiration_date: '2026-08-31T23:59:59.000Z',
        validity_timeframe: { duration: 'PT1H', interval: 'P1D' },
        validity_day_of_week: [1, 2, 3],
        active: true,
        is_referral_code: false,
        redemption: {
          quantity: 1,
          redeemed_quantity: 0,
          object: 'list',
          url: `/v1/vouchers/${v.code}/redemptions?page=1&limit=10`,
        },
      })
    }
  })

  it('reads a campaign back by id and by name', async () => {
    const { engine } = testEngine()
    const campaign = await engine.raw.campaigns.create(summer)
    expect(await engine.campaigns.get(campaign.id)).toEqual(campaign)
    expect(await engine.campaigns.get('Summer')).toEqual(campaign)
  })

  it('creates a GIFT_VOUCHERS campaign whose cards start with balance = amount and no redemption limit', async () => {
    const { engine, store } = testEngine()
    const campaign = await engine.campaigns.create({
      name: 'Gift cards',
      campaign_type: 'GIFT_VOUCHERS',
      type: 'STATIC',
      vouchers_count: 2,
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 10000, effect: 'APPLY_TO_ORDER' } },
    })
    expect(campaign).toMatchObject({
      type: 'STATIC',
      vouchers_count: 2,
      voucher: {
        type: 'GIFT_VOUCHER',
        discount: null,
        gift: { amount: 10000, effect: 'APPLY_TO_ORDER' },
        redemption: { quantity: null },
        code_config: { length: 8, charset: ALNUM },
      },
    })
    const cards = await vouchersOf(store, campaign.id)
    expect(cards).toHaveLength(2)
    for (const card of cards) {
      expect(card.code).toMatch(/^[0-9A-Za-z]{8}$/)
      expect(card.gift).toEqual({ amount: 10000, subtracted_amount: 0, balance: 10000, effect: 'APPLY_TO_ORDER' })
      expect(card.discount).toBeNull()
      expect(card.redemption).toMatchObject({ quantity: null, redeemed_quantity: 0, redeemed_amount: 0 })
      expect(card.category).toBeNull()
      expect(card.categories).toEqual([])
    }
  })

  it('creates a REFERRAL_PROGRAM campaign: referral codes, the program stored as given', async () => {
    const { engine, store } = testEngine()
    const gifts = await engine.campaigns.create({
      name: 'Gifts',
      campaign_type: 'GIFT_VOUCHERS',
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 0 } },
    })
    const referral_program = {
      conversion_event_type: 'redemption',
      referee_reward: {
        related_object_parent: { id: gifts.id, object: 'CAMPAIGN' },
        type: 'GIFT_VOUCHER',
        amount: '1000',
      },
    }
    const campaign = await engine.raw.campaigns.create({
      name: 'Refer a friend',
      campaign_type: 'REFERRAL_PROGRAM',
      vouchers_count: 1,
      referral_program,
      voucher: { discount: { type: 'AMOUNT', amount_off: 1500 }, code_config: { prefix: 'REF-', length: 5 } },
    })
    expect(campaign.referral_program).toEqual(referral_program)
    expect(campaign.voucher).toMatchObject({ type: 'DISCOUNT_VOUCHER', is_referral_code: true })
    const [code] = await vouchersOf(store, campaign.id)
    expect(code?.code).toMatch(/^REF-[0-9A-Za-z]{5}$/)
    expect(code?.is_referral_code).toBe(true)
  })

  it('takes an existing category by id', async () => {
    const { engine } = testEngine()
    const category = await engine.categories.create({ name: 'Flash', hierarchy: 0 })
    const campaign = await engine.raw.campaigns.create({ ...without(summer, 'category'), category_id: category.id })
    expect(campaign).toMatchObject({ category: 'Flash', category_id: category.id, categories: [category] })
  })

  it('creates a campaign without codes when vouchers_count is left out', async () => {
    const { engine, store } = testEngine()
    const { vouchers_count: _omitted, ...body } = summer
    const campaign = await engine.raw.campaigns.create(body)
    expect(campaign.vouchers_count).toBe(0)
    expect(await vouchersOf(store, campaign.id)).toEqual([])
  })

  it('generates 100 codes unique in the project, also against another campaign with the same pattern', async () => {
    const { engine, store } = testEngine()
    const base = { campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 100 }
    const voucher = {
      discount: { type: 'AMOUNT', amount_off: 500 },
      code_config: { pattern: 'X-###', charset: '0123456789' },
    }
    const a = await engine.raw.campaigns.create({ ...base, name: 'A', voucher })
    const b = await engine.raw.campaigns.create({ ...base, name: 'B', voucher })
    const codes = [...(await vouchersOf(store, a.id)), ...(await vouchersOf(store, b.id))].map((v) => v.code)
    expect(codes).toHaveLength(200)
    expect(new Set(codes).size).toBe(200)
    for (const c of codes) expect(c).toMatch(/^X-\d{3}$/)
  })
})

describe('campaigns.create bad input', () => {
  const cases: [string, unknown, string, number][] = [
    ['a missing name', without(summer, 'name'), 'name', 400],
    ['a missing campaign_type', without(summer, 'campaign_type'), 'campaign_type', 400],
    ['an unknown campaign_type', { ...summer, campaign_type: 'RAFFLE' }, 'campaign_type', 400],
    [
      'a PROMOTION campaign (promotions.create makes those)',
      { ...summer, campaign_type: 'PROMOTION' },
      'campaign_type',
      400,
    ],
    ['a missing voucher template', without(summer, 'voucher'), 'voucher', 400],
    ['vouchers_count of the wrong type', { ...summer, vouchers_count: '3' }, 'vouchers_count', 400],
    ['a negative vouchers_count', { ...summer, vouchers_count: -1 }, 'vouchers_count', 400],
    ['both category and category_id', { ...summer, category_id: 'cat_x' }, 'category_id', 400],
    ['validity_timeframe without start_date', without(summer, 'start_date'), 'start_date', 400],
    [
      'a template timeframe without any start date',
      {
        ...without(summer, 'start_date', 'validity_timeframe'),
        voucher: { ...summer.voucher, validity_timeframe: { duration: 'PT1H', interval: 'P1D' } },
      },
      'voucher.start_date',
      400,
    ],
    ['an expiration before the start', { ...summer, expiration_date: '2026-05-01T00:00:00Z' }, 'expiration_date', 400],
    [
      'a bad ISO duration',
      { ...summer, validity_timeframe: { duration: '1h', interval: 'P1D' } },
      'validity_timeframe.duration',
      400,
    ],
    ['a day of week out of range', { ...summer, validity_day_of_week: [7] }, 'validity_day_of_week[0]', 400],
    [
      'a voucher type that does not match the campaign',
      { ...summer, voucher: { ...summer.voucher, type: 'GIFT_VOUCHER' } },
      'voucher.type',
      400,
    ],
    [
      'a discount voucher without discount',
      { ...summer, voucher: { type: 'DISCOUNT_VOUCHER' } },
      'voucher.discount',
      400,
    ],
    [
      'a gift on a discount voucher',
      { ...summer, voucher: { ...summer.voucher, gift: { amount: 100 } } },
      'voucher.gift',
      400,
    ],
    [
      'a discount of an unknown type',
      { ...summer, voucher: { ...summer.voucher, discount: { type: 'SHIPPING' } } },
      'voucher.discount.type',
      400,
    ],
    [
      'a percent above 100',
      { ...summer, voucher: { ...summer.voucher, discount: { type: 'PERCENT', percent_off: 150 } } },
      'voucher.discount.percent_off',
      400,
    ],
    [
      'a redemption quantity of 0',
      { ...summer, voucher: { ...summer.voucher, redemption: { quantity: 0 } } },
      'voucher.redemption.quantity',
      400,
    ],
    [
      'a pattern without #',
      { ...summer, voucher: { ...summer.voucher, code_config: { pattern: 'SUMMER' } } },
      'voucher.code_config.pattern',
      400,
    ],
    [
      'an empty charset',
      { ...summer, voucher: { ...summer.voucher, code_config: { pattern: '##', charset: '' } } },
      'voucher.code_config.charset',
      400,
    ],
    ['an impossible calendar day (30 February)', { ...summer, start_date: '2026-02-30T00:00:00Z' }, 'start_date', 400],
    [
      'more codes than the pattern allows',
      { ...summer, vouchers_count: 3, voucher: { ...summer.voucher, code_config: { pattern: '#', charset: 'AB' } } },
      'voucher.code_config',
      400,
    ],
  ]

  it.each(cases)('rejects %s naming the field and writes nothing', async (_label, body, path, code) => {
    const { engine, store } = testEngine()
    await engine.categories.create({ name: 'Existing' })
    const before = await snapshot(store)
    const error = await rejection(engine.raw.campaigns.create(body))
    expect(error).toMatchObject({ code, path })
    expect(await snapshot(store)).toBe(before)
  })

  it('rejects a duplicate campaign name with 409 naming name, writing nothing', async () => {
    const { engine, store } = testEngine()
    await engine.raw.campaigns.create(summer)
    const before = await snapshot(store)
    await expect(engine.raw.campaigns.create({ ...summer, category: 'Other' })).rejects.toMatchObject({
      code: 409,
      key: 'duplicate_found',
      path: 'name',
    })
    expect(await snapshot(store)).toBe(before)
  })

  it('explains that start_date is needed because of validity_timeframe', async () => {
    const { engine } = testEngine()
    await expect(engine.raw.campaigns.create(without(summer, 'start_date'))).rejects.toMatchObject({
      path: 'start_date',
      details: 'Property .start_date is required when validity_timeframe is given',
    })
  })

  it('gives 404 for an unknown category_id, writing nothing', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    await expect(
      engine.raw.campaigns.create({ ...without(summer, 'category'), category_id: 'cat_nope' }),
    ).rejects.toMatchObject({
      code: 404,
      resource_type: 'category',
    })
    expect(await snapshot(store)).toBe(before)
  })

  it('fails clearly when stored codes exhaust the pattern space, writing nothing', async () => {
    const { engine, store } = testEngine()
    const voucher = { discount: { type: 'AMOUNT', amount_off: 1 }, code_config: { pattern: 'Z#', charset: 'AB' } }
    await engine.raw.campaigns.create({ name: 'First', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 2, voucher })
    const before = await snapshot(store)
    const error = await engine.raw.campaigns
      .create({ name: 'Second', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 1, voucher })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 400, path: 'voucher.code_config' })
    expect((error as EngineError).details).toMatch(/unused codes/)
    expect(await snapshot(store)).toBe(before)
  })
})

describe('campaigns.get', () => {
  it('gives 404 for an unknown campaign and 400 for an empty id', async () => {
    const { engine } = testEngine()
    await expect(engine.campaigns.get('camp_nope')).rejects.toMatchObject({ code: 404, resource_type: 'campaign' })
    await expect(engine.campaigns.get('')).rejects.toMatchObject({ code: 400, path: 'campaignId' })
  })
})
