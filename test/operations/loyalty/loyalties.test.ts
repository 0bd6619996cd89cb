import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'
import { member, program } from './fixtures'

describe('loyalties.create', () => {
  it('answers IN_PROGRESS with no codes; the async action generates them and marks DONE', async () => {
    const { engine, store } = testEngine()
    const created = await engine.loyalties.create({
      name: 'Club',
      type: 'STATIC',
      join_once: false,
      auto_join: true,
      vouchers_count: 3,
      category: 'Loyalty',
      metadata: { tier_program: true },
      activity_duration_after_publishing: 'P1Y',
      voucher: {
        type: 'LOYALTY_CARD',
        loyalty_card: { points: 10, expiration_rules: { period_type: 'MONTH', period_value: 1 } },
        redemption: { quantity: null },
        code_config: { pattern: 'CLUB-####' },
      },
      loyalty_tiers_expiration: { qualification_type: 'BALANCE', expiration_date: { type: 'BALANCE_DROP' } },
    })
    expect(created).toMatchObject({
      campaign_type: 'LOYALTY_PROGRAM',
      type: 'STATIC',
      join_once: true,
      auto_join: true,
      vouchers_count: 0,
      creation_status: 'IN_PROGRESS',
      vouchers_generation_status: 'IN_PROGRESS',
      category: 'Loyalty',
      activity_duration_after_publishing: 'P1Y',
      loyalty_tiers_expiration: { qualification_type: 'BALANCE' },
    })
    expect((await store.vouchers.list({ where: { campaign_id: created.id } })).total).toBe(0)
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
    const done = await engine.loyalties.get(created.id)
    expect(done).toMatchObject({ vouchers_count: 3, creation_status: 'DONE', vouchers_generation_status: 'DONE' })
    const cards = (await store.vouchers.list({ where: { campaign_id: created.id } })).data.map((s) => s.value)
    expect(cards).toHaveLength(3)
    for (const card of cards) {
      expect(card.code).toMatch(/^CLUB-[0-9A-Za-z]{4}$/)
      // The initial 10 points are a bucket expiring at the end of 15 Feb (earned 15 Jan, 1 month).
      expect(card.loyalty_card).toMatchObject({
        points: 10,
        balance: 10,
        next_expiration_date: '2026-02-15',
        next_expiration_points: 10,
      })
    }
  })

  it('lists programs with limit/page/order and rejects bad input without writing', async () => {
    const { engine, store } = testEngine()
    await program(engine, { name: 'A' })
    await program(engine, { name: 'B' })
    const list = await engine.loyalties.list({ limit: 1, page: 2, order: '-created_at' })
    expect(list.total).toBe(2)
    expect(list.campaigns).toHaveLength(1)
    const before = await snapshot(store)
    await expect(engine.raw.loyalties.create({ name: 'X', type: 'DYNAMIC' })).rejects.toMatchObject({
      code: 400,
      key: 'invalid_payload',
    })
    await expect(engine.loyalties.create({ name: 'X', category: 'a', category_id: 'cat_1' })).rejects.toMatchObject({
      code: 400,
    })
    await expect(engine.loyalties.create({ vouchers_count: -1, name: 'X' })).rejects.toMatchObject({ code: 400 })
    await expect(engine.loyalties.create({ name: 'A' })).rejects.toMatchObject({ code: 409 })
    await expect(engine.loyalties.list({ limit: 0 })).rejects.toMatchObject({ code: 400 })
    await expect(engine.loyalties.get('camp_missing')).rejects.toMatchObject({ code: 404 })
    expect(await snapshot(store)).toBe(before)
  })

  it('refuses a vouchers_count above the code space of code_config up front (400 naming vouchers_count)', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    const body = {
      name: 'Tiny',
      voucher: { type: 'LOYALTY_CARD', code_config: { pattern: 'A#', charset: '0123456789' } },
    }
    await expect(engine.raw.loyalties.create({ ...body, vouchers_count: 11 })).rejects.toMatchObject({
      code: 400,
      path: 'vouchers_count',
    })
    expect(await snapshot(store)).toBe(before)
    const fits = await engine.raw.loyalties.create({ ...body, vouchers_count: 10 })
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
    expect((await engine.loyalties.get(fits.id)).vouchers_count).toBe(10)
  })

  it('a failed card generation marks the program FAILED, not IN_PROGRESS for ever', async () => {
    const { engine } = testEngine()
    const voucher = { type: 'LOYALTY_CARD', code_config: { pattern: 'A#', charset: '0123456789' } }
    await engine.raw.loyalties.create({ name: 'First', vouchers_count: 6, voucher })
    // Fits the space of 10 at create, but only 4 codes are left once the first program has its 6.
    const second = await engine.raw.loyalties.create({ name: 'Second', vouchers_count: 6, voucher })
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 2, succeeded: 1, failed: 1 })
    expect(await engine.loyalties.get(second.id)).toMatchObject({
      creation_status: 'FAILED',
      vouchers_generation_status: 'FAILED',
      vouchers_count: 0,
    })
  })
})

describe('loyalties.createMember', () => {
  it('creates the customer, assigns the oldest free card, records the publication and the event', async () => {
    const { engine, store } = testEngine()
    const club = await program(engine)
    const card = await engine.loyalties.createMember(club.id, {
      customer: { source_id: 'alice', name: 'Alice' },
      metadata: { channel_note: 'shop' },
      channel: 'POS',
    })
    expect(card).toMatchObject({ type: 'LOYALTY_CARD', campaign_id: club.id, publish: { count: 1 } })
    expect(card).not.toHaveProperty('metadata.channel_note')
    const alice = await engine.customers.get('alice')
    expect(card.holder_id).toBe(alice.id)
    const pubs = (await store.publications.list()).data.map((s) => s.value)
    expect(pubs).toMatchObject([
      { voucher_id: card.id, customer_id: alice.id, channel: 'POS', metadata: { channel_note: 'shop' } },
    ])
    const activity = await engine.customers.listActivity('alice', { type: 'customer.publication.succeeded' })
    expect(activity.data).toHaveLength(1)
    // join_once: the same card back, no second publication
    const again = await member(engine, club.id)
    expect(again.id).toBe(card.id)
    expect((await store.publications.list()).total).toBe(1)
  })

  it('the same source_id gives the same card; a named code is assigned; AUTO_UPDATE makes one when none is free', async () => {
    const { engine, store } = testEngine()
    const club = await program(engine, { vouchers_count: 1 })
    const first = await engine.loyalties.createMember(club.id, { customer: { source_id: 'a' }, source_id: 'pub-1' })
    const repeat = await engine.loyalties.createMember(club.id, { customer: { source_id: 'b' }, source_id: 'pub-1' })
    expect(repeat.id).toBe(first.id)
    const generated = await member(engine, club.id, 'c')
    expect(generated.id).not.toBe(first.id)
    expect((await engine.loyalties.get(club.id)).vouchers_count).toBe(2)
    expect((await store.vouchers.list({ where: { campaign_id: club.id } })).total).toBe(2)
  })

  it('STATIC without free codes is a clear 409; a named code must be free and of the program', async () => {
    const { engine, store } = testEngine()
    const club = await program(engine, { type: 'STATIC', vouchers_count: 1 })
    const cards = (await store.vouchers.list({ where: { campaign_id: club.id } })).data
    const code = cards[0]?.value.code ?? ''
    const card = await engine.loyalties.createMember(club.id, { customer: { source_id: 'a' }, voucher: code })
    expect(card.code).toBe(code)
    const before = await snapshot(store)
    await expect(member(engine, club.id, 'b')).rejects.toMatchObject({ code: 409, key: 'no_voucher_available' })
    await expect(
      engine.loyalties.createMember(club.id, { customer: { source_id: 'b' }, voucher: code }),
    ).rejects.toMatchObject({ code: 409 })
    await expect(
      engine.loyalties.createMember(club.id, { customer: { source_id: 'b' }, voucher: 'NOPE' }),
    ).rejects.toMatchObject({ code: 404 })
    await expect(engine.raw.loyalties.createMember(club.id, {})).rejects.toMatchObject({ code: 400, path: 'customer' })
    await expect(engine.loyalties.createMember('camp_nope', { customer: { source_id: 'b' } })).rejects.toMatchObject({
      code: 404,
    })
    expect(await snapshot(store)).toBe(before)
    expect((await engine.loyalties.getMember(club.id, code)).id).toBe(card.id)
    expect((await engine.loyalties.getMember(null, card.id)).code).toBe(code)
    await expect(engine.loyalties.getMember(club.id, 'missing')).rejects.toMatchObject({ code: 404 })
  })
})
