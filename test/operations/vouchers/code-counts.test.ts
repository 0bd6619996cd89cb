import { describe, expect, it } from 'vitest'
import {
  CODE_COUNT_SHARDS,
  codesCounterId,
  codesCounterIds,
  SHARDED_ROOM,
} from '../../../src/operations/vouchers/code-counts'
import { testEngine } from '../../support/engine'
import { program } from '../loyalty/fixtures'

/*
 * The count of codes made on demand (docs/storage.md#shared-rows): in shards while the pattern has
 * room to spare, so concurrent new members do not queue on one row; in the one guarded row near
 * capacity, and once a shard is full.
 */

type Setup = ReturnType<typeof testEngine>

/** A program whose cards are made on demand from ten digits: 10^10 codes, room to spare. */
async function roomyProgram(engine: Setup['engine']) {
  const club = await program(engine, {
    vouchers_count: 0,
    voucher: {
      type: 'LOYALTY_CARD',
      loyalty_card: { points: 0 },
      code_config: { pattern: '##########', charset: '0123456789' },
    },
  })
  expect(10 ** 10).toBeGreaterThan(SHARDED_ROOM)
  return club
}

async function counts(store: Setup['store'], campaignId: string) {
  const rows = await store.counters.getMany(codesCounterIds(campaignId))
  return new Map(rows.map((r) => [r.value.id, r.value.count as number]))
}

describe('the count of codes made on demand', () => {
  it('with room to spare: new members are counted in shards, and the campaign shows their sum', async () => {
    const { engine, store } = testEngine()
    const club = await roomyProgram(engine)
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        engine.loyalties.createMember(club.id, { customer: { source_id: `m${i}` } }),
      ),
    )
    const rows = await counts(store, club.id)
    expect(rows.has(codesCounterId(club.id))).toBe(false)
    // Spread by the codes' hash: more than one shard took them.
    expect(rows.size).toBeGreaterThan(1)
    expect([...rows.values()].reduce((a, b) => a + b, 0)).toBe(24)
    expect((await engine.loyalties.get(club.id)).vouchers_count).toBe(24)
  })

  it('a full shard: the member is counted in the one row, bounded by what the shards leave', async () => {
    const { engine, store } = testEngine()
    const club = await roomyProgram(engine)
    // Every shard at its share of the room (a ninth each): the next code's shard refuses it.
    const share = Math.floor(10 ** 10 / (CODE_COUNT_SHARDS + 1))
    const fill = await store.commit({
      writes: codesCounterIds(club.id)
        .slice(1)
        .map((id) => ({
          op: 'increment' as const,
          collection: 'counters' as const,
          id,
          by: { count: share },
          create: {},
        })),
    })
    expect(fill.ok).toBe(true)
    await engine.loyalties.createMember(club.id, { customer: { source_id: 'late' } })
    const rows = await counts(store, club.id)
    expect(rows.get(codesCounterId(club.id))).toBe(1)
    expect((await engine.loyalties.get(club.id)).vouchers_count).toBe(CODE_COUNT_SHARDS * share + 1)
  })

  it('the pattern full, shards and one row together: the pattern error, nothing made', async () => {
    const { engine, store } = testEngine()
    const club = await roomyProgram(engine)
    const share = Math.floor(10 ** 10 / (CODE_COUNT_SHARDS + 1))
    await store.commit({
      writes: codesCounterIds(club.id).map((id, i) => ({
        op: 'increment' as const,
        collection: 'counters' as const,
        id,
        // The one row holds the rest of the room.
        by: { count: i === 0 ? 10 ** 10 - CODE_COUNT_SHARDS * share : share },
        create: {},
      })),
    })
    await expect(engine.loyalties.createMember(club.id, { customer: { source_id: 'none' } })).rejects.toMatchObject({
      code: 400,
      path: 'voucher.code_config',
    })
    expect((await engine.loyalties.get(club.id)).vouchers_count).toBe(10 ** 10)
  })

  it('a small pattern: one guarded row counts, exactly', async () => {
    const { engine, store } = testEngine()
    const club = await program(engine, {
      vouchers_count: 0,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'A#', charset: '0123' } },
    })
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        engine.loyalties.createMember(club.id, { customer: { source_id: `m${i}` } }).then(
          () => 'ok',
          (e: { code?: number }) => e.code,
        ),
      ),
    ).then((outcomes) => expect(outcomes.filter((o) => o === 'ok')).toHaveLength(4))
    const rows = await counts(store, club.id)
    expect([...rows.entries()]).toEqual([[codesCounterId(club.id), 4]])
  })
})
