import { describe, expect, it } from 'vitest'
import type { Write } from '../../../src/storage/ports'
import { snapshot, testEngine } from '../../support/engine'

const put = (collection: string, value: Record<string, unknown>) =>
  ({ op: 'put', collection, value, expectedVersion: null }) as unknown as Write

/** A gift campaign with two cards, three redemptions (one failed) and a rollback; plus another campaign. */
async function setup() {
  const t = testEngine()
  const campaign = {
    id: 'camp_gift',
    name: 'Gift, "Winter"',
    campaign_type: 'GIFT_VOUCHERS',
    object: 'campaign',
    created_at: '2026-01-01T00:00:00.000Z',
  }
  const other = {
    id: 'camp_other',
    name: 'Other',
    campaign_type: 'GIFT_VOUCHERS',
    object: 'campaign',
    created_at: '2026-01-01T00:00:00.000Z',
  }
  const voucher = (id: string, code: string, campaignId: string, type = 'GIFT_VOUCHER') => ({
    id,
    code,
    campaign_id: campaignId,
    type,
    created_at: '2026-01-01T00:00:00.000Z',
  })
  const campaignOf: Record<string, string> = { v_1: 'camp_gift', v_2: 'camp_gift', v_3: 'camp_other' }
  const redemption = (id: string, voucherId: string, date: string, extra: Record<string, unknown> = {}) => ({
    id,
    object: 'redemption',
    date,
    customer_id: 'cust_1',
    tracking_id: null,
    metadata: {},
    redemption: null,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    channel: { channel_id: null, channel_type: 'API' },
    related_object_type: 'voucher',
    related_object_id: voucherId,
    related_object_parent_id: campaignOf[voucherId],
    created_at: date,
    ...extra,
  })
  const outcome = await t.store.commit({
    writes: [
      put('campaigns', campaign),
      put('campaigns', other),
      put('vouchers', voucher('v_1', 'GIFT-1', 'camp_gift')),
      put('vouchers', voucher('v_2', 'GIFT-2', 'camp_gift')),
      put('vouchers', voucher('v_3', 'OTHER-1', 'camp_other', 'DISCOUNT_VOUCHER')),
      put(
        'redemptions',
        redemption('r_1', 'v_1', '2026-01-10T09:00:00.000Z', {
          amount: 1500,
          gift: { amount: 1500 },
          order: { id: 'ord_1', source_id: 'order, "A"\nline 2' },
          status: 'ROLLED_BACK',
          related_redemptions: { rollbacks: [{ id: 'rr_1', date: '2026-01-11T09:00:00.000Z' }], redemptions: [] },
        }),
      ),
      put('redemptions', redemption('r_2', 'v_2', '2026-01-12T09:00:00.000Z', { amount: 700, gift: { amount: 700 } })),
      put(
        'redemptions',
        redemption('r_3', 'v_2', '2026-01-13T09:00:00.000Z', {
          result: 'FAILURE',
          status: 'FAILED',
          failure_code: 'gift_amount_exceeded',
          failure_message: 'Gift amount exceeded, "balance" too low',
        }),
      ),
      put('redemptions', redemption('r_other', 'v_3', '2026-01-12T10:00:00.000Z')),
      put('redemption_rollbacks', {
        id: 'rr_1',
        object: 'redemption_rollback',
        date: '2026-01-11T09:00:00.000Z',
        redemption: 'r_1',
        amount: 1500,
        reason: 'Customer returned, all items',
        result: 'SUCCESS',
        status: 'SUCCEEDED',
        channel: { channel_id: null, channel_type: 'API' },
        customer_id: 'cust_1',
        related_object_type: 'voucher',
        related_object_id: 'v_1',
        related_object_parent_id: 'camp_gift',
        metadata: {},
        created_at: '2026-01-11T09:00:00.000Z',
      }),
    ],
  })
  expect(outcome.ok).toBe(true)
  return t
}

describe('exports.createCampaignTransactionsExport', () => {
  it('schedules an export (campaign by name) with the campaign condition and junction added', async () => {
    const { engine } = await setup()
    const created = await engine.exports.createCampaignTransactionsExport('Gift, "Winter"', {
      order: 'created_at',
      parameters: { fields: ['id', 'amount'], filters: { created_at: { conditions: { $after: ['2026-01-01'] } } } },
    })
    expect(created).toEqual({
      id: expect.stringMatching(/^exp_[0-9A-Za-z]{24}$/),
      object: 'export',
      created_at: '2026-01-15T10:00:00.000Z',
      status: 'SCHEDULED',
      channel: 'API',
      exported_object: 'voucher_transactions',
      parameters: {
        order: 'created_at',
        fields: ['id', 'amount'],
        filters: {
          junction: 'AND',
          created_at: { conditions: { $after: ['2026-01-01'] } },
          campaign_id: { conditions: { $in: ['camp_gift'] } },
        },
      },
      result: null,
      user_id: null,
    })
    expect(await engine.exports.get(created.id)).toEqual(created)
  })

  it('writes the CSV at runPending: the fields asked, quoted per RFC 4180, newest first', async () => {
    const { engine } = await setup()
    const fields = [
      'id',
      'type',
      'source_id',
      'status',
      'reason',
      'result',
      'voucher_id',
      'campaign_id',
      'amount',
      'created_at',
      'related_transaction_id',
      'details',
    ] as const
    const created = await engine.exports.createCampaignTransactionsExport('camp_gift', {
      parameters: { fields: [...fields] },
    })
    expect(created.parameters).toEqual({
      order: '-created_at',
      fields,
      filters: { junction: 'AND', campaign_id: { conditions: { $in: ['camp_gift'] } } },
    })
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
    const done = await engine.exports.get(created.id)
    expect(done.status).toBe('DONE')
    expect(done.result).toEqual({
      url: expect.stringMatching(/^memory:\/\/files\/file_[0-9A-Za-z]{24}\?expires=\d+&signature=[\w-]{43}$/),
    })
    const file = await engine.files.get(done.result?.url ?? '')
    expect(file.content_type).toBe('text/csv')
    expect(file.content).toBe(
      [
        'id,type,source_id,status,reason,result,voucher_id,campaign_id,amount,created_at,related_transaction_id,details',
        'r_3,CREDITS_REDEMPTION,,FAILED,"Gift amount exceeded, ""balance"" too low",FAILURE,v_2,camp_gift,,2026-01-13T09:00:00.000Z,,"{""order"":null,""customer"":{""id"":""cust_1""},""redemption"":{""id"":""r_3""}}"',
        'r_2,CREDITS_REDEMPTION,,SUCCEEDED,,SUCCESS,v_2,camp_gift,-700,2026-01-12T09:00:00.000Z,,"{""order"":null,""customer"":{""id"":""cust_1""},""redemption"":{""id"":""r_2""}}"',
        'rr_1,CREDITS_REFUND,,SUCCEEDED,"Customer returned, all items",SUCCESS,v_1,camp_gift,1500,2026-01-11T09:00:00.000Z,r_1,"{""order"":null,""customer"":{""id"":""cust_1""},""redemption"":{""id"":""r_1""},""rollback"":{""id"":""rr_1""}}"',
        'r_1,CREDITS_REDEMPTION,,ROLLED_BACK,,SUCCESS,v_1,camp_gift,-1500,2026-01-10T09:00:00.000Z,rr_1,"{""order"":{""id"":""ord_1"",""source_id"":""order, \\""A\\""\\nline 2""},""customer"":{""id"":""cust_1""},""redemption"":{""id"":""r_1""}}"',
        '',
      ].join('\r\n'),
    )
    expect(await engine.files.get(file.id)).toEqual(file)
  })

  it('applies filters and order', async () => {
    const { engine } = await setup()
    const created = await engine.exports.createCampaignTransactionsExport('camp_gift', {
      order: 'created_at',
      parameters: {
        fields: ['id', 'amount', 'voucher_code'],
        filters: {
          junction: 'and',
          result: { conditions: { $in: ['SUCCESS'] } },
          amount: { conditions: { $more_than: 100, $less_than: ['2000'] } },
          created_at: { conditions: { $before: ['2026-01-12T09:00:00.000Z'] } },
          // The caller's own campaign_id $in is replaced by the export's campaign.
          campaign_id: { conditions: { $in: ['camp_other'], $is_not: ['camp_x'] } },
        },
      },
    })
    expect(created.parameters.filters).toEqual({
      junction: 'AND',
      result: { conditions: { $in: ['SUCCESS'] } },
      amount: { conditions: { $more_than: [100], $less_than: ['2000'] } },
      created_at: { conditions: { $before: ['2026-01-12T09:00:00.000Z'] } },
      campaign_id: { conditions: { $in: ['camp_gift'], $is_not: ['camp_x'] } },
    })
    await engine.asyncActions.runPending()
    const done = await engine.exports.get(created.id)
    const file = await engine.files.get(done.result?.url ?? '')
    // Amounts are signed (a redemption of credits is negative): `amount > 100` keeps the refund only.
    expect(file.content).toBe('id,amount,voucher_code\r\nrr_1,1500,GIFT-1\r\n')
  })

  it('marks the export ERROR when the work fails (campaign gone)', async () => {
    const { engine, store } = await setup()
    const created = await engine.exports.createCampaignTransactionsExport('camp_other')
    const campaign = await store.campaigns.get('camp_other')
    if (!campaign) throw new Error('fixture')
    await store.commit({ writes: [{ op: 'delete', collection: 'campaigns', id: 'camp_other', expectedVersion: 1 }] })
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 0, failed: 1 })
    expect(await engine.exports.get(created.id)).toMatchObject({ status: 'ERROR', result: null })
    expect((await store.files.list()).data).toHaveLength(0)
  })

  it('rejects bad input and unknown campaigns, writing nothing', async () => {
    const { engine, store } = await setup()
    const before = await snapshot(store)
    const bad: [unknown, string][] = [
      [{ order: 'price' }, 'order'],
      // Only the orders the store keeps transactions in: another would need every row in memory.
      [{ order: '-amount' }, 'order'],
      // A field the export does not have: invalid_export_fields (docs/behaviour.md#exports).
      [{ parameters: { fields: ['id', 'password'] } }, 'parameters.fields'],
      [{ parameters: { fields: [] } }, 'parameters.fields'],
      [{ parameters: { filters: { nope: { conditions: { $in: ['x'] } } } } }, 'parameters.filters.nope'],
      [{ parameters: { filters: { id: { conditions: { $like: ['x'] } } } } }, 'parameters.filters.id.conditions.$like'],
      [{ parameters: { filters: { id: { conditions: {} } } } }, 'parameters.filters.id.conditions'],
      // An array where a filter's object belongs is refused as such, not read as an empty one.
      [{ parameters: { filters: { id: ['x'] } } }, 'parameters.filters.id'],
      [{ parameters: { filters: { junction: 'OR' } } }, 'parameters.filters.junction'],
    ]
    for (const [body, path] of bad) {
      await expect(engine.raw.exports.createCampaignTransactionsExport('camp_gift', body)).rejects.toMatchObject({
        code: 400,
        path,
      })
    }
    await expect(engine.exports.createCampaignTransactionsExport('Nope')).rejects.toMatchObject({
      code: 404,
      resource_type: 'campaign',
      resource_id: 'Nope',
    })
    await expect(engine.exports.get('exp_missing')).rejects.toMatchObject({ code: 404, resource_type: 'export' })
    await expect(engine.files.get('memory://files/file_missing')).rejects.toMatchObject({ code: 404 })
    expect(await snapshot(store)).toBe(before)
  })
})
