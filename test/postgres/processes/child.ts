import pg from 'pg'
import { createEngine, engineContext } from '../../../src/engine'
import { EngineError } from '../../../src/errors'
import { registerAsyncHandler } from '../../../src/operations/kernel/jobs'
import { currentShape } from '../../../src/operations/kernel/shape-versions'
import { mutate } from '../../../src/operations/kernel/unit-of-work'
import { spendCard } from '../../../src/operations/loyalty/card-spend'
import { loadCard } from '../../../src/operations/loyalty/points-ledger'
import { type CommitStep, createPostgresStore } from '../../../src/postgres'
import { COUNT_ACTION, countHandler } from './scenario'

/*
 * One process of the multi-process tests (test/postgres/processes.test.ts), run with
 * `node --import tsx`. It makes `ATTEMPTS` attempts of one scenario on the database at `PG_URL` and
 * reports its tally to the parent over IPC. In the `kill` scenario it commits one redemption with the
 * adapter's commit hook and waits at the named step for the parent's SIGKILL.
 */

const url = process.env.PG_URL as string
const scenario = process.env.SCENARIO as string
const attempts = Number(process.env.ATTEMPTS ?? 250)
const killAt = process.env.KILL_AT as CommitStep | 'in-function' | undefined

function send(message: unknown): Promise<void> {
  return new Promise((resolve) => process.send?.(message, () => resolve()))
}

async function main(): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 2 }).on('error', () => {})
  const store = createPostgresStore({
    pool,
    ...(killAt === undefined
      ? {}
      : {
          commitHook: {
            ...(killAt === 'in-function' ? { pauseAfterWrite: { after: 2, seconds: 3 } } : {}),
            after: async (step: CommitStep) => {
              // In the function: say the commit is starting and go on; the server pauses after write 2.
              if (killAt === 'in-function') {
                if (step === 'begin') await send({ at: step })
                return
              }
              if (step === killAt) {
                await send({ at: step })
                // Wait here for the parent's SIGKILL; the process never gets past this point.
                await new Promise(() => {})
              }
            },
          },
        }),
  })
  const engine = createEngine({ store, maxRetries: 50, timezone: 'UTC' })
  const tally = {
    success: 0,
    refused: 0,
    conflict: 0,
    errors: [] as string[],
    amount: 0,
    by: {} as Record<string, number>,
  }
  // Every time this process starts an action's work, committed or not.
  registerAsyncHandler(engineContext(engine), COUNT_ACTION, (tx, action) => {
    tally.by.handlerRuns = (tally.by.handlerRuns ?? 0) + 1
    return countHandler(tx, action)
  })
  const attempt = async (run: () => Promise<'success' | 'refused' | number>) => {
    try {
      const r = await run()
      if (typeof r === 'number') {
        tally.success++
        tally.amount += r
      } else tally[r]++
    } catch (error) {
      if (error instanceof EngineError && error.key === 'concurrent_modification') tally.conflict++
      else tally.errors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error))
    }
  }
  const order = { amount: 10_000 }
  for (let i = 0; i < attempts; i++) {
    switch (scenario) {
      case 'quantity':
        await attempt(async () => {
          const r = await engine.redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'HOT' }], order })
          return r.parent_redemption.result === 'SUCCESS' ? 'success' : 'refused'
        })
        break
      case 'gift':
        await attempt(async () => {
          const credits = 1 + ((i * 7919 + Number(process.env.CHILD ?? 0) * 104_729) % 400)
          const r = await engine.redemptions.redeemStackable({
            redeemables: [{ object: 'voucher', id: 'GIFT', gift: { credits } }],
            order,
          })
          return r.parent_redemption.result === 'SUCCESS' ? (r.redemptions[0]?.amount ?? 0) : 'refused'
        })
        break
      case 'loyalty':
        await attempt(async () => {
          const points = 1 + ((i * 31 + Number(process.env.CHILD ?? 0) * 17) % 20)
          return mutate(engineContext(engine), async (tx) => {
            const stored = await tx.store.vouchers.findBy('code', 'CARD')
            if (!stored) throw new Error('no card')
            const spent = await spendCard(tx, await loadCard(tx, stored), points)
            return spent.ok ? points : ('refused' as const)
          })
        })
        break
      case 'budgets':
        await attempt(async () => {
          // Three coupons, each under a budget rule; five customers take turns.
          const codes = JSON.parse(process.env.CODES ?? '[]') as string[]
          const code = codes[i % codes.length] as string
          const customer = `cust-${(i + Number(process.env.CHILD ?? 0)) % 5}`
          const r = await engine.redemptions.redeemStackable({
            redeemables: [{ object: 'voucher', id: code }],
            order,
            customer: { source_id: customer },
          })
          if (r.parent_redemption.result !== 'SUCCESS') return 'refused'
          for (const key of [code, `${code}/${customer}`]) tally.by[key] = (tally.by[key] ?? 0) + 1
          return 'success'
        })
        break
      case 'publications':
        await attempt(async () => {
          const r = await engine.publications.create({
            campaign: { name: 'Welcome' },
            customer: { source_id: `p${process.env.CHILD}-${i}` },
          })
          const code = r.voucher?.code ?? ''
          tally.by[code] = (tally.by[code] ?? 0) + 1
          return 'success'
        })
        break
      case 'sessions':
        await attempt(async () => {
          const r = await engine.validations.validateStackable({
            redeemables: [{ object: 'voucher', id: 'LOCKS' }],
            order,
            session: { type: 'LOCK' },
          })
          return r.valid ? 'success' : 'refused'
        })
        break
      case 'feed':
        // Raw commits (docs/postgres.md#change-feed-and-late-commits): a fresh row, one hot row in every
        // commit, two of twenty shared rows, created by their first increment; every third attempt a versioned write
        // of one more shared row instead (a conflict when another process wrote it since the read).
        await attempt(async () => {
          const child = Number(process.env.CHILD ?? 0)
          if (i % 3 === 2) {
            const doc = await store.counters.get('feed_doc')
            const next = { ...((doc?.value ?? { id: 'feed_doc' }) as object), by: child } as never
            const r = await store.commit({
              writes: [
                {
                  op: 'put',
                  collection: 'counters',
                  value: next,
                  expectedVersion: doc?.version ?? null,
                  shape: currentShape('counters'),
                },
              ],
            })
            return r.ok ? 'success' : 'refused'
          }
          const rows = ['feed_hot', `feed_r${(i * 7 + child * 13) % 20}`, `feed_r${(i * 11 + child * 3 + 1) % 20}`]
          // A fresh row first, as a redemption inserts its records before its counters: the transaction
          // has its id before it waits for the hot row.
          const fresh = {
            op: 'put' as const,
            collection: 'counters' as const,
            value: { id: `feed_${child}_${i}` } as never,
          }
          const r = await store.commit({
            writes: [
              { ...fresh, expectedVersion: null, shape: currentShape('counters') },
              ...[...new Set(rows)].map((id) => ({
                op: 'increment' as const,
                collection: 'counters' as const,
                id,
                by: { n: 1 },
                create: {},
              })),
            ],
          })
          if (!r.ok) throw new Error(`increments conflicted: ${JSON.stringify(r.conflict)}`)
          return 'success'
        })
        break
      case 'async': {
        const summary = await engine.asyncActions.runPending()
        tally.success += summary.succeeded
        tally.errors.push(...(summary.failed > 0 ? [`${summary.failed} failed`] : []))
        break
      }
      case 'kill':
        await engine.redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'KILL' }], order })
        await send({ at: 'done' })
        break
      default:
        throw new Error(`unknown scenario ${scenario}`)
    }
  }
  await send({ tally })
  await pool.end()
}

main().then(
  () => process.exit(0),
  async (error) => {
    await send({ fatal: error instanceof Error ? (error.stack ?? error.message) : String(error) })
    process.exit(1)
  },
)
