import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'

const T0 = '2026-01-15T10:00:00.000Z'

async function setup() {
  const t = testEngine()
  for (const code of ['A1', 'B2']) {
    await t.engine.vouchers.create({
      code,
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100 },
      metadata: { keep: code },
    })
  }
  return t
}

describe('vouchers.bulkUpdate', () => {
  it('queues the updates, then applies each one; a bad code does not stop the others', async () => {
    const { engine, store, clock } = await setup()
    await engine.metadataSchemas.create({
      related_object: 'voucher',
      properties: { tier: { type: 'number' }, keep: { type: 'string' }, color: { type: 'string' } },
    })
    const { async_action_id } = await engine.vouchers.bulkUpdate([
      { code: 'A1', metadata: { tier: 1 } },
      { code: 'NOPE', metadata: { tier: 2 } },
      { code: 'B2', metadata: { tier: 'gold' } },
      { code: 'B2', metadata: { color: 'red' } },
      { code: 'B2', metadata: { tier: 3 } },
    ])
    expect(async_action_id).toMatch(/^aa_[0-9A-Za-z]{24}$/)
    expect(await engine.asyncActions.get(async_action_id)).toEqual({
      id: async_action_id,
      type: 'VOUCHERS.BULK_UPDATE',
      status: 'ENQUEUED',
      progress: 0,
      created_at: T0,
      updated_at: null,
      object: 'async_action',
    })
    // Nothing is applied before the run.
    expect((await engine.vouchers.get('A1')).metadata).toEqual({ keep: 'A1' })

    clock.advance(60_000)
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
    const action = await engine.asyncActions.get(async_action_id)
    expect(action).toEqual({
      id: async_action_id,
      type: 'VOUCHERS.BULK_UPDATE',
      status: 'DONE',
      progress: 100,
      result: {
        done_count: 3,
        failed_count: 2,
        errors: [
          {
            code: 'NOPE',
            key: 'not_found',
            message: 'Resource not found',
            details: 'Cannot find voucher with id NOPE',
          },
          {
            code: 'B2',
            key: 'invalid_metadata',
            message: 'Invalid payload',
            details: 'Property .[2].metadata.tier must be a number',
          },
        ],
      },
      created_at: T0,
      updated_at: '2026-01-15T10:01:00.000Z',
      object: 'async_action',
    })
    // No upsert: the unknown code was not created.
    await expect(engine.vouchers.get('NOPE')).rejects.toMatchObject({ code: 404 })
    expect(await engine.vouchers.get('A1')).toMatchObject({
      metadata: { keep: 'A1', tier: 1 },
      updated_at: '2026-01-15T10:01:00.000Z',
    })
    // The two good B2 updates both land (merged in order); the refused one left nothing.
    expect((await engine.vouchers.get('B2')).metadata).toEqual({ keep: 'B2', color: 'red', tier: 3 })
    expect((await store.vouchers.get((await engine.vouchers.get('B2')).id))?.version).toBe(2)
  })

  it.each([
    ['not an array', { code: 'A1', metadata: {} }, 'body'],
    ['an empty array', [], 'body'],
    ['a missing code', [{ metadata: {} }], '[0].code'],
    [
      'an empty code',
      [
        { code: 'A1', metadata: {} },
        { code: '', metadata: {} },
      ],
      '[1].code',
    ],
    ['a missing metadata', [{ code: 'A1' }], '[0].metadata'],
    ['metadata not an object', [{ code: 'A1', metadata: 'x' }], '[0].metadata'],
    ['1001 updates', Array.from({ length: 1001 }, () => ({ code: 'A1', metadata: {} })), 'body'],
  ])('rejects %s with a 400 naming %s and queues nothing', async (_label, body, path) => {
    const { engine, store } = await setup()
    const before = await snapshot(store)
    await expect(engine.raw.vouchers.bulkUpdate(body)).rejects.toMatchObject({ code: 400, path })
    expect(await snapshot(store)).toBe(before)
  })

  it('returns the async action id at once; the stored action is due at the clock now', async () => {
    const { engine, store } = await setup()
    const { async_action_id } = await engine.vouchers.bulkUpdate([{ code: 'A1', metadata: { x: 1 } }])
    expect((await store.async_actions.get(async_action_id))?.value).toMatchObject({
      type: 'VOUCHERS.BULK_UPDATE',
      run_at: T0,
      created_at: T0,
      payload: [{ code: 'A1', metadata: { x: 1 } }],
    })
  })
})
