import { request as httpRequest } from 'node:http'
import { VoucherifyServerSide } from '@voucherify/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../packages/server/src/server'
import { createEngine, createMemoryStore } from '../../src'
import { engineContext } from '../../src/engine'
import { continueLater, enqueue, registerAsyncHandler } from '../../src/operations/kernel/jobs'
import { mutate } from '../../src/operations/kernel/unit-of-work'
import { manualClock } from '../support/engine'

/** The server's own jobs: keys from the environment, background async actions, downloads. */
let server: RunningServer
const env = { PROMO_APP_ID: 'app_from_env', PROMO_APP_SECRET: 's'.repeat(32) }

beforeAll(async () => {
  server = await startServer({ env, asyncIntervalMs: 5 })
})
afterAll(() => server.close())

const keys = { 'X-App-Id': env.PROMO_APP_ID, 'X-App-Token': env.PROMO_APP_SECRET }

/** Polls until `done` holds; bounded, so a broken worker fails the test instead of hanging it. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 2000; i++) {
    const value = await read()
    if (done(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error('the condition never held')
}

/**
 * Closes the server once its background work has done three batches of work that never ends, and
 * answers how many it did: none after the close (without the stop reaching the loop, the close
 * would wait for ever).
 */
async function stopsAtShutdown(s: RunningServer, done: () => number): Promise<number> {
  try {
    await eventually(
      async () => done(),
      (n) => n >= 3,
    )
  } finally {
    await s.close()
  }
  const after = done()
  await new Promise((resolve) => setTimeout(resolve, 30))
  expect(done()).toBe(after)
  return after
}

describe('the server (packages/server)', () => {
  it('takes the application keys from the environment', async () => {
    const sdk = VoucherifyServerSide({
      applicationId: env.PROMO_APP_ID,
      secretKey: env.PROMO_APP_SECRET,
      apiUrl: server.url,
    })
    const created = await sdk.customers.create({ source_id: 'env-ann' })
    expect(created).toMatchObject({ source_id: 'env-ann' })
  })

  it('runs pending async actions in the background and serves the export as a streamed CSV download', async () => {
    const sdk = VoucherifyServerSide({
      applicationId: env.PROMO_APP_ID,
      secretKey: env.PROMO_APP_SECRET,
      apiUrl: server.url,
    })
    await sdk.campaigns.create({
      name: 'Exported',
      // Transactions are exported for gift and loyalty campaigns only (docs/behaviour.md#exports).
      campaign_type: 'GIFT_VOUCHERS',
      type: 'AUTO_UPDATE',
      vouchers_count: 1,
      voucher: {
        type: 'GIFT_VOUCHER',
        gift: { amount: 1000 },
        code_config: { pattern: 'EXP-####' },
      },
    } as never)
    const created = await fetch(`${server.url}/v1/campaigns/Exported/transactions/export`, {
      method: 'POST',
      headers: { ...keys, 'Content-Type': 'application/json' },
      body: JSON.stringify({}),
    })
    expect(created.status).toBe(200)
    const { id } = (await created.json()) as { id: string }
    const done = await eventually(
      () => sdk.distributions.exports.get(id),
      (e) => e.status === 'DONE',
    )
    const url = (done.result as { url: string }).url
    expect(url).toMatch(new RegExp(`^${server.url}/v1/files/file_`))
    const bare = url.split('?')[0] ?? ''
    expect((await fetch(bare)).status).toBe(401)
    expect((await fetch(bare, { headers: keys })).status).toBe(200)
    // The signed url needs no keys.
    const file = await fetch(url)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="voucher_transactions_${id}.csv"; filename*=UTF-8''voucher_transactions_${id}.csv`,
    )
    const text = await file.text()
    expect(Number(file.headers.get('content-length'))).toBe(Buffer.byteLength(text))
    expect(text.split('\r\n')[0]).toContain('id')
  })

  it('purges expired idempotency records in the background', async () => {
    const clock = manualClock()
    const purging = await startServer({
      asyncIntervalMs: 0,
      purgeIntervalMs: 5,
      env,
      engineOptions: { clock, idempotencyTtlSeconds: 60 },
    })
    try {
      const order = (key: string) =>
        fetch(`${purging.url}/v1/orders`, {
          method: 'POST',
          headers: { ...keys, 'Content-Type': 'application/json', 'Idempotency-Key': key },
          body: JSON.stringify({ amount: 100 }),
        })
      expect((await order('first')).status).toBe(200)
      clock.advance(120_000)
      expect((await order('second')).status).toBe(200)
      const records = () => engineContext(purging.engine).store.idempotency_keys.list()
      const left = await eventually(records, (page) => page.total === 1)
      expect(left.data[0]?.value.created_at).toBe('2026-01-15T10:02:00.000Z')
    } finally {
      await purging.close()
    }
  })

  it('trims the change feed past its retention with each purge, and keeps it whole with 0', async () => {
    // One manual clock: the engine's, and so the memory store's, which dates the feed by it.
    const clock = manualClock()
    const start = (retention: string) =>
      startServer({
        asyncIntervalMs: 0,
        purgeIntervalMs: 5,
        env: { ...env, PROMO_CHANGE_FEED_RETENTION_SECONDS: retention, PROMO_METRICS_TOKEN: 'm'.repeat(32) },
        engineOptions: { clock },
      })
    const trimming = await start('3600')
    const keeping = await start('0')
    try {
      for (const s of [trimming, keeping]) {
        const created = await fetch(`${s.url}/v1/orders`, {
          method: 'POST',
          headers: { ...keys, 'Content-Type': 'application/json' },
          body: JSON.stringify({ amount: 100 }),
        })
        expect(created.status).toBe(200)
      }
      const feed = (s: RunningServer) => engineContext(s.engine).store.changes()
      const before = (await feed(trimming)).data.length
      expect(before).toBeGreaterThan(0)
      // Two hours on.
      clock.advance(2 * 3600_000)
      await eventually(
        () => feed(trimming),
        (page) => page.data.length === 0,
      )
      // Counted in the metrics (the token serves them on the main port).
      const counted = new RegExp(`^promo_engine_feed_trimmed_changes_total ${before}$`, 'm')
      const metrics = () =>
        fetch(`${trimming.url}/metrics`, { headers: { Authorization: `Bearer ${'m'.repeat(32)}` } }).then((r) =>
          r.text(),
        )
      expect(await eventually(metrics, (text) => counted.test(text))).toMatch(counted)
      const kept = (await feed(keeping)).data.length
      expect(kept).toBeGreaterThan(0)
      // The other server purged meanwhile too (every 5 ms), and kept its feed.
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect((await feed(keeping)).data.length).toBe(kept)
    } finally {
      await trimming.close()
      await keeping.close()
    }
  })

  it('stops a trim with more to go at shutdown, after the batch in hand', async () => {
    // A feed whose trim never ends (a first trim of millions of changes): each call answers has_more.
    const store = createMemoryStore()
    let trims = 0
    const engine = createEngine({
      authentication: 'keys',
      store: {
        ...store,
        // Answered at once, as the memory store answers: the loop must give the event loop turns.
        async trimChanges() {
          trims++
          return { deleted: 1000, has_more: true }
        },
      },
    })
    const s = await startServer({
      env: { ...env, PROMO_CHANGE_FEED_RETENTION_SECONDS: '3600' },
      engine,
      asyncIntervalMs: 0,
      purgeIntervalMs: 5,
    })
    await stopsAtShutdown(s, () => trims)
  })

  it('stops an async action of many steps at shutdown, after the step in hand, its cursor kept', async () => {
    // An action whose steps never end (an export of a huge campaign), each step a commit.
    const engine = createEngine({ authentication: 'keys', store: createMemoryStore() })
    const ctx = engineContext(engine)
    let steps = 0
    registerAsyncHandler(ctx, 'test.endless', async (_tx, action) => {
      steps++
      return continueLater(((action.state as number | undefined) ?? 0) + 1)
    })
    const action = await mutate(ctx, async (tx) => enqueue(tx, 'test.endless', null))
    const s = await startServer({ env, engine, asyncIntervalMs: 5, purgeIntervalMs: 0 })
    const after = await stopsAtShutdown(s, () => steps)
    // Every step done committed its cursor, and no claim is left to wait out.
    const stored = (await ctx.store.async_actions.get(action.id))?.value
    expect(stored).toMatchObject({ status: 'IN_PROGRESS', state: after })
    expect(stored).not.toHaveProperty('claimed_until')
  })
})

describe("the server's admission (docs/http.md#admission)", () => {
  it('a request whose body is still arriving holds no place; past the queue, 503 server_overloaded at once', async () => {
    // One place, no queue; the store's commits wait at a gate the test opens.
    const store = createMemoryStore()
    let gate: Promise<void> | undefined
    let reached = 0
    const engine = createEngine({
      authentication: 'keys',
      store: {
        ...store,
        async commit(changeset) {
          if (gate) {
            reached++
            await gate
          }
          return store.commit(changeset)
        },
      },
    })
    const s = await startServer({ env, engine, settings: { maxInFlight: 1, maxQueue: 0 } })
    const post = (sourceId: string) =>
      fetch(`${s.url}/v1/customers`, {
        method: 'POST',
        headers: { ...keys, 'Content-Type': 'application/json' },
        body: JSON.stringify({ source_id: sourceId }),
      })
    try {
      // A slow upload: its headers and half its body.
      const body = JSON.stringify({ source_id: 'slow' })
      const slow = httpRequest(`${s.url}/v1/customers`, {
        method: 'POST',
        headers: { ...keys, 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
      })
      const slowStatus = new Promise<number>((resolve, reject) => {
        slow.on('response', (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        slow.on('error', reject)
      })
      slow.write(body.slice(0, 5))
      // Another request is served meanwhile: the slow one waits for its body, not in the place.
      expect((await post('quick')).status).toBe(200)
      // Now the one place is held by a commit at the gate, and the queue holds none: refused at once.
      let open: () => void = () => {}
      gate = new Promise<void>((resolve) => {
        open = resolve
      })
      const held = post('held')
      await eventually(
        async () => reached,
        (n) => n === 1,
      )
      const refused = await post('refused')
      expect(refused.status).toBe(503)
      expect(refused.headers.get('Retry-After')).toBe('1')
      expect(await refused.json()).toMatchObject({ code: 503, key: 'server_overloaded' })
      gate = undefined
      open()
      expect((await held).status).toBe(200)
      slow.end(body.slice(5))
      expect(await slowStatus).toBe(200)
      // Refused means nothing done.
      const found = await Promise.all(
        ['quick', 'held', 'slow', 'refused'].map((id) =>
          engine.customers.get(id).then(
            () => id,
            () => null,
          ),
        ),
      )
      expect(found).toEqual(['quick', 'held', 'slow', null])
    } finally {
      await s.close()
    }
  })
})
