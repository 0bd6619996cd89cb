import { describe, expect, it } from 'vitest'
import {
  dropNullOptionals,
  upgradeAsyncAction,
  upgradeMemberTier,
  upgradeRedemption,
} from '../../src/operations/kernel/shape-upgrades'

describe('upgradeAsyncAction: actions stored before the hosted shape', () => {
  const v1 = {
    id: 'aa_1',
    type: 'vouchers.bulk_update',
    status: 'ENQUEUED' as const,
    run_at: '2026-01-15T10:00:00.000Z',
    payload: [{ code: 'A1', metadata: {} }],
    result: null,
    created_at: '2026-01-15T10:00:00.000Z',
    updated_at: null,
    object: 'async_action' as const,
  }

  it('an enqueued v1 action: hosted type, progress 0, no result', () => {
    expect(upgradeAsyncAction(v1)).toEqual({
      id: 'aa_1',
      type: 'VOUCHERS.BULK_UPDATE',
      status: 'ENQUEUED',
      progress: 0,
      run_at: '2026-01-15T10:00:00.000Z',
      payload: [{ code: 'A1', metadata: {} }],
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'async_action',
    })
  })

  it('a done v1 card generation: CAMPAIGN.VOUCHERS_GENERATE, progress 100, its result kept', () => {
    const done = { ...v1, type: 'loyalty.generate_cards', status: 'DONE' as const, result: { vouchers_count: 2 } }
    expect(upgradeAsyncAction(done)).toMatchObject({
      type: 'CAMPAIGN.VOUCHERS_GENERATE',
      progress: 100,
      result: { vouchers_count: 2 },
    })
  })

  it('a current value is returned unchanged', () => {
    const current = upgradeAsyncAction(v1)
    expect(upgradeAsyncAction(current)).toEqual(current)
  })
})

describe('upgradeRedemption: a stacked parent stored with bare child ids', () => {
  it('lists its children as {id, date} with the parent date', () => {
    const v1 = {
      id: 'r_parent',
      object: 'redemption' as const,
      date: '2026-01-15T10:00:00.000Z',
      customer_id: null,
      tracking_id: null,
      metadata: {},
      redemption: null,
      result: 'SUCCESS' as const,
      status: 'SUCCEEDED' as const,
      channel: { channel_id: null, channel_type: 'API' as const },
      related_object_type: 'redemption' as const,
      related_object_id: 'r_parent',
      related_redemptions: { rollbacks: [], redemptions: ['r_a', 'r_b'] },
    }
    expect(upgradeRedemption(v1).related_redemptions).toEqual({
      rollbacks: [],
      redemptions: [
        { id: 'r_a', date: '2026-01-15T10:00:00.000Z' },
        { id: 'r_b', date: '2026-01-15T10:00:00.000Z' },
      ],
    })
    const current = upgradeRedemption(v1)
    expect(upgradeRedemption(current)).toEqual(current)
  })
})

describe('dropNullOptionals: values stored with null optional objects', () => {
  it('an earning rule stored with expiration_rules: null and pending_points: null loses both', () => {
    const v1 = { id: 'ern_1', expiration_rules: null, pending_points: null, start_date: null }
    expect(dropNullOptionals('earning_rules', v1)).toEqual({ id: 'ern_1', start_date: null })
  })
  it('a set value is kept, and a current value is returned as it is', () => {
    const tier = { id: 'ltr_1', expiration: { tier_id: 'ltr_1' } }
    expect(dropNullOptionals('loyalty_tiers', tier)).toBe(tier)
    const rule = { id: 'val_1', bundle_rules: null }
    expect(dropNullOptionals('validation_rules', rule)).toEqual({ id: 'val_1' })
    expect(dropNullOptionals('campaigns', { id: 'camp_1', loyalty_tiers_expiration: null })).toEqual({ id: 'camp_1' })
  })
})

describe('upgradeMemberTier: tier dates stored as instants', () => {
  const v1 = {
    id: 'mt_1',
    voucher_id: 'v_1',
    campaign_id: 'camp_1',
    customer_id: 'cust_1',
    tier_id: 'ltr_gold',
    previous_tier_id: null,
    expiration: {
      customer_id: 'cust_1',
      campaign_id: 'camp_1',
      tier_id: 'ltr_gold',
      created_at: '2026-03-10T12:00:00.000Z',
      start_date: '2026-03-10T12:00:00.000Z',
      expiration_date: '2026-04-08T00:00:00.000Z',
      updated_at: '2026-03-10T12:00:00.000Z',
    },
    updated_at: '2026-03-10T12:00:00.000Z',
  }

  it('held until 8 April 00:00 (UTC) reads as held through 7 April', () => {
    expect(upgradeMemberTier(v1, 'UTC').expiration).toEqual({
      ...v1.expiration,
      start_date: '2026-03-10',
      expiration_date: '2026-04-07',
    })
  })

  it('in the engine zone: Warsaw midnight of 1 April (30 March 22:00 UTC, DST) is held through 31 March', () => {
    const warsaw = {
      ...v1,
      expiration: {
        ...v1.expiration,
        start_date: '2026-02-28T23:00:00.000Z',
        expiration_date: '2026-03-31T22:00:00.000Z',
      },
    }
    expect(upgradeMemberTier(warsaw, 'Europe/Warsaw').expiration).toMatchObject({
      start_date: '2026-03-01',
      expiration_date: '2026-03-31',
    })
  })

  it('a current value and a standing without dates are returned as they are', () => {
    const current = upgradeMemberTier(v1, 'UTC')
    expect(upgradeMemberTier(current, 'UTC')).toBe(current)
    const none = { ...v1, tier_id: null, expiration: null }
    expect(upgradeMemberTier(none, 'UTC')).toBe(none)
  })
})
