import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import { createPostgresStore, type PoolLike, type QueryConfigLike, type QueryResultLike } from '../../src/postgres'
import { emptySchema, useClonedPool } from './database'

/*
 * Reads issued together are one statement (docs/postgres.md#loads), whatever their number up to the
 * SELECT's column limit: each answered with its own rows, and a level of the same shape sent as the
 * same statement (one prepared name), in the same order of its reads however they were issued.
 */

const db = useClonedPool(4)

function recordingPool(inner: pg.Pool) {
  const sent: QueryConfigLike[] = []
  const pool: PoolLike = {
    query: <R>(q: string | QueryConfigLike, values?: unknown[]) => {
      const config = typeof q === 'string' ? { text: q, ...(values ? { values } : {}) } : q
      sent.push(config)
      return inner.query(config) as unknown as Promise<QueryResultLike<R>>
    },
    connect: () => inner.connect(),
    end: () => inner.end(),
  }
  return { pool, sent }
}

describe.sequential('reads batched per level on PostgreSQL', () => {
  it('many reads at once: one statement per 64, each read answered with its own rows', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const { pool, sent } = recordingPool(db.pool)
    const store = createPostgresStore({ pool })
    const ids = Array.from({ length: 150 }, (_, i) => `c${String(i).padStart(3, '0')}`)
    const seeded = await store.commit({
      writes: ids.map((id, i) => ({
        op: 'put' as const,
        collection: 'counters' as const,
        value: { id, used: i } as never,
        expectedVersion: null,
        shape: currentShape('counters'),
      })),
    })
    expect(seeded.ok).toBe(true)
    sent.length = 0
    // Three shapes interleaved: gets, getMany and lists, 200 reads in one turn.
    const reads = ids.map((id, i) =>
      i % 3 === 0
        ? store.counters.get(id).then((r) => (r?.value as { used: number } | undefined)?.used)
        : i % 3 === 1
          ? store.counters.getMany([id, 'missing']).then((r) => (r[0]?.value as { used: number } | undefined)?.used)
          : store.counters.get(`${id}-missing`).then((r) => (r === undefined ? i : -1)),
    )
    const lists = Array.from({ length: 50 }, () =>
      store.counters.list({ where: {}, order: { field: 'id', direction: 'asc' }, limit: 2, count: false }),
    )
    const used = await Promise.all(reads)
    expect(used).toEqual(ids.map((_, i) => i))
    for (const page of await Promise.all(lists)) expect(page.data.map((r) => r.value.id)).toEqual(['c000', 'c001'])
    expect(sent.length).toBe(Math.ceil(200 / 64))
  })

  it('a level of the same shape is the same statement, however its reads were issued', async () => {
    const { pool, sent } = recordingPool(db.pool)
    const store = createPostgresStore({ pool })
    const level = async (order: 'ab' | 'ba') => {
      const a = () => store.counters.get('c001')
      const b = () => store.customers.findBy('source_id', 'ann')
      await Promise.all(order === 'ab' ? [a(), b(), a()] : [b(), a(), a()])
    }
    await level('ab')
    await level('ba')
    await level('ab')
    expect(sent.map((q) => q.name)).toEqual(Array(3).fill(sent[0]?.name))
    expect(new Set(sent.map((q) => q.text)).size).toBe(1)
    expect(sent[0]?.name).toMatch(/^pe_/)
  })

  it('operations woken by different callbacks before one flush: one statement for those of one shape, a statement per shape otherwise', async () => {
    const { pool, sent } = recordingPool(db.pool)
    const store = createPostgresStore({ pool })
    // One operation's level: two reads at once, and a third from a continuation of the same wake-up.
    const level = async (id: string) => {
      const [one, many] = await Promise.all([
        store.counters.get(id),
        Promise.resolve().then(() => store.counters.getMany([id, 'missing'])),
      ])
      return [(one?.value as { used: number } | undefined)?.used, many.length]
    }
    // Another kind of operation's level: one read of another table.
    const other = async (sourceId: string) => (await store.customers.findBy('source_id', sourceId)) ?? null
    expect(await level('c001')).toEqual([1, 1])
    expect(await other('ann')).toBeNull()
    const alone = sent.map((q) => q.name)
    expect(alone).toHaveLength(2)
    sent.length = 0
    // Wake-ups (immediates run before the flush the first one's read scheduled), each starting its
    // operation: their runs of reads sent together.
    const together = (...starts: (() => Promise<unknown>)[]) =>
      new Promise<unknown[]>((resolve) => {
        const started: Promise<unknown>[] = []
        for (const [i, start] of starts.entries()) {
          setImmediate(() => {
            started.push(start())
            if (i === starts.length - 1) resolve(Promise.all(started))
          })
        }
      })
    // Two of one shape: one statement from the first time, the same text each time.
    const answers = [
      [1, 1],
      [2, 1],
    ]
    for (let k = 0; k < 3; k++)
      expect(
        await together(
          () => level('c001'),
          () => level('c002'),
        ),
      ).toEqual(answers)
    expect(sent).toHaveLength(3)
    expect(new Set(sent.map((q) => q.name)).size).toBe(1)
    expect(sent[0]?.name).not.toBe(alone[0])
    const pair = sent[0]?.name
    sent.length = 0
    // Two of one shape and one of another, again and again: the pair's statement and the other's own,
    // never a text of the three (docs/postgres.md#loads: combinations of kinds are not bounded).
    for (let k = 0; k < 3; k++)
      expect(
        await together(
          () => level('c001'),
          () => other('ann'),
          () => level('c002'),
        ),
      ).toEqual([[1, 1], null, [2, 1]])
    expect(sent).toHaveLength(6)
    expect(new Set(sent.map((q) => q.name))).toEqual(new Set([pair, alone[1]]))
  })
})
