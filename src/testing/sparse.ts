import assert from 'node:assert/strict'
import type { Page, Store } from '../storage/ports'
import { commitOk, del, insert, mustGet, type Plain, put, repo } from './fixtures'

/*
 * Storage contract: sparse indexes (docs/storage.md#sparse-indexes). The engine's activities index
 * by customer and campaign, and by type and referrer, holds only activities that have those fields;
 * a list by them finds exactly those, follows updates, deletes and failed commits, and a list asking
 * for such a field to be absent is answered from another index (the customer's), or refused when
 * only a scan would answer it.
 */

function activity(id: string, day: number, extra: Record<string, unknown>): Plain {
  return { id, type: 'customer.redemption.succeeded', created_at: `2026-03-0${day}T00:00:00.000Z`, ...extra }
}

const ACTIVITIES = [
  activity('act_b', 2, { customer_id: 'c1' }),
  activity('act_a', 1, { customer_id: 'c1', campaign_id: 'camp_1', campaign_type: 'LOYALTY_PROGRAM' }),
  activity('act_d', 4, { customer_id: 'c2', campaign_id: 'camp_1' }),
  activity('act_c', 3, { customer_id: 'c1', campaign_id: null }),
  activity('act_e', 5, {
    customer_id: 'c2',
    type: 'customer.referred',
    data: { referrer: { id: 'c1' } },
  }),
  activity('act_f', 6, { customer_id: 'c1', type: 'customer.referred', data: {} }),
]

const ids = (page: Page<unknown>): string[] => page.data.map((s) => (s.value as { id: string }).id)

export async function sparseIndexes(store: Store): Promise<void> {
  for (const a of ACTIVITIES) await insert(store, 'activities', a)
  const r = repo(store, 'activities')
  const list = async (where: Record<string, unknown>) => ids(await r.list({ where: where as never }))
  assert.deepEqual(await list({ customer_id: 'c1', campaign_id: 'camp_1' }), ['act_a'])
  assert.deepEqual(await list({ customer_id: 'c1', campaign_type: 'LOYALTY_PROGRAM' }), ['act_a'])
  assert.deepEqual(await list({ type: 'customer.referred', 'data.referrer.id': 'c1' }), ['act_e'])
  // Absent, null or of no index type: answered from the customer's index, as a filter of its entries.
  assert.deepEqual(await list({ customer_id: 'c1', campaign_id: null }), ['act_b', 'act_c', 'act_f'])
  assert.deepEqual(await list({ customer_id: 'c1', campaign_id: { in: ['camp_1', null] } }), [
    'act_a',
    'act_b',
    'act_c',
    'act_f',
  ])
  assert.deepEqual(await list({ customer_id: 'c1', campaign_type: null, type: 'customer.referred' }), ['act_f'])
  // No other index fixed by the filter: only a scan would find the referral events without a referrer.
  await assert.rejects(() => list({ type: 'customer.referred', 'data.referrer.id': null }), /sparse index/)
  // Updates move an entity in and out of the index; a delete takes it out; a failed commit leaves it.
  const a = await mustGet(store, 'activities', 'act_a')
  const b = await mustGet(store, 'activities', 'act_b')
  const { campaign_id: _gone, ...withoutCampaign } = a.value as Plain
  await commitOk(store, [
    put('activities', withoutCampaign, a.version),
    put('activities', { ...(b.value as Plain), campaign_id: 'camp_1' }, b.version),
  ])
  assert.deepEqual(await list({ customer_id: 'c1', campaign_id: 'camp_1' }), ['act_b'])
  assert.deepEqual(await list({ customer_id: 'c1', campaign_id: null }), ['act_a', 'act_c', 'act_f'])
  const c = await mustGet(store, 'activities', 'act_c')
  const failed = await store.commit({
    writes: [
      put('activities', { ...(c.value as Plain), campaign_id: 'camp_1' }, c.version),
      del('activities', 'act_b', 99),
    ],
  })
  assert.equal(failed.ok, false)
  assert.deepEqual(await list({ customer_id: 'c1', campaign_id: 'camp_1' }), ['act_b'])
  await commitOk(store, [del('activities', 'act_b', 2)])
  assert.deepEqual(await list({ customer_id: 'c1', campaign_id: 'camp_1' }), [])
  assert.deepEqual(await list({ customer_id: 'c2', campaign_id: 'camp_1' }), ['act_d'])
}
