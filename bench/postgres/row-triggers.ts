import { execSync, spawn } from 'node:child_process'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { buildsBeside } from './floor'

/*
 * `npx tsx bench/postgres/row-triggers.ts <earlier dist>` (not a test; docs/postgres.md#schema): what
 * the derived columns' row trigger (`pe_cols_<collection>`) costs a one-row INSERT into the tables a
 * redemption writes, this checkout's schema beside an earlier build's on one server. Per table and
 * build, `ROWS` one-row INSERTs, each its own transaction as in a commit (a procedure that commits
 * after each; the trigger's expressions are set up again in every transaction), then the same with the
 * trigger disabled (the table and its indexes alone). Reports the backend's CPU time per row
 * (`perf stat -e task-clock` on it, so other processes' load counts less than in wall time), median
 * of `ROUNDS` rounds alternating the builds. Needs `perf`.
 */

const ROWS = Number(process.env.ROWS ?? 2000)
const ROUNDS = Number(process.env.ROUNDS ?? 5)
const earlier = process.argv[2]
if (!earlier) throw new Error('usage: row-triggers.ts <earlier dist>')
const TABLES = ['redemptions', 'activities', 'orders', 'customers', 'vouchers'] as const

// Every field a declared index or key of these tables reads, so each column is computed.
const value = {
  object: 'redemption',
  date: '2026-11-26T12:00:00.123Z',
  created_at: '2026-11-26T12:00:00.123Z',
  customer_id: 'cust_0aB1cD2eF3gH4iJ5',
  related_object_id: 'v_0aB1cD2eF3gH4iJ5',
  related_object_parent_id: 'camp_0aB1cD2eF3gH4i',
  redemption: 'r_0aB1cD2eF3gH4iJ5',
  channel: { channel_type: 'API', channel_id: 'user' },
  type: 'customer.rewarded',
  campaign_id: 'camp_x',
  campaign_type: 'DISCOUNT_COUPONS',
  category: 'redemption',
  status: 'PAID',
  holder_id: 'cust_0aB1cD2eF3gH4iJ5',
  order: { amount: 10000, items: [{ product_id: 'p1', quantity: 1, price: 10000 }] },
  result: 'SUCCESS',
  amount: 100,
}

const server = await startEmbedded({ synchronous_commit: 'off' })
const pool = new pg.Pool({ connectionString: server.url, max: 1 }).on('error', () => {})
try {
  const builds = buildsBeside(earlier)
  for (const b of builds) {
    const { createPostgresStore } = (await import(b.mod)) as typeof import('../../src/postgres/index')
    await createPostgresStore({ pool, schema: b.schema }).migrate()
    for (const t of TABLES) {
      await pool.query(`CREATE PROCEDURE ${b.schema}.bench_${t}(n int, v jsonb) LANGUAGE plpgsql AS $$
        DECLARE tag text := md5(clock_timestamp()::text);
        BEGIN
          FOR i IN 1..n LOOP
            INSERT INTO ${b.schema}.${t} (id, value, version, shape)
              VALUES (tag || i, v || jsonb_build_object('code', tag || i, 'source_id', tag || i), 1, 1);
            COMMIT;
          END LOOP;
        END $$`)
    }
  }
  const client = await pool.connect()
  const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p as number
  /** The backend's CPU milliseconds while `run` runs. */
  const cpu = async (run: () => Promise<unknown>) => {
    const perf = spawn('perf', ['stat', '-x,', '-e', 'task-clock', '-p', String(pid)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let out = ''
    perf.stderr.on('data', (d) => {
      out += d
    })
    await new Promise((r) => setTimeout(r, 300))
    await run()
    perf.kill('SIGINT')
    await new Promise((r) => perf.on('exit', r))
    return Number(
      out
        .split('\n')
        .find((l) => l.includes('task-clock'))
        ?.split(',')[0],
    )
  }
  console.log(`${new Date().toISOString()}; ${execSync('uptime').toString().trim()}; ${ROUNDS} rounds × ${ROWS} rows`)
  const cells = new Map<string, number[]>()
  for (const trigger of ['ENABLE', 'DISABLE']) {
    for (const b of builds)
      for (const t of TABLES) await client.query(`ALTER TABLE ${b.schema}.${t} ${trigger} TRIGGER pe_columns`)
    for (let round = 0; round < ROUNDS; round++) {
      for (const b of round % 2 ? [...builds].reverse() : builds) {
        for (const t of TABLES) {
          await client.query(`CALL ${b.schema}.bench_${t}(50, $1)`, [value])
          const ms = await cpu(() => client.query(`CALL ${b.schema}.bench_${t}($1, $2)`, [ROWS, value]))
          const k = `${b.schema}.${t}.${trigger}`
          cells.set(k, [...(cells.get(k) ?? []), (ms * 1000) / ROWS])
          await client.query(`TRUNCATE ${b.schema}.${t}`)
        }
      }
    }
  }
  client.release()
  const median = (xs: number[] = []) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
  console.log('\n| table | build | CPU µs per one-row commit | trigger disabled | the trigger |')
  console.log('| --- | --- | ---: | ---: | ---: |')
  for (const t of TABLES)
    for (const b of builds) {
      const on = median(cells.get(`${b.schema}.${t}.ENABLE`))
      const off = median(cells.get(`${b.schema}.${t}.DISABLE`))
      console.log(`| ${t} | ${b.label} | ${on.toFixed(1)} | ${off.toFixed(1)} | ${(on - off).toFixed(1)} |`)
    }
} finally {
  await pool.end().catch(() => {})
  await server.stop()
}
