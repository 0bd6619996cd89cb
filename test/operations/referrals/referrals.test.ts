import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import { mutate } from '../../../src/operations/kernel/unit-of-work'
import { convertReferralOnCustomEvent, recordReferral } from '../../../src/operations/referrals/conversions'
import { isReferrer } from '../../../src/rules/referral-codes'
import { snapshot, testEngine } from '../../support/engine'

const T0 = '2026-01-15T10:00:00.000Z'

const referralProgram = (over: Record<string, unknown> = {}) => ({
  name: 'Refer a friend',
  campaign_type: 'REFERRAL_PROGRAM',
  vouchers_count: 2,
  voucher: { discount: { type: 'AMOUNT', amount_off: 1000 }, code_config: { pattern: 'REF-####' } },
  ...over,
})

async function setup(over: Record<string, unknown> = {}) {
  const t = testEngine()
  const campaign = await t.engine.raw.campaigns.create(referralProgram(over))
  const codes = (await t.store.vouchers.list({ where: { campaign_id: campaign.id } })).data.map((s) => s.value.code)
  const alice = await t.engine.customers.create({ source_id: 'alice' })
  const bob = await t.engine.customers.create({ source_id: 'bob' })
  return { ...t, campaign, codes, alice, bob }
}

/** The customer's activity types, sorted (items of one instant tie on time and sort by random id). */
async function activityTypes(store: ReturnType<typeof testEngine>['store'], customerId: string): Promise<string[]> {
  return (await store.activities.list({ where: { customer_id: customerId } })).data.map((s) => s.value.type).sort()
}

describe('referrals.publish', () => {
  it('publishes a free referral code to its referrer: publication, holder, voucher fields, event', async () => {
    const { engine, store, campaign, codes, alice } = await setup()
    const result = await engine.referrals.publish('Refer a friend', {
      customer: { source_id: 'alice' },
      metadata: { origin: 'newsletter' },
    })
    expect(result).toMatchObject({
      id: expect.stringMatching(/^pub_/),
      object: 'publication',
      campaign_id: campaign.id,
      customer_id: alice.id,
      source_id: null,
      channel: 'API',
      metadata: { origin: 'newsletter' },
      created_at: T0,
      result: 'SUCCESS',
      customer: { id: alice.id, source_id: 'alice', object: 'customer' },
    })
    const voucher = result.voucher
    // A free code picked at random among the campaign's free ones (concurrent publications do not race for one).
    const code = voucher?.code ?? ''
    expect(codes).toContain(code)
    expect(voucher).toMatchObject({ holder_id: alice.id, referrer_id: alice.id, is_referral_code: true })
    expect(voucher?.publish.count).toBe(1)
    expect(result.vouchers_id).toEqual([voucher?.id])
    expect((await engine.vouchers.get(code)).publish.count).toBe(1)
    const holders = await engine.referrals.listHolders(code)
    expect(holders).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [
        {
          id: expect.stringMatching(/^rh_/),
          created_at: T0,
          redeemable_id: voucher?.id,
          redeemable_object: 'voucher',
          campaign_id: campaign.id,
          campaign_type: 'REFERRAL_PROGRAM',
          voucher_type: 'DISCOUNT_VOUCHER',
          customer_id: alice.id,
          holder_role: 'REFERRER',
          object: 'redeemable_holder',
        },
      ],
      total: 1,
      has_more: false,
      more_starting_after: null,
    })
    expect(await activityTypes(store, alice.id)).toEqual(['customer.created', 'customer.publication.succeeded'])
  })

  it('publishes a given code, generates one when an AUTO_UPDATE campaign runs out, and creates a new customer', async () => {
    const { engine, store, campaign, codes } = await setup({ vouchers_count: 1 })
    const first = await engine.raw.referrals.publish(campaign.id, {
      customer: { source_id: 'alice' },
      voucher: codes[0],
    })
    expect(first.voucher?.code).toBe(codes[0])
    const second = await engine.referrals.publish(campaign.id, { customer: { source_id: 'carol' } })
    expect(second.voucher?.code).toMatch(/^REF-[0-9A-Za-z]{4}$/)
    expect(second.voucher?.code).not.toBe(codes[0])
    expect((await engine.campaigns.get(campaign.id)).vouchers_count).toBe(2)
    expect((await store.customers.findBy('source_id', 'carol'))?.value.id).toBe(second.customer_id)
  })

  it('is idempotent by source_id: the same request returns the first publication and writes nothing', async () => {
    const { engine, store } = await setup()
    const first = await engine.referrals.publish('Refer a friend', {
      customer: { source_id: 'alice' },
      source_id: 'p-1',
    })
    const before = await snapshot(store)
    const again = await engine.referrals.publish('Refer a friend', {
      customer: { source_id: 'alice' },
      source_id: 'p-1',
    })
    expect(again).toEqual(first)
    expect(await snapshot(store)).toBe(before)
  })

  it.each([
    ['no customer', {}, 'customer'],
    ['a customer without id or source_id', { customer: {} }, 'customer'],
    ['metadata not an object', { customer: { source_id: 'alice' }, metadata: 'x' }, 'metadata'],
    ['count 0', { customer: { source_id: 'alice' }, count: 0 }, 'count'],
    ['count 101', { customer: { source_id: 'alice' }, count: 101 }, 'count'],
    ['two codes with a source_id', { customer: { source_id: 'alice' }, count: 2, source_id: 's' }, 'campaign.count'],
    ['two codes with a voucher', { customer: { source_id: 'alice' }, count: 2, voucher: 'X' }, 'campaign.count'],
  ])('rejects %s with a 400 naming %s and writes nothing', async (_label, body, path) => {
    const { engine, store } = await setup()
    const before = await snapshot(store)
    await expect(engine.raw.referrals.publish('Refer a friend', body)).rejects.toMatchObject({ code: 400, path })
    expect(await snapshot(store)).toBe(before)
  })

  it('rejects unknown campaigns, codes and customers (404), other programs (400), a taken code (409)', async () => {
    const { engine, store, codes } = await setup()
    await engine.campaigns.create({
      name: 'Plain',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 1,
      voucher: { discount: { type: 'AMOUNT', amount_off: 100 } },
    })
    await engine.raw.referrals.publish('Refer a friend', { customer: { source_id: 'alice' }, voucher: codes[0] })
    const before = await snapshot(store)
    await expect(engine.referrals.publish('Nope', { customer: { source_id: 'bob' } })).rejects.toMatchObject({
      code: 404,
      resource_type: 'campaign',
    })
    await expect(
      engine.referrals.publish('Refer a friend', { customer: { source_id: 'bob' }, voucher: 'NOPE' }),
    ).rejects.toMatchObject({ code: 404, resource_type: 'voucher' })
    await expect(
      engine.referrals.publish('Refer a friend', { customer: { id: 'cust_missing' } }),
    ).rejects.toMatchObject({ code: 404, resource_type: 'customer' })
    await expect(engine.referrals.publish('Plain', { customer: { source_id: 'bob' } })).rejects.toMatchObject({
      code: 400,
      path: 'campaign',
    })
    await expect(
      engine.raw.referrals.publish('Refer a friend', { customer: { source_id: 'bob' }, voucher: codes[0] }),
    ).rejects.toMatchObject({ code: 400, key: 'voucher_already_published' })
    expect(await snapshot(store)).toBe(before)
  })

  it('refuses a STATIC campaign without free codes (400 no_voucher_suitable_for_publication)', async () => {
    const { engine, store } = await setup({ type: 'STATIC', vouchers_count: 0 })
    const before = await snapshot(store)
    await expect(
      engine.referrals.publish('Refer a friend', { customer: { source_id: 'alice' } }),
    ).rejects.toMatchObject({ code: 400, key: 'no_voucher_suitable_for_publication' })
    expect(await snapshot(store)).toBe(before)
  })

  it('checks publication metadata against the publication schema, naming the property', async () => {
    const { engine, store } = await setup()
    await engine.metadataSchemas.create({
      related_object: 'publication',
      properties: { origin: { type: 'string', optional: false } },
    })
    const before = await snapshot(store)
    await expect(
      engine.referrals.publish('Refer a friend', { customer: { source_id: 'alice' }, metadata: { origin: 5 } }),
    ).rejects.toMatchObject({ code: 400, key: 'invalid_metadata', path: 'metadata.origin' })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('publications.create', () => {
  it('publishes ordinary codes to their OWNER, several at once from a campaign', async () => {
    const { engine, store } = testEngine()
    const c = await engine.campaigns.create({
      name: 'Plain',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 3,
      voucher: { discount: { type: 'AMOUNT', amount_off: 100 } },
    })
    const result = await engine.publications.create({
      customer: { source_id: 'dan' },
      campaign: { name: 'Plain', count: 2 },
    })
    expect(result.vouchers).toHaveLength(2)
    expect(result.voucher).toBeUndefined()
    const holders = (await store.redeemable_holders.list()).data.map((s) => s.value)
    expect(holders.map((h) => [h.holder_role, h.customer_id, h.campaign_id])).toEqual([
      ['OWNER', result.customer_id, c.id],
      ['OWNER', result.customer_id, c.id],
    ])
    const published = await Promise.all((result.vouchers ?? []).map((code) => engine.vouchers.get(code)))
    expect(published.map((v) => [v.holder_id, v.referrer_id, v.publish.count])).toEqual([
      [result.customer_id, undefined, 1],
      [result.customer_id, undefined, 1],
    ])
  })

  it('needs a voucher or a campaign (400 naming voucher)', async () => {
    const { engine } = testEngine()
    await expect(engine.publications.create({ customer: { source_id: 'dan' } })).rejects.toMatchObject({
      code: 400,
      path: 'voucher',
    })
  })
})

describe('referrals.listHolders', () => {
  async function withReferees() {
    const t = await setup()
    const code = t.codes[0] ?? ''
    await t.engine.referrals.publish('Refer a friend', { customer: { source_id: 'alice' }, voucher: code })
    const voucher = await t.engine.vouchers.get(code)
    const referees = []
    for (const name of ['r1', 'r2', 'r3']) {
      t.clock.advance(1000)
      const c = await t.engine.customers.create({ source_id: name })
      await mutate(engineContext(t.engine), (tx) => recordReferral(tx, { voucher, customerId: c.id }))
      referees.push(c.id)
    }
    return { ...t, code, voucher, referees }
  }

  it('pages by limit and cursor, filters by holder_role, orders by id, and takes the campaign', async () => {
    const { engine, code, alice, referees, campaign } = await withReferees()
    const first = await engine.raw.referrals.listHolders(code, { limit: 2 })
    expect(first.data.map((h) => h.customer_id)).toEqual([alice.id, referees[0]])
    expect(first).toMatchObject({ total: 4, has_more: true, more_starting_after: first.data[1]?.id })
    const next = await engine.raw.referrals.listHolders(code, {
      limit: 2,
      starting_after_id: first.more_starting_after,
    })
    expect(next.data.map((h) => h.customer_id)).toEqual([referees[1], referees[2]])
    expect(next).toMatchObject({ total: 4, has_more: false, more_starting_after: null })
    const referrers = await engine.referrals.listHolders(code, {
      filters: { holder_role: { conditions: { $in: ['REFERRER'] } } },
    })
    expect(referrers.data.map((h) => [h.holder_role, h.customer_id])).toEqual([['REFERRER', alice.id]])
    expect(referrers.total).toBe(1)
    const owners = await engine.referrals.listHolders(campaign.name, code, {
      filters: { holder_role: { conditions: { $is: 'OWNER' } } },
    })
    expect(owners.data.map((h) => h.customer_id)).toEqual(referees)
    const byId = await engine.referrals.listHolders(code, { order: '-id' })
    const ids = byId.data.map((h) => h.id)
    expect(ids).toEqual([...ids].sort().reverse())
  })

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 'x' }, 'limit'],
    [{ order: 'created_at' }, 'order'],
    [{ filters: { unknown_field: { conditions: { $in: ['x'] } } } }, 'filters.unknown_field'],
    [{ filters: { holder_role: { conditions: { $like: ['x'] } } } }, 'filters.holder_role.conditions.$like'],
    [{ filters: { junction: 'XOR' } }, 'filters.junction'],
  ])('rejects the query %j naming %s', async (query, path) => {
    const { engine, codes } = await setup()
    await expect(engine.referrals.listHolders(codes[0] ?? '', query)).rejects.toMatchObject({ code: 400, path })
  })

  it('404s for an unknown code, an unknown campaign and a code of another campaign', async () => {
    const { engine, codes } = await setup()
    await engine.campaigns.create({
      name: 'Other',
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { discount: { type: 'AMOUNT', amount_off: 1 } },
    })
    await expect(engine.referrals.listHolders('NOPE')).rejects.toMatchObject({ code: 404, resource_type: 'voucher' })
    await expect(engine.raw.referrals.listHolders('Nope', codes[0] ?? '', {})).rejects.toMatchObject({
      code: 404,
      resource_type: 'campaign',
    })
    await expect(engine.referrals.listHolders('Other', codes[0] ?? '', {})).rejects.toMatchObject({
      code: 404,
      resource_type: 'voucher',
    })
  })
})

describe('recordReferral and isReferrer (for the redemption pipeline)', () => {
  it('makes the referee a holder and emits customer.referred once, naming the referrer', async () => {
    const { engine, store, codes, alice, bob } = await setup()
    await engine.raw.referrals.publish('Refer a friend', { customer: { source_id: 'alice' }, voucher: codes[0] })
    const voucher = await engine.vouchers.get(codes[0] ?? '')
    expect(isReferrer(voucher, alice.id)).toBe(true)
    expect(isReferrer(voucher, bob.id)).toBe(false)
    expect(isReferrer(voucher, null)).toBe(false)
    const outcome = await mutate(engineContext(engine), (tx) => recordReferral(tx, { voucher, customerId: bob.id }))
    expect(outcome).toMatchObject({ referred: true, holder: { customer_id: bob.id, holder_role: 'OWNER' } })
    const referred = (await store.activities.list({ where: { customer_id: bob.id, type: 'customer.referred' } })).data
    expect(referred.map((s) => s.value.data)).toEqual([
      {
        customer: { id: bob.id },
        referrer: { id: alice.id, object: 'customer' },
        referral: { code: codes[0], voucher_id: voucher.id, campaign_id: voucher.campaign_id },
        event_source: { channel: 'API' },
      },
    ])
    expect(referred[0]?.value).toMatchObject({ campaign_type: 'REFERRAL_PROGRAM', campaign_id: voucher.campaign_id })
    // Again: no second holder, no second event.
    const again = await mutate(engineContext(engine), (tx) => recordReferral(tx, { voucher, customerId: bob.id }))
    expect(again).toMatchObject({ referred: false, reason: 'already_referred', holder: { id: outcome.holder?.id } })
    expect((await store.redeemable_holders.list()).total).toBe(2)
    expect(await activityTypes(store, bob.id)).toEqual(['customer.created', 'customer.referred'])
  })

  it('does nothing for the referrer, an unpublished code, or a plain voucher', async () => {
    const { engine, store, codes, alice, bob } = await setup()
    const unpublished = await engine.vouchers.get(codes[1] ?? '')
    await engine.raw.referrals.publish('Refer a friend', { customer: { source_id: 'alice' }, voucher: codes[0] })
    const published = await engine.vouchers.get(codes[0] ?? '')
    const plain = await engine.vouchers.create({
      code: 'PLAIN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 1 },
    })
    const before = await snapshot(store)
    const run = (voucher: typeof plain, customerId: string) =>
      mutate(engineContext(engine), (tx) => recordReferral(tx, { voucher, customerId }))
    expect(await run(published, alice.id)).toEqual({ holder: null, referred: false, reason: 'referrer' })
    expect(await run(unpublished, bob.id)).toEqual({ holder: null, referred: false, reason: 'not_published' })
    expect(await run(plain, bob.id)).toEqual({ holder: null, referred: false, reason: 'not_a_referral_code' })
    expect(await snapshot(store)).toBe(before)
  })

  it('on a program converting on a custom event, redemption makes a holder but does not convert', async () => {
    const { engine, store, codes, bob } = await setup({
      referral_program: { conversion_event_type: 'custom_event', custom_event: { name: 'signed_up' } },
    })
    await engine.raw.referrals.publish('Refer a friend', { customer: { source_id: 'alice' }, voucher: codes[0] })
    const voucher = await engine.vouchers.get(codes[0] ?? '')
    const outcome = await mutate(engineContext(engine), (tx) => recordReferral(tx, { voucher, customerId: bob.id }))
    expect(outcome).toMatchObject({
      referred: false,
      reason: 'converts_on_custom_event',
      holder: { customer_id: bob.id },
    })
    expect(await activityTypes(store, bob.id)).toEqual(['customer.created'])
  })
})

describe('convertReferralOnCustomEvent (for events.create)', () => {
  async function customProgram() {
    const t = await setup({
      referral_program: { conversion_event_type: 'custom_event', custom_event: { name: 'signed_up' } },
    })
    await t.engine.raw.referrals.publish('Refer a friend', { customer: { source_id: 'alice' }, voucher: t.codes[0] })
    const convert = (eventName: string, customerId: string, referral: { code: string; referrer_id?: string }) =>
      mutate(engineContext(t.engine), (tx) => convertReferralOnCustomEvent(tx, { eventName, customerId, referral }))
    return { ...t, code: t.codes[0] ?? '', convert }
  }

  it('converts when the event is the program custom event, once per referee', async () => {
    const { store, code, alice, bob, convert } = await customProgram()
    const outcome = await convert('signed_up', bob.id, { code, referrer_id: alice.id })
    expect(outcome).toMatchObject({ referred: true, holder: { customer_id: bob.id, holder_role: 'OWNER' } })
    expect(await convert('signed_up', bob.id, { code })).toMatchObject({ referred: false, reason: 'already_referred' })
    expect(await activityTypes(store, bob.id)).toEqual(['customer.created', 'customer.referred'])
  })

  it('does not convert on another event name, nor for a program converting on redemption', async () => {
    const { store, code, bob, convert } = await customProgram()
    const before = await snapshot(store)
    expect(await convert('bought', bob.id, { code })).toEqual({
      holder: null,
      referred: false,
      reason: 'other_custom_event',
    })
    expect(await snapshot(store)).toBe(before)
    const t = await setup()
    await t.engine.raw.referrals.publish('Refer a friend', { customer: { source_id: 'alice' }, voucher: t.codes[0] })
    const outcome = await mutate(engineContext(t.engine), (tx) =>
      convertReferralOnCustomEvent(tx, {
        eventName: 'signed_up',
        customerId: t.bob.id,
        referral: { code: t.codes[0] ?? '' },
      }),
    )
    expect(outcome).toEqual({ holder: null, referred: false, reason: 'converts_on_redemption' })
  })

  it('rejects an unknown code (404), a non-referral code and a wrong referrer_id (400), writing nothing', async () => {
    const { engine, store, code, bob, convert } = await customProgram()
    await engine.vouchers.create({
      code: 'PLAIN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 1 },
    })
    const before = await snapshot(store)
    await expect(convert('signed_up', bob.id, { code: 'NOPE' })).rejects.toMatchObject({ code: 404 })
    await expect(convert('signed_up', bob.id, { code: 'PLAIN' })).rejects.toMatchObject({
      code: 400,
      path: 'referral.code',
    })
    await expect(convert('signed_up', bob.id, { code, referrer_id: bob.id })).rejects.toMatchObject({
      code: 400,
      path: 'referral.referrer_id',
    })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('referral codes in the redemption pipeline', () => {
  it('the referrer may not redeem their own code; a referee redeeming it becomes a holder and is referred', async () => {
    const { engine, store, alice, bob } = await setup()
    const published = await engine.referrals.publish('Refer a friend', { customer: { source_id: 'alice' } })
    const code = published.voucher?.code as string
    const byReferrer = await engine.validations.validateStackable({
      customer: { source_id: 'alice' },
      order: { amount: 5000 },
      redeemables: [{ object: 'voucher', id: code }],
    })
    expect(byReferrer.valid).toBe(false)
    expect(byReferrer.redeemables[0]?.result).toMatchObject({
      error: {
        key: 'referrer_not_permitted_to_redeem',
        message: 'voucher cannot be redeemed by referrer',
        details: code,
      },
    })
    const redeemed = await engine.redemptions.redeemStackable({
      customer: { source_id: 'bob' },
      order: { amount: 5000 },
      redeemables: [{ object: 'voucher', id: code }],
    })
    expect(redeemed.order.total_amount).toBe(4000)
    const holders = await engine.referrals.listHolders(code)
    expect(holders.data.map((h) => [h.customer_id, h.holder_role]).sort()).toEqual(
      [
        [alice.id, 'REFERRER'],
        [bob.id, 'OWNER'],
      ].sort(),
    )
    expect(await activityTypes(store, bob.id)).toContain('customer.referred')
  })
})

describe('events.create with a referral', () => {
  it('converts the referral when the program converts on that custom event', async () => {
    const { engine, store, bob } = await setup({
      referral_program: { conversion_event_type: 'custom_event', custom_event: { name: 'signed_up' } },
    })
    await engine.metadataSchemas.create({ related_object: 'signed_up', properties: {} })
    const published = await engine.referrals.publish('Refer a friend', { customer: { source_id: 'alice' } })
    const code = published.voucher?.code as string
    const event = await engine.events.create('signed_up', { customer: { source_id: 'bob' }, referral: { code } })
    expect(event).toMatchObject({ object: 'event', type: 'signed_up', referral: null, loyalty: null })
    expect(await activityTypes(store, bob.id)).toEqual([
      'customer.created',
      'customer.custom_event',
      'customer.referred',
    ])
  })
})

describe('referral conversion under concurrency', () => {
  it('converts a referee once, whatever the number of concurrent custom events', async () => {
    const { engine, store, bob } = await setup({
      referral_program: { conversion_event_type: 'custom_event', custom_event: { name: 'signed_up' } },
    })
    await engine.metadataSchemas.create({ related_object: 'signed_up', properties: {} })
    const published = await engine.referrals.publish('Refer a friend', { customer: { source_id: 'alice' } })
    const code = published.voucher?.code as string
    await Promise.all(
      [1, 2, 3, 4].map(() => engine.events.create('signed_up', { customer: { source_id: 'bob' }, referral: { code } })),
    )
    const referred = (await store.activities.list({ where: { customer_id: bob.id, type: 'customer.referred' } })).total
    expect(referred).toBe(1)
    const holders = await engine.referrals.listHolders(code)
    expect(holders.data.filter((h) => h.customer_id === bob.id)).toHaveLength(1)
  })
})
