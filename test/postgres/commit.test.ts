import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import { createPostgresStore, type PoolLike, type QueryConfigLike, type QueryResultLike } from '../../src/postgres'
import { manualClock } from '../support/engine'
import { emptySchema, useClonedPool } from './database'

/*
 * The commit on PostgreSQL (docs/postgres.md#commit): what a one-line redemption writes, listed and
 * counted (no speed may come from skipping work); guards bounded by a stored field; the change feed
 * numbered in commit order (a reader never misses a late commit).
 */

const db = useClonedPool(4)

/** A pool that keeps every query it sends: the commit's payload is the changeset as the server applies it. */
function recordingPool(inner: pg.Pool) {
  const sent: { text: string; values?: unknown[] }[] = []
  const record = (q: string | QueryConfigLike, values?: unknown[]) => {
    const config = typeof q === 'string' ? { text: q, ...(values ? { values } : {}) } : q
    sent.push({ text: config.text, ...(config.values ? { values: config.values } : {}) })
    return config
  }
  const pool: PoolLike = {
    query: <R>(q: string | QueryConfigLike, values?: unknown[]) =>
      inner.query(record(q, values)) as unknown as Promise<QueryResultLike<R>>,
    async connect() {
      const client = await inner.connect()
      return {
        query: <R>(q: string | QueryConfigLike, values?: unknown[]) =>
          client.query(record(q, values)) as unknown as Promise<QueryResultLike<R>>,
        release: (error?: Error | boolean) => client.release(error),
      }
    },
    end: () => inner.end(),
  }
  return { pool, sent }
}

interface StepSent {
  c: string
  rows: { op: string; id: string; n?: number }[]
}

/** The last commit sent, as the function takes it. */
function payloadOf(sent: { text: string; values?: unknown[] }[]): { steps: StepSent[]; uk?: string[] } {
  const commit = sent.filter((q) => q.text.includes('pe_commit(')).at(-1)
  return JSON.parse(String(commit?.values?.[0])) as { steps: StepSent[]; uk?: string[] }
}

/** The last commit sent, as the function applies it: its steps. */
function stepsOf(sent: { text: string; values?: unknown[] }[]): StepSent[] {
  return payloadOf(sent).steps
}

/** The writes of the last commit sent, as `collection op` per write (an increment merged into another counts). */
function writesOf(sent: { text: string; values?: unknown[] }[]): string[] {
  return stepsOf(sent).flatMap((s) => s.rows.flatMap((r) => Array(r.n ?? 1).fill(`${s.c} ${r.op}`)))
}

describe.sequential('the commit on PostgreSQL', () => {
  it('a one-line redemption: its writes and change-feed rows, listed and counted; queries per operation', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const { pool, sent } = recordingPool(db.pool)
    const store = createPostgresStore({ pool })
    const engine = createEngine({ store, clock: manualClock(), random: seededRandom(1) })
    await engine.raw.vouchers.create({
      code: 'ONE',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      redemption: { quantity: 1000 },
    })
    const body = {
      redeemables: [{ object: 'voucher' as const, id: 'ONE' }],
      order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
      customer: { source_id: 'shopper' },
    }
    // The first redemption creates the customer; the second is the steady state measured.
    await engine.raw.redemptions.redeemStackable(body)

    sent.length = 0
    const validation = await engine.raw.validations.validateStackable(body)
    expect(validation.valid).toBe(true)
    // A validation without a session: one activity appended, no version check, no lock of another row.
    expect(writesOf(sent)).toEqual(['activities ins'])
    // Its budget counters: one row per counter, the code's, the customer's and its distinct customers'
    // (docs/storage.md#counters; 12 when each period had a row of its own).
    const countersRead = sent.flatMap((q) => {
      const m = /"counters" WHERE id = ANY\(\$(\d+)::text\[\]\)/.exec(q.text)
      return m ? [((q.values ?? [])[Number(m[1]) - 1] as string[]).map((id) => id.split(':')[0])] : []
    })
    expect(countersRead).toEqual([['r', 'rc', 'cu']])
    const validationQueries = sent.length
    // Internal reads count nothing (docs/postgres.md#loads): no count(*) on the request's path.
    expect(sent.filter((q) => q.text.includes('count(*)'))).toEqual([])
    // No natural key changed: no unique check runs (docs/postgres.md#commit).
    expect(payloadOf(sent).uk).toBeUndefined()

    sent.length = 0
    const feedBefore = await store.changes({ limit: 1_000_000 })
    sent.length = 0
    const result = await engine.raw.redemptions.redeemStackable(body)
    expect(result.parent_redemption.result).toBe('SUCCESS')
    const writes = writesOf(sent)
    const steps = stepsOf(sent)
    const redemptionQueries = sent.length
    expect(sent.filter((q) => q.text.includes('count(*)'))).toEqual([])
    // The new order holds no natural key (no source_id: its key column is NULL, which never
    // collides), so no unique check runs at the end.
    expect(payloadOf(sent).uk).toBeUndefined()
    // Three activities (redemption succeeded, voucher redeemed, order created), the order, the parent
    // and child redemptions; then the counter rows (docs/storage.md#counters): the code's redemptions
    // (r:, one row: the total and a field per day, week and month), the customer's summary (cs:,
    // twice: its redemption and its order) and the customer's redemptions of the code (rc:, one row);
    // last the code's redeemed quantity, guarded: 11 writes (17 when each period had its own row).
    expect(writes).toEqual([
      ...Array(3).fill('activities ins'),
      'orders ins',
      'redemptions ins',
      'redemptions ins',
      ...Array(4).fill('counters inc'),
      'vouchers inc',
    ])
    // As applied: the summary's two increments as one row write (docs/postgres.md#commit), 10 rows in
    // 5 steps (activities, orders, redemptions inserted; counters, then the code, by guarded upserts).
    expect(steps.map((s) => `${s.c} ${s.rows.length}`)).toEqual([
      'activities 3',
      'orders 1',
      'redemptions 2',
      'counters 3',
      'vouchers 1',
    ])
    const feed = await store.changes({ after: feedBefore.next_after, limit: 1_000_000 })
    // One change per entity written (the summary counter once, at its last write), all of one commit.
    expect(new Set(feed.data.map((c) => c.seq)).size).toBe(1)
    const perCollection = (list: string[]) =>
      list.reduce<Record<string, number>>((n, c) => Object.assign(n, { [c]: (n[c] ?? 0) + 1 }), {})
    expect(perCollection(feed.data.map((c) => `${c.collection} ${c.op}`))).toEqual({
      'activities put': 3,
      'orders put': 1,
      'redemptions put': 2,
      'counters put': 3,
      'vouchers put': 1,
    })
    // The code's row: both redemptions in its total and in the fields of the day, week and month.
    const code = (await store.vouchers.findBy('code', 'ONE'))?.value.id
    const row = feed.data.find((c) => c.collection === 'counters' && c.id === `r:${code}`)?.value
    expect(row).toMatchObject({ count: 2, 'd:2026-01-15': 2, 'w:2026-01-12': 2, 'm:2026-01': 2 })
    expect(
      feed.data
        .filter((c) => c.version === 1)
        .map((c) => c.collection)
        .sort(),
    ).toEqual([...Array(3).fill('activities'), 'orders', 'redemptions', 'redemptions'])
    // Stored as listed: the commit's rows carry its final number, one per entity, and no provisional
    // (negative) number is left behind.
    const stored = await db.pool.query<{ seq: string; n: number; entities: number }>(
      `SELECT seq::text, count(*)::int AS n, count(DISTINCT (collection, id))::int AS entities
         FROM promo_engine.pe_changes WHERE seq = $1 OR seq < 0 GROUP BY seq`,
      [feed.data[0]?.seq],
    )
    expect(stored.rows).toEqual([{ seq: String(feed.data[0]?.seq), n: 10, entities: 10 }])
    // What the commit writes, table by table (docs/postgres.md#commit): the same payload applied again
    // (its inserted ids made new) in a transaction that is rolled back, counted by the server. Each
    // feed row is inserted once, under its final number: 10 rows, and one placeholder of a few bytes
    // inserted and deleted to give the numbering subtransaction its id; no feed row is updated.
    const payload = payloadOf(sent)
    let again = JSON.stringify(payload)
    for (const step of payload.steps)
      for (const r of step.rows) if (r.op === 'ins') again = again.split(r.id).join(`${r.id}_again`)
    const client = await db.pool.connect()
    try {
      await client.query('BEGIN')
      // The server's counts of this backend not yet reported (earlier transactions' too): a difference.
      const tally = async () =>
        (
          await client.query<{ relname: string; ins: number; upd: number; del: number }>(
            `SELECT relname, n_tup_ins::int AS ins, n_tup_upd::int AS upd, n_tup_del::int AS del
               FROM pg_stat_xact_user_tables WHERE schemaname = 'promo_engine'`,
          )
        ).rows
      const before = new Map((await tally()).map((r) => [r.relname, r]))
      const applied = (await client.query('SELECT promo_engine.pe_commit($1::jsonb) AS r', [again])).rows[0].r
      expect(applied.ok).toBe(true)
      const written = (await tally())
        .map((r) => {
          const b = before.get(r.relname)
          return {
            relname: r.relname,
            ins: r.ins - (b?.ins ?? 0),
            upd: r.upd - (b?.upd ?? 0),
            del: r.del - (b?.del ?? 0),
          }
        })
        .filter((r) => r.ins + r.upd + r.del > 0)
        .sort((x, y) => (x.relname < y.relname ? -1 : 1))
      expect(written).toEqual([
        { relname: 'activities', ins: 3, upd: 0, del: 0 },
        // The counters' upsert: three rows that exist, each updated once.
        { relname: 'counters', ins: 0, upd: 3, del: 0 },
        { relname: 'orders', ins: 1, upd: 0, del: 0 },
        { relname: 'pe_changes', ins: 11, upd: 0, del: 1 },
        { relname: 'redemptions', ins: 2, upd: 0, del: 0 },
        { relname: 'vouchers', ins: 0, upd: 1, del: 0 },
      ])
      const rows = await client.query<{ n: number; provisional: number }>(
        `SELECT count(*) FILTER (WHERE seq = $1)::int AS n, count(*) FILTER (WHERE seq < 0)::int AS provisional
           FROM promo_engine.pe_changes`,
        [applied.seq],
      )
      expect(rows.rows).toEqual([{ n: 10, provisional: 0 }])
    } finally {
      await client.query('ROLLBACK')
      client.release()
    }
    // Each level of reads is one statement (docs/postgres.md#loads): the customer's id remembered from
    // the redemption that created them, the validation and the redemption each read their second
    // level with their first: one statement of reads, then the commit.
    expect({ validationQueries, redemptionQueries }).toEqual({ validationQueries: 2, redemptionQueries: 2 })
  })
  it('new entities of several collections: every row lands; an id already stored is an exists conflict of the first step holding one', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    const row = (collection: string, id: string) => ({
      op: 'put' as const,
      collection: collection as 'activities',
      value: { id, customer_id: 'c1', created_at: '2026-01-01T00:00:00.000Z' } as never,
      expectedVersion: null,
      shape: currentShape(collection as 'activities'),
    })
    const three = (suffix: string) => [
      row('redemptions', `r_${suffix}`),
      row('activities', `a_${suffix}`),
      row('orders', `o_${suffix}`),
      row('activities', `a2_${suffix}`),
    ]
    const first = await store.commit({ writes: three('1') })
    expect(first.ok).toBe(true)
    for (const [c, id] of [
      ['activities', 'a_1'],
      ['activities', 'a2_1'],
      ['orders', 'o_1'],
      ['redemptions', 'r_1'],
    ] as const)
      expect((await store[c].get(id))?.version).toBe(1)
    // Stored ids in the redemptions and the order: the order's step comes first.
    const both = await store.commit({ writes: [...three('2'), row('orders', 'o_1'), row('redemptions', 'r_1')] })
    expect(both).toEqual({ ok: false, conflict: { collection: 'orders', id: 'o_1', reason: 'exists' } })
    const last = await store.commit({ writes: [...three('3'), row('redemptions', 'r_1')] })
    expect(last).toEqual({ ok: false, conflict: { collection: 'redemptions', id: 'r_1', reason: 'exists' } })
    // Nothing of the failed commits was written.
    expect(await store.activities.get('a_2')).toBeUndefined()
    expect(await store.orders.get('o_3')).toBeUndefined()
    // An id an earlier step of the same commit inserted (a second round of the entity): reported too.
    const twice = await store.commit({
      writes: [row('activities', 'a_4'), row('orders', 'o_4'), row('activities', 'a_4')],
    })
    expect(twice).toEqual({ ok: false, conflict: { collection: 'activities', id: 'a_4', reason: 'exists' } })
  })

  it("the commit function applies a checkout's steps itself and any other step through its writer: its source stays small, every step lands", async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    await store.migrate()
    // PostgreSQL compiles the whole function in every new session before its first call
    // (docs/postgres.md#tuning): an arm for every kind of every collection made it 240 kB.
    const { rows } = await db.pool.query<{ n: number }>(
      "SELECT length(p.prosrc) AS n FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace WHERE p.proname = 'pe_commit' AND s.nspname = 'promo_engine'",
    )
    expect(rows[0]?.n).toBeLessThan(64 * 1024)
    const put = (collection: 'activities' | 'campaigns' | 'products', id: string) => ({
      op: 'put' as const,
      collection,
      value: { id, name: id, created_at: '2026-01-01T00:00:00.000Z' } as never,
      expectedVersion: null,
      shape: currentShape(collection),
    })
    // An activity (a checkout's step, applied by pe_commit) beside a campaign and a product (their writers').
    const sent = { ...recordingPool(db.pool) }
    const recorded = createPostgresStore({ pool: sent.pool })
    const outcome = await recorded.commit({
      writes: [put('activities', 'a_own'), put('campaigns', 'camp_w'), put('products', 'prod_w')],
    })
    expect(outcome.ok).toBe(true)
    const payload = JSON.parse(String(sent.sent.find((q) => q.text.includes('pe_commit('))?.values?.[0])) as {
      steps: { c: string; k?: string; rows: { id: string; v: object }[] }[]
    }
    expect(payload.steps.map((s) => [s.c, s.k ?? null])).toEqual([
      ['activities', 'i activities'],
      ['campaigns', null],
      ['products', null],
    ])
    for (const [c, id] of [
      ['activities', 'a_own'],
      ['campaigns', 'camp_w'],
      ['products', 'prod_w'],
    ] as const)
      expect((await store[c].get(id))?.version).toBe(1)
    // A kind the function does not apply itself, named by an adapter of another release: its writer's.
    const older = { ...payload, steps: payload.steps.map((s) => ({ ...s, k: `i ${s.c}` })) }
    for (const s of older.steps)
      for (const r of s.rows) {
        r.id = `${r.id}_2`
        r.v = { ...r.v, id: r.id, name: r.id }
      }
    const answer = await db.pool.query<{ r: unknown }>('SELECT promo_engine.pe_commit($1::jsonb) AS r', [
      JSON.stringify(older),
    ])
    expect(answer.rows[0]?.r).toMatchObject({ ok: true })
    expect((await store.campaigns.get('camp_w_2'))?.version).toBe(1)
    expect((await store.products.get('prod_w_2'))?.version).toBe(1)
    const feed = await db.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM promo_engine.pe_changes WHERE id LIKE '%_2'",
    )
    expect(Number(feed.rows[0]?.n)).toBe(3)
  })

  it('a guard bounded by a stored field (maxOf) and by other fields added to it (plus)', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    const seed = await store.commit({
      writes: [
        {
          op: 'put',
          collection: 'counters',
          value: { id: 'c1', used: 0, held: 2, cap: { quantity: 5 } } as never,
          expectedVersion: null,
          shape: currentShape('counters'),
        },
      ],
    })
    expect(seed.ok).toBe(true)
    const take = (by: number) =>
      store.commit({
        writes: [
          {
            op: 'increment',
            collection: 'counters',
            id: 'c1',
            by: { used: by },
            guard: { used: { maxOf: 'cap.quantity', plus: ['held'] } },
          },
        ],
      })
    // used + held ≤ cap.quantity: 0 + 3 + 2 fits, one more does not.
    expect((await take(3)).ok).toBe(true)
    const refused = await take(1)
    expect(refused).toEqual({
      ok: false,
      conflict: {
        collection: 'counters',
        id: 'c1',
        reason: 'guard',
        guard: { path: 'used', value: 6, maxOf: 'cap.quantity', plus: ['held'], max: 5 },
      },
    })
    // The bound is read as stored at commit: raised, the next increment fits.
    await store.commit({
      writes: [{ op: 'increment', collection: 'counters', id: 'c1', by: {}, set: { 'cap.quantity': 6 } }],
    })
    expect((await take(1)).ok).toBe(true)
    // A missing bound is no bound.
    await store.commit({
      writes: [{ op: 'increment', collection: 'counters', id: 'c1', by: {}, set: { cap: null } }],
    })
    expect((await take(100)).ok).toBe(true)
  })

  it("one guarded row created when missing (a code-count shard) is pe_commit's upsert: the guard checked on a new row and on a stored one, a failure written nowhere", async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    const count = (id: string, by: number, max: number) =>
      store.commit({
        writes: [
          { op: 'increment', collection: 'counters', id, by: { count: by }, guard: { count: { max } }, create: {} },
        ],
      })
    const stored = async (id: string) =>
      (await db.pool.query('SELECT value, version FROM promo_engine.counters WHERE id = $1', [id])).rows[0]
    const refused = (id: string, value: number, max: number) => ({
      ok: false,
      conflict: { collection: 'counters', id, reason: 'guard', guard: { path: 'count', value, max } },
    })
    // A new row past its guard at once: refused, not inserted.
    expect(await count('g:new', 3, 2)).toEqual(refused('g:new', 3, 2))
    expect(await stored('g:new')).toBeUndefined()
    // Created within it, then added to up to the bound; one more is refused and changes nothing.
    expect((await count('g:new', 1, 2)).ok).toBe(true)
    expect((await count('g:new', 1, 2)).ok).toBe(true)
    expect(await count('g:new', 1, 2)).toEqual(refused('g:new', 3, 2))
    expect(await stored('g:new')).toMatchObject({ value: { id: 'g:new', count: 2 }, version: 2 })
  })

  const put = (id: string) => ({
    writes: [
      {
        op: 'put' as const,
        collection: 'categories' as const,
        value: { id, name: id } as never,
        expectedVersion: null,
        shape: currentShape('categories'),
      },
    ],
  })
  const bump = (id: string) => ({
    writes: [{ op: 'increment' as const, collection: 'counters' as const, id, by: { n: 1 }, create: {} }],
  })
  /** A store whose commits stop at `at` until the returned release is called (docs/postgres.md#faults: the commit hook). */
  function held(at: 'applied' | 'begin') {
    let reached = () => {}
    let release = () => {}
    const reachedP = new Promise<void>((r) => {
      reached = r
    })
    const releaseP = new Promise<void>((r) => {
      release = r
    })
    const store = createPostgresStore({
      pool: db.pool,
      commitHook: {
        after: async (step) => {
          if (step !== at) return
          reached()
          await releaseP
        },
      },
    })
    return { store, reached: reachedP, release }
  }

  it('the change feed: a host transaction open across commits; a reader meanwhile sees none of them', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    const client = await db.pool.connect()
    try {
      // A host's transaction commits twice and stays open.
      await client.query('BEGIN')
      const host = createPostgresStore({ client })
      const late = await host.commit(put('late'))
      const second = await host.commit(put('late2'))
      expect(late.ok && second.ok && second.seq > late.seq).toBe(true)
      // Another commit does not wait for it (no row every commit takes), and lands after it in the feed;
      // a reader meanwhile sees nothing, so its cursor skips nothing.
      const early = await store.commit(put('early'))
      expect(early.ok && second.ok && early.seq > second.seq).toBe(true)
      const before = await store.changes()
      expect(before).toEqual({ data: [], has_more: false, next_after: 0 })
      await client.query('COMMIT')
      const after = await store.changes({ after: before.next_after })
      expect(after.data.map((c) => c.id)).toEqual(['late', 'late2', 'early'])
      expect(after.data.map((c) => c.seq)).toEqual([
        late.ok && late.seq,
        second.ok && second.seq,
        early.ok && early.seq,
      ])
    } finally {
      await client.query('ROLLBACK').catch(() => {})
      client.release()
    }
  })

  it('the change feed: a commit numbered before another but committed after it is never passed by a reader', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    for (const pause of ['in the function', 'before COMMIT'] as const) {
      const start = (await store.changes({ limit: 1_000_000 })).next_after
      // A commit that holds its transaction open: paused inside the function after its first write (it
      // has its transaction id, its rows are written), or after the function, before its COMMIT.
      const slow =
        pause === 'in the function'
          ? createPostgresStore({ pool: db.pool, commitHook: { pauseAfterWrite: { after: 1, seconds: 1.5 } } })
          : undefined
      const gate = pause === 'before COMMIT' ? held('applied') : undefined
      const a = (slow ?? (gate as ReturnType<typeof held>).store).commit(put(`a ${pause}`))
      if (gate) await gate.reached
      else await new Promise((r) => setTimeout(r, 300))
      const b = await store.commit(put(`b ${pause}`))
      expect(b.ok).toBe(true)
      // B committed, A has not: a reader gets neither, and its cursor stays where it was.
      const meanwhile = await store.changes({ after: start })
      expect(meanwhile).toEqual({ data: [], has_more: false, next_after: start })
      gate?.release()
      const first = await a
      expect(first.ok).toBe(true)
      // Once A committed, the reader after its cursor gets both, each once, in number order.
      const later = await store.changes({ after: meanwhile.next_after })
      const order = [first, b].sort((x, y) => (x.ok && y.ok ? x.seq - y.seq : 0))
      expect(later.data.map((c) => [c.id, c.seq])).toEqual(
        order.map((r) => [r === first ? `a ${pause}` : `b ${pause}`, r.ok && r.seq]),
      )
    }
  })

  it("the change feed lists one row's writes in the order made, even when the later writer had the older transaction id", async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    expect((await store.commit(bump('hot'))).ok).toBe(true)
    const start = (await store.changes({ limit: 1_000_000 })).next_after
    const client = await db.pool.connect()
    try {
      // T_b: a host's transaction that has its id first: it wrote its own order row
      // (docs/postgres.md#host-transaction).
      await client.query('CREATE TABLE IF NOT EXISTS host_orders (id text PRIMARY KEY)')
      await client.query('BEGIN')
      await client.query(`INSERT INTO host_orders VALUES ('o1')`)
      const tb = createPostgresStore({ client })
      const xidB = Number((await client.query('SELECT pg_current_xact_id()::text AS x')).rows[0].x)
      // T_a, a later transaction, writes the hot row and holds it until released.
      const gate = held('applied')
      const a = gate.store.commit(bump('hot'))
      await gate.reached
      const xids = await db.pool.query(
        `SELECT backend_xid::text AS x FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()`,
      )
      const xidA = Math.max(...xids.rows.map((r: { x: string }) => Number(r.x)))
      expect(xidB).toBeLessThan(xidA)
      // T_b writes the hot row too: it waits for T_a's row lock.
      const b = tb.commit(bump('hot'))
      await new Promise((r) => setTimeout(r, 300))
      gate.release()
      const first = await a
      const second = await b
      expect(first.ok && second.ok).toBe(true)
      if (!first.ok || !second.ok) return
      expect(second.versions['counters/hot']).toBe((first.versions['counters/hot'] ?? 0) + 1)
      // T_a committed, T_b is open: a reader gets nothing yet (T_b's id is the oldest in progress).
      const meanwhile = await store.changes({ after: start })
      expect(meanwhile.data).toEqual([])
      await client.query('COMMIT')
      const feed = await store.changes({ after: meanwhile.next_after })
      // T_b's id is older than T_a's, yet its write of the hot row is listed after T_a's, as it was made.
      expect(feed.data.map((c) => [c.id, c.version])).toEqual([
        ['hot', 2],
        ['hot', 3],
      ])
      expect(second.seq).toBeGreaterThan(first.seq)
    } finally {
      await client.query('ROLLBACK').catch(() => {})
      client.release()
    }
  })

  it('no row is taken by every commit: the commit function never writes pe_feed, whose row stays untouched', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const store = createPostgresStore({ pool: db.pool })
    const source = (await db.pool.query(`SELECT prosrc FROM pg_proc WHERE proname = 'pe_commit'`)).rows[0].prosrc
    expect(source).not.toMatch(/pe_feed\b(?!_base)/)
    const row = async () =>
      (await db.pool.query(`SELECT xmin::text, xmax::text, base FROM promo_engine.pe_feed`)).rows as unknown[]
    const before = await row()
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.commit(i % 2 ? bump('hot') : put(`c${i}`))))
    expect(await row()).toEqual(before)
  })

  it('asynchronous activity commits (opted in): only a commit that appends nothing but activities, and only its own transaction', async () => {
    await emptySchema(db.pool, 'promo_engine')
    const { pool, sent } = recordingPool(db.pool)
    const engine = createEngine({
      store: createPostgresStore({ pool, asyncActivities: true }),
      clock: manualClock(),
      random: seededRandom(1),
    })
    await engine.raw.vouchers.create({
      code: 'ASYNC',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
    })
    const body = {
      redeemables: [{ object: 'voucher' as const, id: 'ASYNC' }],
      order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
      customer: { source_id: 'shopper' },
    }
    await engine.raw.redemptions.redeemStackable(body)
    const asyncOf = () => (payloadOf(sent) as { async?: boolean }).async
    // The redemption writes more than activities: committed as always.
    expect(asyncOf()).toBeUndefined()
    sent.length = 0
    expect((await engine.raw.validations.validateStackable(body)).valid).toBe(true)
    expect(writesOf(sent)).toEqual(['activities ins'])
    expect(asyncOf()).toBe(true)
    // Without the option, the same validation is committed as always.
    const plain = recordingPool(db.pool)
    const engine2 = createEngine({ store: createPostgresStore({ pool: plain.pool }), clock: manualClock() })
    await engine2.raw.validations.validateStackable(body)
    expect(writesOf(plain.sent)).toEqual(['activities ins'])
    expect((payloadOf(plain.sent) as { async?: boolean }).async).toBeUndefined()
    // The function turns synchronous commit off for its own transaction only (the test server runs
    // with it off: this session turns it on first).
    const client = await db.pool.connect()
    try {
      await client.query('SET synchronous_commit = on')
      await client.query('BEGIN')
      const payload = { async: true, steps: payloadOf(sent).steps }
      const answer = (await client.query('SELECT promo_engine.pe_commit($1::jsonb) AS r', [JSON.stringify(payload)]))
        .rows[0].r
      expect(answer.ok).toBe(false) // the same activity again: it exists
      expect((await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('off')
      await client.query('ROLLBACK')
      expect((await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('on')
    } finally {
      await client.query('RESET synchronous_commit').catch(() => {})
      client.release()
    }
  })
})
