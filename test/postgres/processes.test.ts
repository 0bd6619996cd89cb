import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine, engineContext } from '../../src/engine'
import { enqueue, registerAsyncHandler } from '../../src/operations/kernel/jobs'
import { mutate } from '../../src/operations/kernel/unit-of-work'
import { creditCard, loadCard } from '../../src/operations/loyalty/points-ledger'
import { createPostgresStore, type PostgresStore } from '../../src/postgres'
import type { Change } from '../../src/storage/ports'
import { cloneDatabase } from './database'
import { COUNT_ACTION, countHandler } from './processes/scenario'

/*
 * Across processes: 4 child processes × 250 attempts on one database (test/postgres/processes/child.ts).
 * What one process's memory store proves with interleaved promises, these prove with real
 * connections racing on real row locks.
 */

const CHILDREN = 4
const ATTEMPTS = 250
const CHILD = fileURLToPath(new URL('./processes/child.ts', import.meta.url))

interface Tally {
  by: Record<string, number>
  success: number
  refused: number
  conflict: number
  amount: number
  errors: string[]
}

let url: string
let drop: () => Promise<void>
let pool: pg.Pool
let store: PostgresStore
let engine: Engine
let deadlocksBefore: number

/** The server's deadlock count for this database (the backends of exited children have flushed theirs). */
async function deadlocks(): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    'SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()',
  )
  return Number(rows[0]?.n ?? 0)
}

beforeAll(async () => {
  const db = await cloneDatabase()
  url = db.url
  drop = db.drop
  pool = new pg.Pool({ connectionString: url, max: 4 }).on('error', () => {})
  store = createPostgresStore({ pool })
  engine = createEngine({ store })
  registerAsyncHandler(engineContext(engine), COUNT_ACTION, countHandler)
  deadlocksBefore = await deadlocks()
})

afterAll(async () => {
  await pool.end()
  await drop()
})

function spawnChild(env: Record<string, string>, onMessage?: (m: unknown, child: ChildProcess) => void) {
  const child = fork(CHILD, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, PG_URL: url, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const done = new Promise<{ tally?: Tally; fatal?: string; signal: NodeJS.Signals | null }>((resolve) => {
    let tally: Tally | undefined
    let fatal: string | undefined
    child.on('message', (m: { tally?: Tally; fatal?: string }) => {
      if (m.tally) tally = m.tally
      if (m.fatal) fatal = m.fatal
      onMessage?.(m, child)
    })
    child.on('exit', (_code, signal) => resolve({ ...(tally ? { tally } : {}), ...(fatal ? { fatal } : {}), signal }))
  })
  return done
}

/** Runs the scenario in 4 processes at once and sums their tallies. */
async function race(scenario: string, attempts = ATTEMPTS, env: Record<string, string> = {}): Promise<Tally> {
  const results = await Promise.all(
    Array.from({ length: CHILDREN }, (_, i) =>
      spawnChild({ SCENARIO: scenario, ATTEMPTS: String(attempts), CHILD: String(i), ...env }),
    ),
  )
  const total: Tally = { success: 0, refused: 0, conflict: 0, amount: 0, errors: [], by: {} }
  for (const r of results) {
    expect(r.fatal).toBeUndefined()
    const t = r.tally as Tally
    total.success += t.success
    total.refused += t.refused
    total.conflict += t.conflict
    total.amount += t.amount
    total.errors.push(...t.errors)
    for (const [k, n] of Object.entries(t.by)) total.by[k] = (total.by[k] ?? 0) + n
  }
  expect(total.errors).toEqual([])
  return total
}

describe.sequential('4 processes × 250 attempts on one PostgreSQL', () => {
  it('one code with quantity Q gives exactly Q successes', async () => {
    const q = 37
    await engine.vouchers.create({
      code: 'HOT',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      redemption: { quantity: q },
    })
    const t = await race('quantity')
    expect(t.success).toBe(q)
    expect(t.success + t.refused + t.conflict).toBe(CHILDREN * ATTEMPTS)
    const voucher = await engine.vouchers.get('HOT')
    expect(voucher.redemption.redeemed_quantity).toBe(q)
    const redemptions = await store.redemptions.list({ where: { related_object_id: voucher.id }, count: true })
    expect(redemptions.data.filter((r) => r.value.result === 'SUCCESS')).toHaveLength(q)
  })

  it('a gift card never goes below zero and its redemptions sum to what it lost', async () => {
    const amount = 50_000
    await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount } })
    const t = await race('gift')
    const card = await engine.vouchers.get('GIFT')
    expect(card.gift?.balance).toBeGreaterThanOrEqual(0)
    expect(card.gift?.balance).toBe(amount - t.amount)
    const ledger = await store.redemptions.list({ where: { related_object_id: card.id } })
    const spent = ledger.data.filter((r) => r.value.result === 'SUCCESS').reduce((n, r) => n + (r.value.amount ?? 0), 0)
    expect(spent).toBe(t.amount)
    expect(t.success).toBeGreaterThan(0)
  })

  it('a loyalty card never goes below zero and its buckets sum to its balance', async () => {
    const club = await engine.loyalties.create({
      name: 'Club',
      type: 'AUTO_UPDATE',
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
    })
    await engine.vouchers.create({
      code: 'CARD',
      type: 'LOYALTY_CARD',
      campaign_id: club.id,
      loyalty_card: { points: 0 },
    })
    const start = 3000
    await mutate(engineContext(engine), async (tx) => {
      const stored = await tx.store.vouchers.findBy('code', 'CARD')
      if (!stored) throw new Error('no card')
      creditCard(tx, await loadCard(tx, stored), { points: start, expiresAt: null, source: { type: 'manual' } })
    })
    const t = await race('loyalty')
    const card = await engine.vouchers.get('CARD')
    const buckets = (await store.points_buckets.list({ where: { voucher_id: card.id } })).data.map((b) => b.value)
    expect(card.loyalty_card?.balance).toBeGreaterThanOrEqual(0)
    expect(card.loyalty_card?.balance).toBe(start - t.amount)
    expect(card.loyalty_card?.balance).toBe(buckets.reduce((n, b) => n + b.remaining, 0))
    expect(t.success).toBeGreaterThan(0)
  })

  it('budget rules hold: per customer, per day and per campaign', async () => {
    const coupon = async (name: string, rule: string, limit: number) => {
      const campaign = await engine.campaigns.create({
        name,
        campaign_type: 'DISCOUNT_COUPONS',
        type: 'AUTO_UPDATE',
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
        vouchers_count: 1,
      })
      const created = await engine.validationRules.create({
        name: `${rule} at most ${limit}`,
        rules: { '1': { name: rule, conditions: { $less_than_or_equal: [limit] } } },
      })
      await engine.validationRules.createAssignment(created.id, {
        related_object_type: 'campaign',
        related_object_id: campaign.id,
      })
      const codes = await store.vouchers.list({ where: { campaign_id: campaign.id } })
      return codes.data[0]?.value.code as string
    }
    const perCustomer = await coupon('Per customer', 'redemption.count.per_customer', 3)
    const daily = await coupon('Daily', 'campaign.redemptions.count.daily', 40)
    const total = await coupon('Total', 'campaign.redemptions.count', 25)
    const t = await race('budgets', ATTEMPTS, { CODES: JSON.stringify([perCustomer, daily, total]) })
    for (let c = 0; c < 5; c++) expect(t.by[`${perCustomer}/cust-${c}`]).toBe(3)
    expect(t.by[perCustomer]).toBe(15)
    expect(t.by[daily]).toBe(40)
    expect(t.by[total]).toBe(25)
    expect(t.conflict).toBe(0)
  })

  it('publications claim distinct free codes', async () => {
    await engine.campaigns.create({
      name: 'Welcome',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
      vouchers_count: 1200,
    })
    await engine.asyncActions.runPending()
    const t = await race('publications')
    expect(t.success).toBe(CHILDREN * ATTEMPTS)
    expect(t.conflict).toBe(0)
    expect(Object.keys(t.by)).toHaveLength(CHILDREN * ATTEMPTS)
    expect(Object.values(t.by).every((n) => n === 1)).toBe(true)
  })

  it('session locks never exceed the quantity', async () => {
    const q = 23
    await engine.vouchers.create({
      code: 'LOCKS',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      redemption: { quantity: q },
    })
    const t = await race('sessions')
    expect(t.success).toBe(q)
    const voucher = await engine.vouchers.get('LOCKS')
    const sessions = await store.sessions.list({ where: { voucher_id: voucher.id, released_at: null } })
    expect(sessions.total).toBe(q)
  })

  it('each async action runs exactly once', async () => {
    const n = 60
    // Actions the earlier cases queued (a loyalty program's card generation) run too.
    const queued = (await store.async_actions.list({ where: { status: 'ENQUEUED' } })).total
    await mutate(engineContext(engine), async (tx) => {
      for (let i = 0; i < n; i++) enqueue(tx, COUNT_ACTION, { i })
    })
    // Every child keeps running pending actions until none is left.
    const t = await race('async', 5)
    const counter = await store.counters.get('async-runs')
    expect(counter?.value.runs).toBe(n)
    // Not only committed once: run once. Runners that lose an action's claim never start its work.
    expect(t.by.handlerRuns).toBe(n)
    expect(t.success).toBe(n + queued)
    const pending = await store.async_actions.list({ where: { status: 'ENQUEUED' } })
    expect(pending.total).toBe(0)
  })
})

describe.sequential('the change feed under 4 processes', () => {
  it("a reader paging while they commit gets every change once, and each row's writes in the order made", async () => {
    const start = (await store.changes({ after: 0, limit: 1_000_000 })).next_after
    // A reader pages through the feed in small pages while the processes commit.
    const seen: Change[] = []
    let after = start
    let until: number | undefined
    const reader = (async () => {
      for (;;) {
        const page = await store.changes({ after, limit: 7, collections: ['counters'] })
        seen.push(...page.data)
        after = page.next_after
        if (until !== undefined && after >= until) return
      }
    })()
    const t = await race('feed', 60)
    // The reader stops once past the last change, which it can list once no transaction older than
    // that change is in progress (another backend's may hold the feed back for a moment).
    for (;;) {
      const { rows } = await pool.query<{ last: string; final: boolean }>(
        `SELECT max(seq) AS last, max(seq) < promo_engine.pe_feed_base() + pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS final
         FROM promo_engine.pe_changes`,
      )
      if (rows[0]?.final) {
        until = Number(rows[0].last)
        break
      }
      await new Promise((r) => setTimeout(r, 20))
    }
    await reader
    // Nothing missed, nothing twice: what the reader got while they committed is what the feed holds now.
    const all = (await store.changes({ after: start, limit: 1_000_000, collections: ['counters'] })).data
    expect(seen).toEqual(all)
    // Every increment commit wrote the hot row once: its versions 1…n in feed order, none missing.
    const versionsOf = (id: string) => all.filter((c) => c.id === id).map((c) => c.version)
    const increments = CHILDREN * 40
    expect(versionsOf('feed_hot')).toEqual(Array.from({ length: increments }, (_, i) => i + 1))
    // Each row's versions strictly increase in feed order (the shared rows, the versioned one too).
    for (const id of new Set(all.map((c) => c.id))) {
      const versions = versionsOf(id)
      expect(versions, id).toEqual([...versions].sort((a, b) => a - b))
      expect(new Set(versions).size, id).toBe(versions.length)
    }
    expect(versionsOf('feed_doc')).toHaveLength(t.success - increments)
    expect(t.success + t.refused).toBe(CHILDREN * 60)
  })
})

describe.sequential('a process killed during its commit', () => {
  async function killedAt(step: string): Promise<void> {
    await engine.vouchers.create({
      code: 'KILL',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
      redemption: { quantity: 10 },
    })
    const feed = await store.changes({ after: 0, limit: 1_000_000 })
    const before = feed.next_after
    const exit = await spawnChild({ SCENARIO: 'kill', ATTEMPTS: '1', KILL_AT: step }, (m, child) => {
      const at = (m as { at?: string }).at
      if (at === undefined) return
      // In the function: let the server reach the pause after its second write first.
      setTimeout(() => child.kill('SIGKILL'), step === 'in-function' ? 500 : 0)
    })
    expect(exit.signal).toBe('SIGKILL')
    // The server notices the lost client, rolls back an open transaction, releases its locks.
    let voucher = await engine.vouchers.get('KILL')
    for (let i = 0; i < 100; i++) {
      const busy = await pool.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pe_commit%' AND pid <> pg_backend_pid()",
      )
      if (busy.rows[0].n === 0) break
      await new Promise((r) => setTimeout(r, 100))
    }
    voucher = await engine.vouchers.get('KILL')
    const redemptions = await store.redemptions.list({ where: { related_object_id: voucher.id } })
    const after = await store.changes({ after: before, limit: 1_000_000 })
    const all = voucher.redemption.redeemed_quantity === 1
    // All of the commit or none of it: the counter, the redemption rows and the feed agree.
    expect(redemptions.total).toBe(all ? 1 : 0)
    expect(after.data.length > 0).toBe(all)
    if (step === 'committed') expect(all).toBe(true)
    else expect(all).toBe(false)
    await mutate(engineContext(engine), async (tx) => {
      const stored = await tx.store.vouchers.findBy('code', 'KILL')
      if (stored) tx.update('vouchers', stored, { ...stored.value, code: `KILLED-${step}` })
    })
  }

  it('after BEGIN: none of it', () => killedAt('begin'))
  it('inside the commit function, after its second write: none of it', () => killedAt('in-function'))
  it('after the commit function, before COMMIT: none of it', () => killedAt('applied'))
  it('after COMMIT: all of it', () => killedAt('committed'))
})

describe.sequential('locks taken in one order', () => {
  it('no deadlock on the server after every race above (pg_stat_database.deadlocks unchanged)', async () => {
    // Statistics reach the shared view when a backend flushes them: the children's backends have exited.
    await pool.query('SELECT pg_stat_force_next_flush()')
    expect(await deadlocks()).toBe(deadlocksBefore)
  })
})
