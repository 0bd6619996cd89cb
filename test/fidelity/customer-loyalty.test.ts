import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

/*
 * Source: the hosted service's OpenAPI document (repository voucherify-openapi,
 * documentation/openapi/customers.json), schema `CustomerWithSummaryLoyaltyReferrals`: a customer
 * carries `summary`, `loyalty` and `referrals`. `CustomerLoyalty`: `points` ("Customer's loyalty points
 * minus expired for all loyalty cards which the customer has"), `referred_customers` ("Total number of
 * customers referred by the customer") and `campaigns` (per campaign `points`, `loyalty_tier`,
 * `referred_customers`). `CustomerReferrals`: `total` ("Total number of times this customer received a
 * referral") and `campaigns` items `campaign_id`, `referrer_id`, `related_object_id`,
 * `related_object_type` ("i.e. `redemption`"), `date`. docs/behaviour.md#customer-loyalty-and-referrals.
 */
type T = ReturnType<typeof testEngine>

async function referralProgram(t: T, name: string, conversion: Record<string, unknown>) {
  return t.engine.campaigns.create({
    name,
    campaign_type: 'REFERRAL_PROGRAM',
    type: 'AUTO_UPDATE',
    voucher: { discount: { type: 'AMOUNT', amount_off: 1000 }, code_config: { pattern: `${name}-####` } },
    referral_program: conversion,
  })
}

const redeem = (t: T, customer: string, code: string) =>
  t.engine.redemptions.redeemStackable({
    customer: { source_id: customer },
    order: { amount: 5000 },
    redeemables: [{ object: 'voucher', id: code }],
  })

describe("a customer's loyalty and referrals (OpenAPI CustomerLoyalty, CustomerReferrals)", () => {
  it('a new customer: no points, no referrals, from create and from get', async () => {
    const t = testEngine()
    const created = await t.engine.customers.create({ source_id: 'carol' })
    const empty = {
      loyalty: { points: 0, referred_customers: 0, campaigns: {} },
      referrals: { total: 0, campaigns: [] },
    }
    expect(created).toMatchObject(empty)
    expect(await t.engine.customers.get('carol')).toMatchObject(empty)
  })

  it('loyalty points per program are the cards’ balances, with the tier in force', async () => {
    const t = testEngine()
    const club = await t.engine.loyalties.create({
      name: 'Club',
      type: 'AUTO_UPDATE',
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 150 } },
    })
    const other = await t.engine.loyalties.create({
      name: 'Other club',
      type: 'AUTO_UPDATE',
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 20 } },
    })
    await t.engine.asyncActions.runPending()
    const [gold] = await t.engine.loyalties.createTiers(club.id, [{ name: 'Gold', points: { from: 100 } }])
    await t.engine.loyalties.createMember(club.id, { customer: { source_id: 'alice' } })
    await t.engine.loyalties.createMember(other.id, { customer: { source_id: 'alice' } })
    expect(gold?.id).toMatch(/^ltr_/)
    const alice = await t.engine.customers.get('alice')
    expect(alice.loyalty).toEqual({
      points: 170,
      referred_customers: 0,
      campaigns: { [club.id]: { points: 150, loyalty_tier: gold?.id }, [other.id]: { points: 20 } },
    })
    expect(alice.summary.redemptions.loyalty_card.points_to_go).toBe(170)
  })

  it('a referral converted by a redemption: the referee’s referrals name it, the referrer counts the referee once', async () => {
    const t = testEngine()
    const friends = await referralProgram(t, 'FRIENDS', { conversion_event_type: 'redemption' })
    const code = (await t.engine.referrals.publish('FRIENDS', { customer: { source_id: 'alice' } })).voucher?.code ?? ''
    t.clock.advance(60_000)
    const first = await redeem(t, 'bob', code)
    t.clock.advance(60_000)
    await redeem(t, 'bob', code)
    await redeem(t, 'dan', code)
    const alice = await t.engine.customers.get('alice')
    const bob = await t.engine.customers.get('bob')
    expect(alice.loyalty).toEqual({
      points: 0,
      referred_customers: 2,
      campaigns: { [friends.id]: { referred_customers: 2 } },
    })
    expect(alice.referrals).toEqual({ total: 0, campaigns: [] })
    const child = first.redemptions?.[0]?.id
    expect(bob.referrals).toEqual({
      total: 1,
      campaigns: [
        {
          campaign_id: friends.id,
          referrer_id: alice.id,
          related_object_id: child,
          related_object_type: 'redemption',
          date: first.parent_redemption.date,
        },
      ],
    })
    expect(bob.loyalty.referred_customers).toBe(0)
  })

  it('a referee who holds the code of a program converting on a custom event is not referred until the event', async () => {
    const t = testEngine()
    await t.engine.metadataSchemas.create({ related_object: 'signed_up', properties: {} })
    await referralProgram(t, 'EVENT', { conversion_event_type: 'custom_event', custom_event: { name: 'signed_up' } })
    const code = (await t.engine.referrals.publish('EVENT', { customer: { source_id: 'alice' } })).voucher?.code ?? ''
    await redeem(t, 'bob', code)
    expect((await t.engine.customers.get('alice')).loyalty.referred_customers).toBe(0)
    expect((await t.engine.customers.get('bob')).referrals.total).toBe(0)
    await t.engine.events.create('signed_up', { customer: { source_id: 'bob' }, referral: { code } })
    const bob = await t.engine.customers.get('bob')
    expect((await t.engine.customers.get('alice')).loyalty.referred_customers).toBe(1)
    // No redemption converted it: the code it came through.
    expect(bob.referrals.campaigns[0]).toMatchObject({ related_object_type: 'voucher' })
  })
})
