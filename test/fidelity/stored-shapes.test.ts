import { describe, expect, it } from 'vitest'
import { dropNullOptionals, upgradeAsyncAction, upgradeRedemption } from '../../src/rules/stored-shapes'

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
