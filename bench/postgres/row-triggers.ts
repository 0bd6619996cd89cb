import { execSync } from 'node:child_process'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'

/*
 * `npx tsx bench/postgres/row-triggers.ts <earlier dist>` (not a test; docs/postgres.md#schema): what the
 * derived columns' row trigger (`pe_cols_<collection>`) costs a one-row INSERT into the tables a
 * redemption writes, this checkout's schema beside an earlier build's on one server. Per table and
 * build, `ROWS` one-row INSERTs inside one PL/pgSQL loop (no client time), rounds alternating the
 * builds; then the same with the trigger disabled (its columns left NULL: the table and its indexes
 * alone). Reports µs per INSERT (median of rounds) and the trigger function's own time per call
 * (pg_stat_user_functions, which counts a PL/pgSQL trigger like any function).
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
  related_object_type: 'voucher',
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

const server = await startEmbedded({ track_functions: 'all' })
const pool = new pg.Pool({ connectionString: server.url, max: 1 }).on('error', () => {})
try {
  const builds = [
    { label: 'this build', schema: 'promo_engine', mod: '../../src/postgres/index.ts' },
    { label: 'earlier build', schema: 'base', mod: `${earlier}/postgres.js` },
  ]
  for (const b of builds) {
    const { createPostgresStore } = (await import(b.mod)) as typeof import('../../src/postgres/index')
    await createPostgresStore({ pool, schema: b.schema }).migrate()
    for (const t of TABLES) {
      await pool.query(`CREATE FUNCTION ${b.schema}.bench_${t}(n int, v jsonb) RETURNS float8 LANGUAGE plpgsql AS $$
        DECLARE t0 timestamptz := clock_timestamp(); tag text := md5(clock_timestamp()::text);
        BEGIN
          FOR i IN 1..n LOOP
            INSERT INTO ${b.schema}.${t} (id, value, version, shape)
              VALUES (tag || i, v || jsonb_build_object('code', tag || i, 'source_id', tag || i), 1, 1);
          END LOOP;
          RETURN extract(epoch FROM clock_timestamp() - t0) * 1e6 / n;
        END $$`)
    }
  }
  console.log(`${new Date().toISOString()}; load ${execSync('uptime').toString().trim()}; ${ROUNDS} rounds × ${ROWS} rows`)
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
  const cells = new Map<string, number[]>()
  const cell = (k: string, x: number) => cells.set(k, [...(cells.get(k) ?? []), x])
  await pool.query('SELECT pg_stat_reset()')
  for (const trigger of ['ENABLE', 'DISABLE']) {
    for (const b of builds) for (const t of TABLES) await pool.query(`ALTER TABLE ${b.schema}.${t} ${trigger} TRIGGER pe_columns`)
    for (let round = 0; round < ROUNDS; round++) {
      for (const b of round % 2 ? [...builds].reverse() : builds) {
        for (const t of TABLES) {
          const r = await pool.query(`SELECT ${b.schema}.bench_${t}($1, $2) AS us`, [ROWS, value])
          cell(`${b.schema}.${t}.${trigger}`, r.rows[0].us)
          await pool.query(`TRUNCATE ${b.schema}.${t}`)
        }
      }
    }
    if (trigger === 'ENABLE') await new Promise((r) => setTimeout(r, 700))
    if (trigger === 'ENABLE') {
      const fns = await pool.query(
        `SELECT schemaname AS s, funcname AS f, total_time / calls * 1000 AS us FROM pg_stat_user_functions WHERE funcname LIKE 'pe_cols_%' OR funcname = 'pe_timestamp'`,
      )
      for (const f of fns.rows) cell(`${f.s}.${f.f}.fn`, f.us)
    }
  }
  console.log('\n| table | build | µs per INSERT | trigger off | trigger µs per row (self) |')
  console.log('| --- | --- | ---: | ---: | ---: |')
  for (const t of TABLES)
    for (const b of builds) {
      const on = median(cells.get(`${b.schema}.${t}.ENABLE`) ?? [])
      const off = median(cells.get(`${b.schema}.${t}.DISABLE`) ?? [])
      const fn = cells.get(`${b.schema}.pe_cols_${t}.fn`)?.[0] ?? 0
      console.log(`| ${t} | ${b.label} | ${on.toFixed(1)} | ${off.toFixed(1)} | ${fn.toFixed(1)} |`)
    }
  const ts = builds.map((b) => `${b.label} ${(cells.get(`${b.schema}.pe_timestamp.fn`)?.[0] ?? 0).toFixed(2)}`)
  console.log(`\npe_timestamp µs per call: ${ts.join(', ')}`)
} finally {
  await pool.end().catch(() => {})
  await server.stop()
}
