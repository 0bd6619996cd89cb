import { describe, expect, it } from 'vitest'
import { upgradeAsyncAction } from '../../src/rules/stored-shapes'

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
