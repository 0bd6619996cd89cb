import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'
import { program } from '../loyalty/fixtures'

describe('loyalty campaign voucher object', () => {
  it('lists the service interface fields: no discount or gift, validity fields null when unset', async () => {
    const { engine } = testEngine()
    const created = await engine.loyalties.create({
      name: 'Club',
      voucher: {
        type: 'LOYALTY_CARD',
        loyalty_card: { points: 10 },
        code_config: { pattern: 'CLUB-####' },
      },
    })
    expect(created.voucher).toEqual({
      type: 'LOYALTY_CARD',
      loyalty_card: { points: 10 },
      redemption: { quantity: null },
      code_config: expect.objectContaining({ pattern: 'CLUB-####', length: 4 }),
      is_referral_code: false,
      start_date: null,
      expiration_date: null,
      validity_timeframe: null,
    })
    expect(created.voucher).not.toHaveProperty('discount')
    expect(created.voucher).not.toHaveProperty('gift')
  })

  it('keeps the validity the template sets', async () => {
    const { engine } = testEngine()
    const created = await engine.loyalties.create({
      name: 'Club',
      voucher: {
        type: 'LOYALTY_CARD',
        loyalty_card: { points: 0 },
        start_date: '2026-02-01T00:00:00.000Z',
        expiration_date: '2026-12-31T00:00:00.000Z',
        validity_timeframe: { duration: 'PT1H', interval: 'P1D' },
      },
    })
    expect(created.voucher).toMatchObject({
      start_date: '2026-02-01T00:00:00.000Z',
      expiration_date: '2026-12-31T00:00:00.000Z',
      validity_timeframe: { duration: 'PT1H', interval: 'P1D' },
    })
  })
})

describe('campaign validation_rules_assignments', () => {
  it('a new program has an empty list; get reads the assignments made since', async () => {
    const { engine } = testEngine()
    const created = await engine.loyalties.create({ name: 'Club' })
    const empty = { object: 'list', data_ref: 'data', data: [], total: 0 }
    expect(created.validation_rules_assignments).toEqual(empty)
    const club = await program(engine, { name: 'Other' })
    expect(club.validation_rules_assignments).toEqual(empty)
    const rule = await engine.validationRules.create({ name: 'R', rules: {} })
    const assignment = await engine.validationRules.createAssignment(rule.id, {
      related_object_type: 'campaign',
      related_object_id: club.id,
    })
    const expected = { object: 'list', data_ref: 'data', data: [assignment], total: 1 }
    expect((await engine.loyalties.get(club.id)).validation_rules_assignments).toEqual(expected)
    expect((await engine.loyalties.get('Other')).validation_rules_assignments).toEqual(expected)
    const listed = await engine.loyalties.list()
    expect(listed.campaigns.find((c) => c.id === club.id)?.validation_rules_assignments).toEqual(expected)
    expect((await engine.campaigns.get(club.id)).validation_rules_assignments).toEqual(expected)
  })

  it('campaigns.create and get carry the list too', async () => {
    const { engine } = testEngine()
    const created = await engine.campaigns.create({
      name: 'Coupons',
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
    })
    expect(created.validation_rules_assignments).toEqual({ object: 'list', data_ref: 'data', data: [], total: 0 })
    expect(await engine.campaigns.get(created.id)).toEqual(created)
  })
})
