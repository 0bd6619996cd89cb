import { describe, expect, it } from 'vitest'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import { createPostgresStore } from '../../src/postgres'
import { UPDATED_IN_PLACE } from '../../src/postgres/migrate'
import type { Write } from '../../src/storage/ports'
import { useClonedPool } from './database'

/*
 * Rows updated in place (docs/postgres.md#rows-updated-in-place): a code's row, updated by every
 * redemption, keeps its new versions on its own page (HOT updates: no new index entry, no new page)
 * because its table leaves room on each page; at PostgreSQL's default a row of about 1.2 kB moves to a
 * new page every sixth update, with an entry in each of the table's indexes.
 */

const db = useClonedPool(2)

/** The size of the code's row as stored, the bytes its padding is chosen by. */
async function rowBytes(schema: string, id: string): Promise<number> {
  const r = await db.pool.query(`SELECT pg_column_size(v.*)::int AS n FROM ${schema}.vouchers v WHERE id = $1`, [id])
  return r.rows[0].n
}

/** A code of about `bytes` bytes as stored, then `updates` redemptions' increments of it, one commit each. */
async function redeemOften(schema: string, bytes: number, updates: number) {
  const store = createPostgresStore({ pool: db.pool, schema })
  await store.migrate()
  // No autovacuum in these tables while the test runs: an automatic ANALYZE (the feed's rows pass its
  // threshold within the loop) holds back the horizon below which the code's old versions can be
  // pruned, and on a busy machine long enough that the row leaves its page whatever its fillfactor.
  for (const table of ['vouchers', 'pe_changes'])
    await db.pool.query(`ALTER TABLE ${schema}.${table} SET (autovacuum_enabled = false)`)
  const value = (pad: string): Record<string, unknown> => ({
    id: 'v_hot',
    code: 'HOT',
    campaign_id: 'camp',
    created_at: '2026-01-01T00:00:00.000Z',
    redemption: { quantity: null, redeemed_quantity: 0 },
    pad,
  })
  const put = (pad: string, expectedVersion: number | null): Write => ({
    op: 'put',
    collection: 'vouchers',
    value: value(pad) as never,
    expectedVersion,
    shape: currentShape('vouchers'),
  })
  expect((await store.commit({ writes: [put('', null)] })).ok).toBe(true)
  const padded = bytes - (await rowBytes(schema, 'v_hot'))
  expect((await store.commit({ writes: [put('x'.repeat(padded), 1)] })).ok).toBe(true)
  const size = await rowBytes(schema, 'v_hot')
  for (let i = 0; i < updates; i++) {
    const outcome = await store.commit({
      writes: [{ op: 'increment', collection: 'vouchers', id: 'v_hot', by: { 'redemption.redeemed_quantity': 1 } }],
    })
    expect(outcome.ok).toBe(true)
  }
  const where = await db.pool.query(
    `SELECT (ctid::text::point)[0]::int AS page, pg_relation_size('${schema}.vouchers')::int AS bytes,
       (value #>> '{redemption,redeemed_quantity}')::int AS redeemed FROM ${schema}.vouchers`,
  )
  return { size, ...where.rows[0] }
}

describe('PostgreSQL: rows updated in place', () => {
  it('the tables of rows every redemption updates are made with room on each page; the others are not', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'ff_fresh' })
    await store.migrate()
    const options = await db.pool.query(
      `SELECT relname, reloptions FROM pg_class WHERE relnamespace = 'ff_fresh'::regnamespace
         AND relname IN ('vouchers', 'promotion_tiers', 'rewards', 'activities', 'customers') ORDER BY relname`,
    )
    expect(options.rows).toEqual([
      { relname: 'activities', reloptions: null },
      { relname: 'customers', reloptions: null },
      { relname: 'promotion_tiers', reloptions: ['fillfactor=80'] },
      { relname: 'rewards', reloptions: ['fillfactor=80'] },
      { relname: 'vouchers', reloptions: ['fillfactor=80'] },
    ])
    expect(Object.keys(UPDATED_IN_PLACE).sort()).toEqual(['promotion_tiers', 'rewards', 'vouchers'])
  })

  it('a code of 1.2 kB redeemed 60 times stays on its page; at the default fillfactor it moves to a new page every few updates', async () => {
    const kept = await redeemOften('ff_kept', 1190, 60)
    expect(kept).toMatchObject({ page: 0, bytes: 8192, redeemed: 60 })
    expect(kept.size).toBeGreaterThan(1150)
    // The same row where the table has PostgreSQL's default: step 9 undone, as an earlier release left it.
    const store = createPostgresStore({ pool: db.pool, schema: 'ff_default' })
    await store.migrate()
    await db.pool.query('ALTER TABLE ff_default.vouchers RESET (fillfactor)')
    const moved = await redeemOften('ff_default', 1190, 60)
    expect(moved.redeemed).toBe(60)
    expect(moved.page).toBeGreaterThanOrEqual(5)
    expect(moved.bytes).toBeGreaterThanOrEqual(6 * 8192)
  })

  it("step 9 gives an earlier release's tables their fillfactor once; a host's own setting afterwards stays", async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'ff_old' })
    await store.migrate()
    await db.pool.query(`ALTER TABLE ff_old.vouchers RESET (fillfactor); ALTER TABLE ff_old.rewards RESET (fillfactor);
      ALTER TABLE ff_old.promotion_tiers RESET (fillfactor); DELETE FROM ff_old.pe_migrations WHERE version = 9`)
    expect(await store.migrate()).toEqual({ applied: [9] })
    const reloptions = async () =>
      (
        await db.pool.query(
          `SELECT relname, reloptions FROM pg_class WHERE relnamespace = 'ff_old'::regnamespace
             AND relname IN ('vouchers', 'promotion_tiers', 'rewards') ORDER BY relname`,
        )
      ).rows.map((r) => `${r.relname} ${r.reloptions}`)
    expect(await reloptions()).toEqual([
      'promotion_tiers fillfactor=80',
      'rewards fillfactor=80',
      'vouchers fillfactor=80',
    ])
    await db.pool.query('ALTER TABLE ff_old.vouchers SET (fillfactor = 85)')
    expect(await store.migrate()).toEqual({ applied: [] })
    expect(await reloptions()).toEqual([
      'promotion_tiers fillfactor=80',
      'rewards fillfactor=80',
      'vouchers fillfactor=85',
    ])
  })
})
