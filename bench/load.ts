import { type ChildProcess, spawn } from 'node:child_process'
import pg from 'pg'
import { freePort, startEmbedded } from '../test/postgres/embedded'

/*
 * `npm run bench:load`: the reference server (`npm run serve`) on an embedded PostgreSQL, a realistic
 * shop set up over HTTP, then 16 concurrent clients, each request from a new customer, per case:
 * validations, redemptions, paid orders, publications, reward redemptions, a quantity-100 code and a
 * validate-then-redeem checkout. It prints requests/s, p50/p99 latency, status counts, outcome counts
 * and commits per request (calls of the commit function, from PostgreSQL's function statistics), and
 * fails when a case has a 409 or a 5xx, inexact outcomes, or more than 1.2 commits per request
 * (docs/storage.md#shared-rows). Figures in bench/RESULTS.md. LOAD_N scales the request counts.
 */

const CLIENTS = 16
const SCALE = Number(process.env.LOAD_N ?? 1)
const APP = {
  'X-App-Id': 'load-app',
  'X-App-Token': 'load-secret-of-the-bench-24chars',
  'Content-Type': 'application/json',
}

interface Answer {
  status: number
  body: Record<string, unknown>
  ms: number
}

let base = ''

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const started = performance.now()
  const response = await fetch(`${base}${path}`, {
    method,
    headers: APP,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  const ms = performance.now() - started
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, ms }
}

async function must(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const a = await call(method, path, body)
  if (a.status >= 300) throw new Error(`${method} ${path}: ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`)
  return a.body
}

/** What a request gave: ok, a redemption's failure code, or an error's key. */
function outcome(a: Answer): string {
  if (a.status >= 400) return String(a.body.key ?? a.status)
  const parent = a.body.parent_redemption as { result?: string; failure_code?: string } | undefined
  if (parent && parent.result !== 'SUCCESS') return parent.failure_code ?? 'failure'
  if (a.body.valid === false) return 'invalid'
  return 'ok'
}

interface Case {
  name: string
  n: number
  request: (i: number) => Promise<Answer>
  /** Exact outcomes the case must give, when it has a limit. */
  expect?: Record<string, number>
  /** Work before the clock starts. */
  prepare?: () => Promise<void>
  /** Operations one request makes (a checkout validates, then redeems): the commit bound is per operation. */
  operations?: number
}

async function shop() {
  await must('POST', '/v1/products', { name: 'Shoe', source_id: 'shoe', price: 5000 })
  const club = await must('POST', '/v1/loyalties', {
    name: 'Club',
    type: 'AUTO_UPDATE',
    auto_join: true,
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'CLUB-########' } },
  })
  await must('POST', '/v1/async-actions/run-pending', {})
  await must('POST', `/v1/loyalties/${club.id}/earning-rules`, [
    { event: 'order.paid', loyalty: { type: 'FIXED', points: 10 } },
  ])
  const mugProduct = await must('POST', '/v1/products', { name: 'Mug', source_id: 'mug' })
  const mug = await must('POST', '/v1/rewards', {
    name: 'Mug',
    type: 'MATERIAL',
    parameters: { product: { id: mugProduct.id } },
    stock: 100,
  })
  await must('POST', `/v1/rewards/${mug.id}/assignments`, {
    campaign: club.id,
    parameters: { loyalty: { points: 10 } },
  })
  const off = { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }
  await must('POST', '/v1/vouchers', { code: 'PUBLIC', ...off })
  await must('POST', '/v1/vouchers', { code: 'Q100', ...off, redemption: { quantity: 100 } })
  await must('POST', '/v1/vouchers', { code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: 100_000_000 } })
  const coupons = await must('POST', '/v1/campaigns', {
    name: 'On demand',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'AUTO_UPDATE',
    voucher: { ...off, code_config: { pattern: 'OD-##########' } },
  })
  const promo = await must('POST', '/v1/campaigns', {
    name: 'Promo',
    campaign_type: 'PROMOTION',
    promotion: { tiers: [{ name: 'Off', action: { discount: { type: 'AMOUNT', amount_off: 50 } } }] },
  })
  const tiers = (promo.promotion as { tiers: { id: string }[] }).tiers
  return { club: String(club.id), mug: String(mug.id), coupons: String(coupons.id), tier: tiers[0]?.id ?? '' }
}

const order = { amount: 10_000, items: [{ source_id: 'shoe', quantity: 2 }] }

async function commitCalls(db: pg.Client): Promise<number> {
  // A backend hands its function statistics to the shared view within 10 s of going idle: wait for them.
  await new Promise((r) => setTimeout(r, 11_000))
  const r = await db.query<{ calls: string }>(
    "SELECT coalesce(sum(calls), 0) AS calls FROM pg_stat_user_functions WHERE funcname = 'pe_commit'",
  )
  await db.query('SELECT pg_stat_clear_snapshot()')
  return Number(r.rows[0]?.calls ?? 0)
}

async function run(c: Case, db: pg.Client) {
  await c.prepare?.()
  const before = await commitCalls(db)
  const answers: Answer[] = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < c.n) {
        const i = next++
        answers.push(await c.request(i))
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  const commits = (await commitCalls(db)) - before
  // What a 5xx said (its key and details name the database's error), for the first few.
  for (const a of answers.filter((x) => x.status >= 500).slice(0, 3))
    console.error(c.name, a.status, JSON.stringify(a.body))
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b)
  const pct = (p: number) => ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))] ?? 0
  const count = (f: (a: Answer) => string) => {
    const out: Record<string, number> = {}
    for (const a of answers) out[f(a)] = (out[f(a)] ?? 0) + 1
    return out
  }
  return {
    case: c.name,
    requests: c.n,
    perSecond: Math.round(c.n / seconds),
    p50: Math.round(pct(50)),
    p99: Math.round(pct(99)),
    statuses: count((a) => String(a.status)),
    outcomes: count(outcome),
    commitsPerRequest: Number((commits / c.n).toFixed(2)),
  }
}

async function waitForServer(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error('the server exited')
    try {
      await fetch(`${url}/v1/campaigns`, { headers: APP })
      return
    } catch {
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  throw new Error('the server did not start')
}

async function main(): Promise<void> {
  const pgServer = await startEmbedded({ fsync: 'off', track_functions: 'pl' })
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  const server = spawn('npm', ['run', '--silent', 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: pgServer.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      PROMO_APP_ID: APP['X-App-Id'],
      PROMO_APP_SECRET: APP['X-App-Token'],
      // The server refuses to start on a database without a files secret (download links must
      // survive restarts); the metrics listener takes a free port of its own.
      PROMO_FILES_SECRET: 'bench-load-files-secret-0123456789abcdef',
      PROMO_METRICS_PORT: String(await freePort()),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  })
  const db = new pg.Client({ connectionString: pgServer.url })
  try {
    await waitForServer(base, server)
    await db.connect()
    const s = await shop()
    const n = (k: number) => Math.max(1, Math.round(k * SCALE))
    const members: string[] = []
    const cards: string[] = []
    const cases: Case[] = [
      {
        name: 'validations',
        n: n(800),
        request: (i) =>
          call('POST', '/v1/validations', {
            customer: { source_id: `val-${i}` },
            order,
            redeemables: [{ object: 'voucher', id: 'PUBLIC' }],
          }),
      },
      {
        name: 'redemptions',
        n: n(800),
        request: (i) =>
          call('POST', '/v1/redemptions', {
            customer: { source_id: `red-${i}` },
            order,
            redeemables: [
              { object: 'voucher', id: 'PUBLIC' },
              { object: 'promotion_tier', id: s.tier },
            ],
          }),
      },
      {
        name: 'paid orders (auto-join, earning)',
        n: n(400),
        request: async (i) => {
          const a = await call('POST', '/v1/orders', { customer: { source_id: `buy-${i}` }, status: 'PAID', ...order })
          members.push(`buy-${i}`)
          return a
        },
      },
      {
        name: 'publications (AUTO_UPDATE)',
        n: n(400),
        request: (i) => call('POST', '/v1/publications', { campaign: s.coupons, customer: { source_id: `pub-${i}` } }),
      },
      {
        name: 'reward redemptions (stock 100)',
        n: 400,
        expect: { ok: 100, reward_out_of_stock: 300 },
        // The members of the paid orders case, 10 points each: a member asking again gets their card back.
        prepare: async () => {
          for (const customer of members.slice(0, 400)) {
            cards.push(
              String((await must('POST', `/v1/loyalties/${s.club}/members`, { customer: { source_id: customer } })).id),
            )
          }
        },
        request: (i) =>
          call('POST', `/v1/loyalties/${s.club}/members/${cards[i % cards.length]}/redemption`, {
            reward: { id: s.mug },
          }),
      },
      {
        name: 'a code with quantity 100',
        n: 400,
        expect: { ok: 100, quantity_exceeded: 300 },
        request: (i) =>
          call('POST', '/v1/redemptions', {
            customer: { source_id: `q-${i}` },
            order,
            redeemables: [{ object: 'voucher', id: 'Q100' }],
          }),
      },
      {
        name: 'validate then redeem (session lock, gift card)',
        n: n(400),
        operations: 2,
        request: async (i) => {
          const body = {
            customer: { source_id: `co-${i}` },
            order,
            redeemables: [{ object: 'voucher', id: 'GIFT', gift: { credits: 100 } }],
          }
          const v = await call('POST', '/v1/validations', { ...body, session: { type: 'LOCK' } })
          if (v.status >= 300 || v.body.valid === false) return v
          const key = (v.body.session as { key?: string } | undefined)?.key
          const r = await call('POST', '/v1/redemptions', { ...body, session: { type: 'LOCK', key } })
          return { ...r, ms: r.ms + v.ms }
        },
      },
    ]
    const results = []
    for (const c of cases) {
      const r = await run(c, db)
      results.push(r)
      console.log(JSON.stringify(r))
    }
    console.log('\n| case | requests | req/s | p50 ms | p99 ms | statuses | outcomes | commits/request |')
    console.log('|---|---:|---:|---:|---:|---|---|---:|')
    for (const r of results) {
      const fmt = (o: Record<string, number>) =>
        Object.entries(o)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')
      console.log(
        `| ${r.case} | ${r.requests} | ${r.perSecond} | ${r.p50} | ${r.p99} | ${fmt(r.statuses)} | ${fmt(r.outcomes)} | ${r.commitsPerRequest} |`,
      )
    }
    const failures = results.flatMap((r, i) => {
      const c = cases[i] as Case
      const out: string[] = []
      if (r.statuses['409']) out.push(`${r.case}: ${r.statuses['409']} × 409`)
      const fives = Object.entries(r.statuses).filter(([k]) => k.startsWith('5'))
      if (fives.length > 0) out.push(`${r.case}: 5xx ${JSON.stringify(fives)}`)
      if (c.expect && JSON.stringify(sorted(r.outcomes)) !== JSON.stringify(sorted(c.expect)))
        out.push(`${r.case}: outcomes ${JSON.stringify(r.outcomes)}, expected ${JSON.stringify(c.expect)}`)
      if (r.commitsPerRequest > 1.2 * (c.operations ?? 1))
        out.push(`${r.case}: ${r.commitsPerRequest} commits per request of ${c.operations ?? 1} operations`)
      return out
    })
    if (failures.length > 0) {
      console.error(`\n${failures.join('\n')}`)
      process.exitCode = 1
    }
  } finally {
    await db.end().catch(() => {})
    try {
      if (server.pid) process.kill(-server.pid)
    } catch {
      // Already gone.
    }
    await pgServer.stop()
  }
}

function sorted(o: Record<string, number>): [string, number][] {
  return Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))
}

await main()
