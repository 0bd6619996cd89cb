import { describe, expect, it } from 'vitest'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import { createPostgresStore } from '../../src/postgres'
import { SCHEMA_VERSION } from '../../src/postgres/migrate'
import type { CollectionName, Write } from '../../src/storage/ports'
import { useClonedPool } from './database'

/*
 * Numbered migration steps (docs/postgres.md#migrations) run once each: step 2 names the campaign on
 * reward redemptions and rollbacks written before the engine did, so a campaign's transactions are
 * found by its declared index.
 */

const db = useClonedPool(4)

const put = (collection: string, value: Record<string, unknown>) =>
  ({
    op: 'put',
    collection,
    value,
    expectedVersion: null,
    shape: currentShape(collection as CollectionName),
  }) as unknown as Write

describe('PostgreSQL migrations', () => {
  it('a fresh schema gets every step; a second run applies none', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'fresh' })
    expect(await store.migrate()).toEqual({ applied: Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1) })
    expect(await store.migrate()).toEqual({ applied: [] })
  })

  it('step 2 names the campaign on redemptions and rollbacks stored without it', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'older' })
    await store.migrate()
    const date = '2026-01-01T00:00:00.000Z'
    const outcome = await store.commit({
      writes: [
        put('vouchers', { id: 'v_card', code: 'CARD', campaign_id: 'camp_club', created_at: date }),
        put('vouchers', { id: 'v_loose', code: 'LOOSE', campaign_id: null, created_at: date }),
        // As an engine before step 2 wrote a reward redemption: no related_object_parent_id.
        put('redemptions', { id: 'r_reward', date, related_object_type: 'voucher', related_object_id: 'v_card' }),
        put('redemptions', { id: 'r_loose', date, related_object_type: 'voucher', related_object_id: 'v_loose' }),
        put('redemptions', {
          id: 'r_coupon',
          date,
          related_object_type: 'voucher',
          related_object_id: 'v_other',
          related_object_parent_id: 'camp_coupons',
        }),
        put('redemption_rollbacks', { id: 'rr_reward', date, redemption: 'r_reward', related_object_id: 'v_card' }),
        put('redemption_rollbacks', { id: 'rr_coupon', date, redemption: 'r_coupon', related_object_id: 'v_other' }),
        put('redemption_rollbacks', { id: 'rr_loose', date, redemption: 'r_loose', related_object_id: 'v_loose' }),
      ],
    })
    expect(outcome.ok).toBe(true)
    await db.pool.query('DELETE FROM "older".pe_migrations WHERE version = 2')
    expect(await store.migrate()).toEqual({ applied: [2] })
    const ids = async (collection: 'redemptions' | 'redemption_rollbacks', campaign: string) =>
      (await store[collection].list({ where: { related_object_parent_id: campaign } })).data.map((s) => s.value.id)
    expect(await ids('redemptions', 'camp_club')).toEqual(['r_reward'])
    expect(await ids('redemption_rollbacks', 'camp_club')).toEqual(['rr_reward'])
    expect(await ids('redemption_rollbacks', 'camp_coupons')).toEqual(['rr_coupon'])
    // A voucher of no campaign names none.
    expect((await store.redemptions.get('r_loose'))?.value).not.toHaveProperty('related_object_parent_id')
    expect((await store.redemption_rollbacks.get('rr_loose'))?.value).not.toHaveProperty('related_object_parent_id')
  })
})
