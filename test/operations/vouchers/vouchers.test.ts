import { describe, expect, it } from 'vitest'
import { rejection, snapshot, testEngine, without } from '../../support/engine'

const tenOff = { code: 'TEN-OFF', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1000 } }

describe('vouchers.create (standalone)', () => {
  it('creates a DISCOUNT_VOUCHER with its wire shape', async () => {
    const { engine } = testEngine()
    const voucher = await engine.raw.vouchers.create({
      ...tenOff,
      redemption: { quantity: 5 },
      start_date: '2026-01-01T00:00:00.000Z',
      expiration_date: '2026-12-31T23:59:59.000Z',
      validity_hours: { daily: [{ start_time: '09:00', expiration_time: '17:00', days_of_week: [1, 2, 3, 4, 5] }] },
      additional_info: 'staff only',
      metadata: { channel: 'web' },
    })
    expect(voucher).toEqual({
      id: expect.stringMatching(/^v_[0-9A-Za-z]{24}$/),
      code: 'TEN-OFF',
      campaign: null,
      campaign_id: null,
      category: null,
      category_id: null,
      categories: [],
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 1000 },
      gift: null,
      loyalty_card: null,
      start_date: '2026-01-01T00:00:00.000Z',
      expiration_date: '2026-12-31T23:59:59.000Z',
      validity_timeframe: null,
      validity_day_of_week: null,
      validity_hours: { daily: [{ start_time: '09:00', expiration_time: '17:00', days_of_week: [1, 2, 3, 4, 5] }] },
      active: true,
      additional_info: 'staff only',
      metadata: { channel: 'web' },
      assets: {
        qr: { id: expect.stringMatching(/^qr_/), url: `promo-engine://assets/qr/${voucher.assets.qr.id}` },
        barcode: {
          id: expect.stringMatching(/^bc_/),
          url: `promo-engine://assets/barcode/${voucher.assets.barcode.id}`,
        },
      },
      is_referral_code: false,
      holder_id: null,
      redemption: {
        quantity: 5,
        redeemed_quantity: 0,
        object: 'list',
        url: '/v1/vouchers/TEN-OFF/redemptions?page=1&limit=10',
      },
      publish: { object: 'list', count: 0, url: '/v1/vouchers/TEN-OFF/publications?page=1&limit=10' },
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'voucher',
    })
    expect(await engine.vouchers.get('TEN-OFF')).toEqual(voucher)
    expect(await engine.vouchers.get(voucher.id)).toEqual(voucher)
  })

  it.each([
    [{ type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' }],
    [{ type: 'PERCENT', percent_off: 12.5, amount_limit: 3000, effect: 'APPLY_TO_ORDER' }],
    [{ type: 'FIXED', fixed_amount: 999, effect: 'APPLY_TO_ITEMS' }],
    [{ type: 'UNIT', unit_off: 1, unit_type: 'prod_5h1pp1ng', effect: 'ADD_MISSING_ITEMS' }],
    [
      {
        type: 'UNIT',
        effect: 'ADD_MANY_ITEMS',
        units: [
          { unit_off: 1, unit_type: 'prod_a', effect: 'ADD_NEW_ITEMS' },
          { unit_off: 2, unit_type: 'prod_b', effect: 'ADD_MISSING_ITEMS' },
        ],
      },
    ],
  ])('keeps a %o discount as given', async (discount) => {
    const { engine } = testEngine()
    const voucher = await engine.raw.vouchers.create({ type: 'DISCOUNT_VOUCHER', discount })
    expect(voucher.discount).toEqual(discount)
    expect(voucher.redemption.quantity).toBeNull()
  })

  it('creates a GIFT_VOUCHER with balance = amount and redeemed_amount 0', async () => {
    const { engine } = testEngine()
    const card = await engine.vouchers.create({ code: 'GIFT-50', type: 'GIFT_VOUCHER', gift: { amount: 5000 } })
    expect(card.gift).toEqual({ amount: 5000, subtracted_amount: 0, balance: 5000 })
    expect(card.discount).toBeNull()
    expect(card.redemption).toEqual({
      quantity: null,
      redeemed_quantity: 0,
      redeemed_amount: 0,
      object: 'list',
      url: '/v1/vouchers/GIFT-50/redemptions?page=1&limit=10',
    })
  })

  it('creates a LOYALTY_CARD with balance = points and redeemed_points 0', async () => {
    const { engine } = testEngine()
    const card = await engine.vouchers.create({ code: 'LC-1', type: 'LOYALTY_CARD', loyalty_card: { points: 250 } })
    expect(card.loyalty_card).toEqual({ points: 250, balance: 250 })
    expect(card.redemption).toMatchObject({ quantity: null, redeemed_quantity: 0, redeemed_points: 0 })
  })

  it('generates the code from code_config when none is given, URL-encoding it in the list urls', async () => {
    const { engine } = testEngine()
    const voucher = await engine.vouchers.create({
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 5 },
      code_config: { pattern: 'WEL #-##', charset: 'XYZ' },
    })
    expect(voucher.code).toMatch(/^WEL [XYZ]-[XYZ]{2}$/)
    expect(voucher.redemption.url).toBe(`/v1/vouchers/${encodeURIComponent(voucher.code)}/redemptions?page=1&limit=10`)
    expect(voucher.redemption.url).toContain('WEL%20')
  })

  it('puts a voucher in a category by name (created when new) or by id', async () => {
    const { engine } = testEngine()
    const a = await engine.raw.vouchers.create({ ...tenOff, category: 'Newsletter' })
    const cat = await engine.categories.get('Newsletter')
    expect(a).toMatchObject({ category: 'Newsletter', category_id: cat.id, categories: [cat] })
    const b = await engine.raw.vouchers.create({ ...tenOff, code: 'B', category_id: cat.id })
    expect(b.categories).toEqual([cat])
  })
})

describe('vouchers.create in a campaign', () => {
  async function withCampaign() {
    const t = testEngine()
    const campaign = await t.engine.campaigns.create({
      name: 'Spring',
      campaign_type: 'DISCOUNT_COUPONS',
      category: 'Seasonal',
      start_date: '2026-03-01T00:00:00.000Z',
      validity_timeframe: { duration: 'PT2H', interval: 'P1W' },
      validity_day_of_week: [6],
      voucher: {
        discount: { type: 'PERCENT', percent_off: 15 },
        redemption: { quantity: 2 },
        code_config: { pattern: 'SPRING-###' },
      },
    })
    return { ...t, campaign }
  }

  it('inherits everything left out from the campaign and counts the voucher', async () => {
    const { engine, campaign } = await withCampaign()
    const voucher = await engine.vouchers.create({ campaign: 'Spring' })
    expect(voucher.code).toMatch(/^SPRING-[0-9A-Za-z]{3}$/)
    expect(voucher).toMatchObject({
      campaign: 'Spring',
      campaign_id: campaign.id,
      category: 'Seasonal',
      category_id: campaign.category_id,
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 15 },
      start_date: '2026-03-01T00:00:00.000Z',
      validity_timeframe: { duration: 'PT2H', interval: 'P1W' },
      validity_day_of_week: [6],
      redemption: { quantity: 2, redeemed_quantity: 0 },
    })
    expect(await engine.campaigns.get(campaign.id)).toMatchObject({
      vouchers_count: 1,
      updated_at: '2026-01-15T10:00:00.000Z',
    })
  })

  it('lets the request override the template, by campaign_id', async () => {
    const { engine, campaign } = await withCampaign()
    const voucher = await engine.vouchers.create({
      campaign_id: campaign.id,
      code: 'SPRING-VIP',
      discount: { type: 'PERCENT', percent_off: 30 },
      redemption: { quantity: null },
      validity_day_of_week: null,
    })
    expect(voucher).toMatchObject({
      code: 'SPRING-VIP',
      discount: { type: 'PERCENT', percent_off: 30 },
      redemption: { quantity: null },
      validity_day_of_week: null,
      start_date: '2026-03-01T00:00:00.000Z',
    })
  })

  it.each([
    [
      'a type other than the campaign’s',
      { campaign: 'Spring', type: 'GIFT_VOUCHER', gift: { amount: 1 } },
      'type',
      400,
    ],
    ['both campaign and campaign_id', { campaign: 'Spring', campaign_id: 'camp_x' }, 'campaign_id', 400],
    ['an unknown campaign', { campaign: 'Autumn' }, undefined, 404],
  ])('rejects %s, writing nothing', async (_label, body, path, code) => {
    const { engine, store } = await withCampaign()
    const before = await snapshot(store)
    const error = await rejection(engine.raw.vouchers.create(body))
    expect(error).toMatchObject({ code, path })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('vouchers.create bad input', () => {
  const cases: [string, unknown, string, number][] = [
    ['a missing type outside a campaign', without(tenOff, 'type'), 'type', 400],
    ['an unknown type', { ...tenOff, type: 'COUPON' }, 'type', 400],
    ['a body that is not an object', 'TEN-OFF', 'body', 400],
    ['an empty code', { ...tenOff, code: '' }, 'code', 400],
    ['a code of the wrong type', { ...tenOff, code: 42 }, 'code', 400],
    ['a missing discount', without(tenOff, 'discount'), 'discount', 400],
    [
      'amount_off as a string',
      { ...tenOff, discount: { type: 'AMOUNT', amount_off: '10' } },
      'discount.amount_off',
      400,
    ],
    [
      'a fractional amount_off',
      { ...tenOff, discount: { type: 'AMOUNT', amount_off: 10.5 } },
      'discount.amount_off',
      400,
    ],
    ['a missing percent_off', { ...tenOff, discount: { type: 'PERCENT' } }, 'discount.percent_off', 400],
    [
      'a negative fixed_amount',
      { ...tenOff, discount: { type: 'FIXED', fixed_amount: -1 } },
      'discount.fixed_amount',
      400,
    ],
    ['a UNIT without unit_type', { ...tenOff, discount: { type: 'UNIT', unit_off: 1 } }, 'discount.unit_type', 400],
    [
      'an unknown effect',
      { ...tenOff, discount: { type: 'PERCENT', percent_off: 5, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' } },
      'discount.effect',
      400,
    ],
    ['a gift card without gift', { code: 'G', type: 'GIFT_VOUCHER' }, 'gift', 400],
    [
      'a discount on a gift card',
      { code: 'G', type: 'GIFT_VOUCHER', gift: { amount: 1 }, discount: tenOff.discount },
      'discount',
      400,
    ],
    [
      'a gift amount that is not money',
      { code: 'G', type: 'GIFT_VOUCHER', gift: { amount: 1e16 } },
      'gift.amount',
      400,
    ],
    [
      'a loyalty card without points',
      { code: 'L', type: 'LOYALTY_CARD', loyalty_card: {} },
      'loyalty_card.points',
      400,
    ],
    ['a redemption quantity of 0', { ...tenOff, redemption: { quantity: 0 } }, 'redemption.quantity', 400],
    ['both category and category_id', { ...tenOff, category: 'A', category_id: 'cat_x' }, 'category_id', 400],
    [
      'validity_timeframe without start_date',
      { ...tenOff, validity_timeframe: { duration: 'PT1H', interval: 'P1D' } },
      'start_date',
      400,
    ],
    [
      'validity_hours with a bad time',
      { ...tenOff, validity_hours: { daily: [{ start_time: '25:00', expiration_time: '10:00', days_of_week: [1] }] } },
      'validity_hours.daily[0].start_time',
      400,
    ],
    ['a bad start_date', { ...tenOff, start_date: 'tomorrow' }, 'start_date', 400],
    [
      'a pattern without #',
      without({ ...tenOff, code_config: { pattern: 'ABC' } }, 'code'),
      'code_config.pattern',
      400,
    ],
  ]

  it.each(cases)('rejects %s naming the field and writes nothing', async (_label, body, path, code) => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    const error = await rejection(engine.raw.vouchers.create(body))
    expect(error).toMatchObject({ code, path })
    expect(await snapshot(store)).toBe(before)
  })

  it('rejects a duplicate code with 409 duplicate_found naming code, writing nothing', async () => {
    const { engine, store } = testEngine()
    await engine.raw.vouchers.create(tenOff)
    const before = await snapshot(store)
    await expect(
      engine.raw.vouchers.create({ ...tenOff, discount: { type: 'PERCENT', percent_off: 1 } }),
    ).rejects.toMatchObject({
      code: 409,
      key: 'duplicate_found',
      path: 'code',
      details: 'A voucher with code "TEN-OFF" already exists',
    })
    expect(await snapshot(store)).toBe(before)
  })

  it('rejects a code already generated for a campaign', async () => {
    const { engine, store } = testEngine()
    await engine.campaigns.create({
      name: 'One',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 1,
      voucher: { discount: { type: 'AMOUNT', amount_off: 1 }, code_config: { pattern: '#', charset: 'Q' } },
    })
    await expect(engine.raw.vouchers.create({ ...tenOff, code: 'Q' })).rejects.toMatchObject({
      code: 409,
      path: 'code',
    })
    expect((await store.vouchers.list()).total).toBe(1)
  })
})

describe('vouchers.create error details', () => {
  it('phrases a missing UNIT field like any other missing field', async () => {
    const { engine } = testEngine()
    await expect(
      engine.vouchers.create({ type: 'DISCOUNT_VOUCHER', discount: { type: 'UNIT', unit_off: 1 } }),
    ).rejects.toMatchObject({ path: 'discount.unit_type', details: 'Property .discount.unit_type is required' })
  })
})

describe('vouchers.create under concurrency', () => {
  it('lets exactly one of two concurrent creates of the same code win; the other gets 409', async () => {
    const { engine, store } = testEngine()
    const results = await Promise.allSettled([engine.raw.vouchers.create(tenOff), engine.raw.vouchers.create(tenOff)])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    const rejected = results.find((r) => r.status === 'rejected')
    expect(rejected?.reason).toMatchObject({ code: 409, key: 'duplicate_found', path: 'code' })
    expect((await store.vouchers.list()).total).toBe(1)
  })

  it('counts every voucher added concurrently to one campaign', async () => {
    const { engine } = testEngine()
    await engine.campaigns.create({
      name: 'C',
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { discount: { type: 'AMOUNT', amount_off: 1 } },
    })
    await Promise.all([1, 2, 3].map(() => engine.vouchers.create({ campaign: 'C' })))
    expect((await engine.campaigns.get('C')).vouchers_count).toBe(3)
  })
})

describe('vouchers.get', () => {
  it('gives 404 for an unknown code and 400 for an empty one', async () => {
    const { engine } = testEngine()
    await expect(engine.vouchers.get('NOPE')).rejects.toMatchObject({ code: 404, resource_type: 'voucher' })
    await expect(engine.vouchers.get('')).rejects.toMatchObject({ code: 400, path: 'code' })
  })
})

describe('formulas on create', () => {
  it('refuses a formula that does not parse, naming the field and the position, and writes nothing', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    await expect(
      engine.vouchers.create({
        code: 'F',
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'AMOUNT', amount_off: 100, amount_off_formula: 'MIN(ORDER_AMOUNT x 0.1;' },
      }),
    ).rejects.toMatchObject({ code: 400, path: 'discount.amount_off_formula' })
    expect(await snapshot(store)).toBe(before)
    const ok = await engine.vouchers.create({
      code: 'G',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, amount_off_formula: 'MIN(ORDER_AMOUNT x 0.1; 50)' },
    })
    expect(ok.discount).toMatchObject({ amount_off_formula: 'MIN(ORDER_AMOUNT x 0.1; 50)' })
  })
})
