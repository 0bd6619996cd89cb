import { resolve } from 'node:path'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { AMOUNT_OFF, oneLineRedemption } from './one-line'

/*
 * `npx tsx bench/postgres/cold-connection.ts dist ../base/dist` (not a test; docs/postgres.md#tuning):
 * what a database connection costs the request that opens it. A new connection is a new PostgreSQL
 * backend: it compiles the commit function (PL/pgSQL, once per session), plans every statement at its
 * first execution, and fills its catalogue caches, so the first redemption on it takes several times
 * a warm one. Per build (built `dist/`s, each in a schema of its own on one embedded PostgreSQL, fsync
 * off), alternated round by round (ROUNDS, 8): a client's connect; the commit function's first call
 * with nothing to write (its compile) and its second; one redemption on a new connection with the
 * engine warm, then one on the same connection again; and, for a build with `store.warm()`, that
 * call opening and preparing a new connection, then a redemption on it. Medians of the rounds, and
 * the size of the commit function's source.
 */

const ROUNDS = Number(process.env.ROUNDS ?? 8)

interface Build {
  label: string
  schema: string
  pool: pg.Pool
  redeem: (customer: string) => Promise<unknown>
  /** `store.warm()`, in builds that have it. */
  warm: (() => Promise<unknown>) | undefined
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = (s.length - 1) / 2
  return ((s[Math.floor(m)] as number) + (s[Math.ceil(m)] as number)) / 2
}

async function build(url: string, dist: string, k: number): Promise<Build> {
  const path = resolve(dist)
  const { createEngine } = (await import(`${path}/index.js`)) as typeof import('../../src/index')
  const postgres = (await import(`${path}/postgres.js`)) as typeof import('../../src/postgres/index')
  // One connection, so "a new connection" is the one the next request takes; kept while idle.
  const pool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 0 }).on('error', () => {})
  ;(postgres as { planGenerically?: (p: pg.Pool) => void }).planGenerically?.(pool)
  const schema = `b${k}`
  const store = postgres.createPostgresStore({ pool: pool as never, schema, readCache: false })
  await store.migrate()
  const engine = createEngine({ store })
  await engine.raw.vouchers.create({ code: 'C', ...AMOUNT_OFF } as never)
  const redeem = (customer: string) => engine.raw.redemptions.redeemStackable(oneLineRedemption('C', customer) as never)
  // The engine warm: what is measured is the connection's cost, not the JIT's.
  for (let i = 0; i < 300; i++) await redeem(`warm-${i}`)
  const warm = (store as { warm?: () => Promise<unknown> }).warm
  return { label: dist, schema, pool, redeem, warm: warm && (() => warm.call(store)) }
}

async function main(dists: string[]): Promise<void> {
  const db = await startEmbedded({ fsync: 'off' })
  try {
    const builds: Build[] = []
    for (const [k, dist] of dists.entries()) builds.push(await build(db.url, dist, k))
    const admin = new pg.Client({ connectionString: db.url })
    await admin.connect()
    const figures = new Map<string, Record<string, number[]>>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
        const f = figures.get(b.label) ?? {
          connect: [],
          first: [],
          second: [],
          cold: [],
          warm: [],
          warming: [],
          warmed: [],
        }
        figures.set(b.label, f)
        const client = new pg.Client({ connectionString: db.url })
        let t = performance.now()
        await client.connect()
        f.connect?.push(performance.now() - t)
        const noop = `SELECT ${b.schema}.pe_commit('{"steps":[]}'::jsonb)`
        t = performance.now()
        await client.query(noop)
        f.first?.push(performance.now() - t)
        t = performance.now()
        await client.query(noop)
        f.second?.push(performance.now() - t)
        await client.end()
        // The pool's one connection dropped: the next redemption opens a new one.
        const held = await b.pool.connect()
        held.release(true)
        t = performance.now()
        await b.redeem(`cold-${round}`)
        f.cold?.push(performance.now() - t)
        t = performance.now()
        await b.redeem(`warm-again-${round}`)
        f.warm?.push(performance.now() - t)
        if (b.warm) {
          const again = await b.pool.connect()
          again.release(true)
          t = performance.now()
          await b.warm()
          f.warming?.push(performance.now() - t)
          t = performance.now()
          await b.redeem(`warmed-${round}`)
          f.warmed?.push(performance.now() - t)
        }
      }
    }
    console.log(`${ROUNDS} rounds, medians (ms); embedded PostgreSQL, fsync off\n`)
    console.log(
      '| build | commit function source (bytes) | connect | commit function, first call (nothing written) | second call | redemption on a new connection | on the same connection again | `store.warm()` opening a new one | redemption on it |',
    )
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for (const b of builds) {
      const f = figures.get(b.label) as Record<string, number[]>
      const { rows } = await admin.query(
        `SELECT length(p.prosrc) AS n FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace WHERE p.proname = 'pe_commit' AND s.nspname = $1`,
        [b.schema],
      )
      const m = (k: string) => (f[k]?.length ? median(f[k]).toFixed(1) : '—')
      console.log(
        `| ${b.label} | ${rows[0]?.n ?? '—'} | ${m('connect')} | ${m('first')} | ${m('second')} | ${m('cold')} | ${m('warm')} | ${m('warming')} | ${m('warmed')} |`,
      )
    }
    await admin.end()
    for (const b of builds) await b.pool.end()
  } finally {
    await db.stop()
  }
}

await main(process.argv.slice(2).length ? process.argv.slice(2) : ['dist'])
