import { describe, expect, it } from 'vitest'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import { createPostgresStore } from '../../src/postgres'
import { emptySchema, useClonedPool } from './database'

/*
 * What engine commits inside a host's transaction cost it in subtransactions
 * (docs/postgres.md#subtransactions-in-a-host-transaction): each commit that writes keeps two
 * subtransaction ids until the host's transaction ends, so the 33rd overflows the 64 a backend caches.
 * Counted by the server itself (`pg_stat_get_backend_subxact`, PostgreSQL 16 or later).
 */

const db = useClonedPool(2)

const put = (id: string, expectedVersion: number | null = null) => ({
  writes: [
    {
      op: 'put' as const,
      collection: 'categories' as const,
      value: { id, name: id } as never,
      expectedVersion,
      shape: currentShape('categories'),
    },
  ],
})

describe('subtransactions of engine commits in a host transaction', () => {
  it('each commit that writes keeps two; a conflict none; the 33rd commit overflows the cache of 64', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const client = await db.pool.connect()
    // The backend's own entry, read afresh (statistics are otherwise read once per transaction).
    const subxacts = async () => {
      await client.query('SELECT pg_stat_clear_snapshot()')
      const { rows } = await client.query<{ n: number; overflowed: boolean }>(
        `SELECT s.subxact_count AS n, s.subxact_overflowed AS overflowed
           FROM pg_stat_get_backend_idset() AS b(id), pg_stat_get_backend_subxact(b.id) AS s
          WHERE pg_stat_get_backend_pid(b.id) = pg_backend_pid()`,
      )
      return rows[0]
    }
    try {
      await client.query('BEGIN')
      const host = createPostgresStore({ client })
      expect(await subxacts()).toEqual({ n: 0, overflowed: false })
      const seen: number[] = []
      for (let i = 1; i <= 32; i++) {
        expect((await host.commit(put(`cat_${i}`))).ok).toBe(true)
        seen.push((await subxacts())?.n ?? -1)
      }
      expect(seen).toEqual(seen.map((_, i) => 2 * (i + 1)))
      expect(await subxacts()).toEqual({ n: 64, overflowed: false })
      // A conflict rolls its subtransaction back: it keeps none.
      expect((await host.commit(put('cat_1', 7))).ok).toBe(false)
      expect(await subxacts()).toEqual({ n: 64, overflowed: false })
      expect((await host.commit(put('cat_33'))).ok).toBe(true)
      expect((await subxacts())?.overflowed).toBe(true)
    } finally {
      await client.query('ROLLBACK').catch(() => {})
      client.release()
    }
  })
})
