import { describe, expect, it } from 'vitest'
import { seededRandom } from '../../../src/ids'
import { createMemoryStore, type MemoryStore } from '../../../src/memory/memory-store'
import { EXPORT_CHUNK_ROWS } from '../../../src/operations/admin/export-steps'
import { CLAIM_LEASE_MS } from '../../../src/operations/kernel/jobs'
import type { Store, Write } from '../../../src/storage/ports'
import { manualClock, testEngine } from '../../support/engine'

/*
 * Exports of any size in bounded memory (docs/http.md#asynchronous-actions-and-export-files): each
 * step of the export's action reads its declared index a page at a time from a cursor and commits one
 * chunk of the file with that cursor, so a crash between two chunks neither drops nor repeats a row.
 */

const put = (collection: string, value: Record<string, unknown>) =>
  ({ op: 'put', collection, value, expectedVersion: null }) as unknown as Write

async function commitAll(store: Store, writes: Write[]): Promise<void> {
  for (let i = 0; i < writes.length; i += 500) {
    const outcome = await store.commit({ writes: writes.slice(i, i + 500) })
    expect(outcome.ok).toBe(true)
  }
}

const minute = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()

/**
 * A voucher campaign with 1,100 redemptions (two a minute, so dates tie), 150 rollbacks (one failed)
 * dated among later redemptions, and another campaign's redemptions: 1,250 rows, newest first.
 */
async function transactionsShop(store: Store): Promise<string[]> {
  const writes: Write[] = [
    put('campaigns', {
      id: 'camp_t',
      name: 'Paged',
      campaign_type: 'GIFT_VOUCHERS',
      object: 'campaign',
      created_at: minute(0),
    }),
    put('campaigns', { id: 'camp_o', name: 'Other', object: 'campaign', created_at: minute(0) }),
    put('vouchers', { id: 'v_o', code: 'O', campaign_id: 'camp_o', type: 'DISCOUNT_VOUCHER', created_at: minute(0) }),
  ]
  for (let v = 0; v < 20; v++) {
    const id = `v_${String(v).padStart(2, '0')}`
    writes.push(
      put('vouchers', { id, code: `C${v}`, campaign_id: 'camp_t', type: 'GIFT_VOUCHER', created_at: minute(0) }),
    )
  }
  const rows: { id: string; date: string }[] = []
  const redemption = (id: string, voucher: string, campaign: string, date: string) => ({
    id,
    object: 'redemption',
    date,
    customer_id: null,
    metadata: {},
    redemption: null,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    channel: { channel_id: null, channel_type: 'API' },
    related_object_type: 'voucher',
    related_object_id: voucher,
    related_object_parent_id: campaign,
    gift: { amount: 100 },
  })
  for (let i = 0; i < 1100; i++) {
    const id = `r_${String(i).padStart(4, '0')}`
    const date = minute(Math.floor(i / 2))
    writes.push(put('redemptions', redemption(id, `v_${String(i % 20).padStart(2, '0')}`, 'camp_t', date)))
    rows.push({ id, date })
    if (i % 100 === 0) writes.push(put('redemptions', redemption(`r_x${i}`, 'v_o', 'camp_o', date)))
  }
  for (let k = 0; k < 150; k++) {
    const id = `rr_${String(k).padStart(4, '0')}`
    const of = k * 7
    const date = minute(Math.floor(of / 2) + 3 + (k % 4))
    writes.push(
      put('redemption_rollbacks', {
        id: k === 149 ? `rrf_${k}` : id,
        object: 'redemption_rollback',
        date,
        redemption: `r_${String(of).padStart(4, '0')}`,
        result: k === 149 ? 'FAILURE' : 'SUCCESS',
        status: k === 149 ? 'FAILED' : 'SUCCEEDED',
        channel: { channel_id: null, channel_type: 'API' },
        customer_id: null,
        related_object_type: 'voucher',
        related_object_id: `v_${String(of % 20).padStart(2, '0')}`,
        related_object_parent_id: 'camp_t',
        metadata: {},
      }),
    )
    rows.push({ id: k === 149 ? `rrf_${k}` : id, date })
  }
  await commitAll(store, writes)
  const desc = (a: { id: string; date: string }, b: { id: string; date: string }) =>
    a.date === b.date ? (a.id < b.id ? 1 : -1) : a.date < b.date ? 1 : -1
  return rows.sort(desc).map((r) => r.id)
}

/** 3,001 customers, one a minute; four in five (2,400) are exported. */
async function customersShop(store: Store): Promise<string[]> {
  const writes: Write[] = []
  const kept: string[] = []
  for (let i = 0; i < 3001; i++) {
    const id = `cust_${String(i).padStart(4, '0')}`
    writes.push(
      put('customers', {
        id,
        object: 'customer',
        source_id: `s${i}`,
        metadata: { keep: i % 5 !== 0 },
        created_at: minute(i),
      }),
    )
    if (i % 5 !== 0) kept.push(`s${i}`)
  }
  await commitAll(store, writes)
  return kept
}

interface Read {
  collection: string
  method: string
  returned: number
  examined: number
}

/** The memory store, recording what each read returned and examined (its `rowsExamined` while it ran). */
function recordingStore(inner: MemoryStore): {
  store: Store
  reads: Read[]
  chunkCommits: () => number
  /** The most writes, and the most bytes, one commit carried. */
  largestCommit: { writes: number; bytes: number }
} {
  const reads: Read[] = []
  let chunkCommits = 0
  const largestCommit = { writes: 0, bytes: 0 }
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const member = Reflect.get(target, prop, receiver)
      if (prop === 'commit') {
        return async (changeset: Parameters<Store['commit']>[0]) => {
          if (changeset.writes.some((w) => w.collection === 'file_chunks')) chunkCommits++
          largestCommit.writes = Math.max(largestCommit.writes, changeset.writes.length)
          largestCommit.bytes = Math.max(largestCommit.bytes, JSON.stringify(changeset).length)
          return inner.commit(changeset)
        }
      }
      if (typeof prop !== 'string' || member === null || typeof member !== 'object') return member
      return new Proxy(member as object, {
        get(repo, method) {
          const fn = Reflect.get(repo, method) as (...args: unknown[]) => Promise<unknown>
          return async (...args: unknown[]) => {
            const before = inner.stats.rowsExamined
            const result = await fn.apply(repo, args)
            const returned = Array.isArray(result)
              ? result.length
              : ((result as { data?: unknown[] } | undefined)?.data?.length ?? 1)
            reads.push({
              collection: prop,
              method: String(method),
              returned,
              examined: inner.stats.rowsExamined - before,
            })
            return result
          }
        },
      })
    },
  })
  return { store, reads, chunkCommits: () => chunkCommits, largestCommit }
}

/**
 * A store shared with other processes that dies at the commit of its `at`-th file chunk: before the
 * commit is applied or just after, and every call after that throws, as a killed worker would.
 */
function mortalStore(inner: Store, at: number, when: 'before' | 'after'): Store {
  let chunks = 0
  let dead = false
  const died = () => new Error('the worker died')
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const member = Reflect.get(target, prop, receiver)
      if (prop === 'commit') {
        return async (changeset: Parameters<Store['commit']>[0]) => {
          if (dead) throw died()
          if (changeset.writes.some((w) => w.collection === 'file_chunks') && ++chunks === at) {
            dead = true
            if (when === 'after') await inner.commit(changeset)
            throw died()
          }
          return inner.commit(changeset)
        }
      }
      if (typeof prop !== 'string' || member === null || typeof member !== 'object') return member
      return new Proxy(member as object, {
        get(repo, method) {
          const fn = Reflect.get(repo, method) as (...args: unknown[]) => unknown
          return (...args: unknown[]) => {
            if (dead) throw died()
            return fn.apply(repo, args)
          }
        },
      })
    },
  })
}

type Engine = ReturnType<typeof testEngine>['engine']

/** The export's CSV lines, after the header. */
async function exportedLines(engine: Engine, exportId: string): Promise<string[]> {
  const done = await engine.exports.get(exportId)
  expect(done.status).toBe('DONE')
  const file = await engine.files.get(done.result?.url ?? '')
  return file.content.trimEnd().split('\r\n').slice(1)
}

describe('exports in cursor-paged chunks', () => {
  it('a transactions export reads no more than a page per store call and writes ceil(N / chunk) chunks, one commit each', async () => {
    const memory = createMemoryStore()
    const expected = await transactionsShop(memory)
    const { store, reads, chunkCommits, largestCommit } = recordingStore(memory)
    const { engine } = testEngine({ store })
    const exp = await engine.exports.createCampaignTransactionsExport('camp_t', { parameters: { fields: ['id'] } })
    reads.length = 0
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
    // Each commit: a chunk, the action with its cursor, and the file's entry and the export when they change.
    expect(largestCommit.writes).toBeLessThanOrEqual(4)
    expect(largestCommit.bytes).toBeLessThan(20_000)
    expect(Math.max(...reads.map((r) => r.returned))).toBeLessThanOrEqual(EXPORT_CHUNK_ROWS)
    // Index slices only: no read examined more rows than it returned.
    for (const r of reads) expect(r.examined, `${r.collection}.${r.method}`).toBeLessThanOrEqual(r.returned)
    expect(expected).toHaveLength(1250)
    const chunks = Math.ceil(1250 / EXPORT_CHUNK_ROWS)
    expect(chunkCommits()).toBe(chunks)
    const done = await engine.exports.get(exp.id)
    const file = await engine.files.get(done.result?.url ?? '')
    expect(file.chunks).toBe(chunks)
    expect(file.content.split('\r\n').slice(1, -1)).toEqual(expected)
    expect(await engine.asyncActions.get((await memory.async_actions.list()).data[0]?.value.id ?? '')).toMatchObject({
      status: 'DONE',
      result: { export_id: exp.id, rows: 1250 },
    })
  })

  it('an objects export does the same, oldest first, filtered row by row', async () => {
    const memory = createMemoryStore()
    const kept = await customersShop(memory)
    const { store, reads, chunkCommits } = recordingStore(memory)
    const { engine } = testEngine({ store })
    const exp = await engine.exports.create({
      exported_object: 'customer',
      parameters: {
        order: 'created_at',
        fields: ['source_id'],
        filters: { 'metadata.keep': { conditions: { $is: true } } },
      },
    })
    reads.length = 0
    await engine.asyncActions.runPending()
    expect(Math.max(...reads.map((r) => r.returned))).toBeLessThanOrEqual(EXPORT_CHUNK_ROWS)
    for (const r of reads) expect(r.examined, `${r.collection}.${r.method}`).toBeLessThanOrEqual(r.returned)
    expect(await exportedLines(engine, exp.id)).toEqual(kept)
    expect(kept).toHaveLength(2400)
    expect(chunkCommits()).toBe(Math.ceil(2400 / EXPORT_CHUNK_ROWS))
  })

  it('shows the export IN_PROGRESS between two chunks', async () => {
    const { engine, store, clock } = testEngine()
    await customersShop(store)
    const exp = await engine.exports.create({ exported_object: 'customer', parameters: { fields: ['id'] } })
    const dying = testEngine({ store: mortalStore(store, 2, 'before'), random: seededRandom(7) }).engine
    await expect(dying.asyncActions.runPending()).rejects.toThrow('the worker died')
    expect(await engine.exports.get(exp.id)).toMatchObject({ status: 'IN_PROGRESS', result: null })
    const [action] = (await store.async_actions.list()).data
    expect(await engine.asyncActions.get(action?.value.id ?? '')).toEqual(
      expect.not.objectContaining({ state: expect.anything() }),
    )
    expect(action?.value).toMatchObject({ status: 'IN_PROGRESS', state: { rows: EXPORT_CHUNK_ROWS } })
    // The dead worker's claim on the next step holds until its lease runs out.
    clock.advance(CLAIM_LEASE_MS + 1)
    await engine.asyncActions.runPending()
    expect(await exportedLines(engine, exp.id)).toHaveLength(3001)
  })

  for (const when of ['before', 'after'] as const) {
    it(`a worker killed at a chunk's commit (${when} it applies): the next run goes on, every row once`, async () => {
      const { engine, store, clock } = testEngine()
      const expected = await transactionsShop(store)
      const exp = await engine.exports.createCampaignTransactionsExport('camp_t', { parameters: { fields: ['id'] } })
      const dying = testEngine({ store: mortalStore(store, 2, when), random: seededRandom(7), clock }).engine
      await expect(dying.asyncActions.runPending()).rejects.toThrow('the worker died')
      const state = (await store.async_actions.list()).data[0]?.value.state as { rows: number }
      // Before: only the first chunk committed; after: the second too (with its cursor).
      expect(state.rows).toBe(when === 'before' ? EXPORT_CHUNK_ROWS : 2 * EXPORT_CHUNK_ROWS)
      // Before: the dead worker's claim holds until its lease runs out; after, the step ended it.
      clock.advance(CLAIM_LEASE_MS + 1)
      expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
      expect(await exportedLines(engine, exp.id)).toEqual(expected)
    })
  }

  it('two workers running the same export at once write every row once', async () => {
    const { engine, store } = testEngine()
    const expected = await customersShop(store)
    const exp = await engine.exports.create({
      exported_object: 'customer',
      parameters: {
        order: 'created_at',
        fields: ['source_id'],
        filters: { 'metadata.keep': { conditions: { $is: true } } },
      },
    })
    const other = testEngine({ store, random: seededRandom(7), clock: manualClock() }).engine
    await Promise.all([engine.asyncActions.runPending(), other.asyncActions.runPending()])
    expect(await exportedLines(engine, exp.id)).toEqual(expected)
  })

  it('a failure part-way marks the export ERROR and its partial file FAILED, expired for the purge', async () => {
    const { engine, store, clock } = testEngine()
    await transactionsShop(store)
    const exp = await engine.exports.createCampaignTransactionsExport('camp_t')
    await expect(
      testEngine({ store: mortalStore(store, 2, 'before'), random: seededRandom(7) }).engine.asyncActions.runPending(),
    ).rejects.toThrow()
    const campaign = await store.campaigns.get('camp_t')
    await store.commit({
      writes: [{ op: 'delete', collection: 'campaigns', id: 'camp_t', expectedVersion: campaign?.version ?? 0 }],
    })
    clock.advance(CLAIM_LEASE_MS + 1)
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 0, failed: 1 })
    expect(await engine.exports.get(exp.id)).toMatchObject({ status: 'ERROR', result: null })
    const files = (await store.files.list()).data.map((f) => f.value)
    expect(files).toEqual([
      expect.objectContaining({ status: 'FAILED', expires_at: '2026-01-15T10:10:00.001Z', chunks: 0 }),
    ])
    expect((await store.file_chunks.list({ where: { file_id: files[0]?.id ?? '' } })).total).toBe(1)
  })
})
