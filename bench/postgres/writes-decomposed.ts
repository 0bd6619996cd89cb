import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { recordPerf } from '../open-loop-probes'
import { captureRedemptionCommit } from './captured-commit'
import { FLOOR_SQL, floorRows, type WritesVariant, writesFloorSql } from './floor'

/*
 * `npx tsx bench/postgres/writes-decomposed.ts` (not a test; docs/postgres.md#commit): what a
 * redemption's own writes cost the database, taken apart. The second floor of commit-replay.ts (one
 * captured redemption's writes by hand, floor.ts `writesFloorSql`) runs in a schema of its own per
 * variant, each variant taking one thing away: a table's secondary indexes, the derived columns'
 * expressions, the feed rows' values, the feed rows, the counters' and the code's JSON arithmetic, or
 * putting one back (pglz, as before `toast_tuple_target`; `fillfactor` on the updated tables). The
 * variants run from one connection in alternating rounds (`ROUNDS` × `N` calls each), beside the floor
 * call and two calls that only send the payload (as text, and parsed as jsonb), fsync off then on
 * (`FSYNC`). Per call: the backend's CPU (/proc/<pid>/stat around each block), the server's time
 * (pg_stat_user_functions), the WAL bytes (pg_current_wal_insert_lsn around each block), and the HOT
 * share of the updates (pg_stat_user_tables). `VARIANTS` picks some by name; `LINES` gives the order that
 * many lines (1 unless set). With `PERF=<variant>`
 * the backend is sampled by `perf record --call-graph dwarf` for `PERF_SECONDS` while that variant
 * runs, and the report's top symbols printed (self and inclusive).
 */

interface Variant {
  name: string
  what: string
  writes?: WritesVariant
  /** DDL run in the variant's schema `s` after migrate. */
  ddl?: (s: string) => string
}

/** Every index of `tables` but their primary keys (natural keys' constraints included). */
const dropSecondary = (s: string, tables: string[]) => `DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT conname, conrelid::regclass AS t FROM pg_constraint
      WHERE connamespace = '${s}'::regnamespace AND contype = 'u' AND conrelid::regclass::text = ANY(ARRAY[${tables.map((t) => `'${s}.${t}'`).join(', ')}]) LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.t, r.conname);
  END LOOP;
  FOR r IN SELECT i.indexrelid::regclass AS ix FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
      WHERE c.relnamespace = '${s}'::regnamespace AND NOT i.indisprimary AND c.relname = ANY(ARRAY[${tables.map((t) => `'${t}'`).join(', ')}]) LOOP
    EXECUTE format('DROP INDEX %s', r.ix);
  END LOOP;
END $$`

const ALL: Variant[] = [
  { name: 'full', what: "the commit's writes by hand (the second floor)" },
  { name: 'full2', what: 'the same again (the spread between two identical schemas)' },
  {
    name: 'noidx_act',
    what: "activities' secondary indexes dropped",
    ddl: (s) => dropSecondary(s, ['activities']),
  },
  { name: 'noidx_ord', what: "orders' secondary indexes dropped", ddl: (s) => dropSecondary(s, ['orders']) },
  {
    name: 'noidx_red',
    what: "redemptions' secondary indexes dropped",
    ddl: (s) => dropSecondary(s, ['redemptions']),
  },
  {
    name: 'noidx',
    what: 'all three tables without secondary indexes',
    ddl: (s) => dropSecondary(s, ['activities', 'orders', 'redemptions']),
  },
  { name: 'nocols', what: 'derived columns left NULL (not computed)', writes: { columns: false } },
  {
    name: 'untimed',
    what: 'timestamp columns left NULL (no pe_timestamp call), the others computed',
    writes: { columns: 'untimed' },
  },
  {
    name: 'bare',
    what: 'no secondary index, no derived column',
    writes: { columns: false },
    ddl: (s) => dropSecondary(s, ['activities', 'orders', 'redemptions']),
  },
  {
    name: 'rows',
    what: 'the rows alone: no secondary index, no derived column, no feed row, no arithmetic',
    writes: { columns: false, feed: 'none', arithmetic: false },
    ddl: (s) => dropSecondary(s, ['activities', 'orders', 'redemptions']),
  },
  { name: 'feedbare', what: 'feed rows without their values and shapes', writes: { feed: 'bare' } },
  { name: 'nofeed', what: 'no feed rows', writes: { feed: 'none' } },
  { name: 'noarith', what: "counters' and code's values unchanged (versions only)", writes: { arithmetic: false } },
  {
    name: 'pglz',
    what: 'toast_tuple_target reset on redemptions and pe_changes (pglz on rows past ~2 kB)',
    ddl: (s) =>
      `ALTER TABLE ${s}.redemptions RESET (toast_tuple_target); ALTER TABLE ${s}.pe_changes RESET (toast_tuple_target)`,
  },
  {
    name: 'orders8160',
    what: 'toast_tuple_target = 8160 on orders and activities too (rows up to a page uncompressed)',
    ddl: (s) =>
      `ALTER TABLE ${s}.orders SET (toast_tuple_target = 8160); ALTER TABLE ${s}.activities SET (toast_tuple_target = 8160)`,
  },
  {
    name: 'ff70',
    what: 'fillfactor 70 on counters and vouchers',
    ddl: (s) => `ALTER TABLE ${s}.counters SET (fillfactor = 70); ALTER TABLE ${s}.vouchers SET (fillfactor = 70)`,
  },
]

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const N = Number(process.env.N ?? 200)
const ROUNDS = Number(process.env.ROUNDS ?? 8)
const FSYNC = (process.env.FSYNC ?? 'off,on').split(',')
const PICK = process.env.VARIANTS?.split(',')
const PERF = process.env.PERF
const variants = ALL.filter((v) => !PICK || PICK.includes(v.name) || v.name === 'full' || v.name === PERF)

const server = await startEmbedded({ track_functions: 'all' })
const pool = new pg.Pool({ connectionString: server.url, max: 2 }).on('error', () => {})
try {
  await pool.query(FLOOR_SQL)
  const { createPostgresStore } = await import('../../src/postgres/index')
  await createPostgresStore({ pool }).migrate()
  const { payload, inserted, fresh } = await captureRedemptionCommit(pool, Number(process.env.LINES ?? 1))
  const { insertStatement } = await import('../../src/postgres/commit-statements')
  const { layouts } = await import('../../src/postgres/migrate')
  for (const v of variants) {
    const s = `w_${v.name}`
    await createPostgresStore({ pool, schema: s }).migrate()
    await pool.query(`INSERT INTO ${s}.vouchers SELECT * FROM promo_engine.vouchers`)
    await pool.query(`INSERT INTO ${s}.counters SELECT * FROM promo_engine.counters`)
    if (v.ddl) await pool.query(v.ddl(s))
    const tables = [...layouts(s).values()]
    await pool.query(writesFloorSql(s, (l) => insertStatement(s, l as never), tables, JSON.parse(payload), v.writes))
  }
  const sizes = await pool.query(
    `SELECT 'activities' AS t, count(*)::int AS n, avg(pg_column_size(value))::int AS stored, avg(octet_length(value::text))::int AS text FROM promo_engine.activities
     UNION ALL SELECT 'orders', count(*)::int, avg(pg_column_size(value))::int, avg(octet_length(value::text))::int FROM promo_engine.orders
     UNION ALL SELECT 'redemptions', count(*)::int, avg(pg_column_size(value))::int, avg(octet_length(value::text))::int FROM promo_engine.redemptions
     UNION ALL SELECT 'counters', count(*)::int, avg(pg_column_size(value))::int, avg(octet_length(value::text))::int FROM promo_engine.counters
     UNION ALL SELECT 'vouchers', count(*)::int, avg(pg_column_size(value))::int, avg(octet_length(value::text))::int FROM promo_engine.vouchers`,
  )
  const indexes = await pool.query(
    `SELECT c.relname AS t, count(*)::int AS n FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
      WHERE c.relnamespace = 'promo_engine'::regnamespace GROUP BY 1 ORDER BY 1`,
  )
  console.log(
    `${new Date().toISOString()}; payload ${payload.length} bytes, ${inserted.length} inserts; ${ROUNDS} rounds × ${N} calls per variant`,
  )
  console.log(`values (rows captured, avg stored / text bytes): ${JSON.stringify(sizes.rows)}`)
  console.log(`indexes per table (primary key included): ${JSON.stringify(indexes.rows)}`)

  for (const fsync of FSYNC) {
    await pool.query(`ALTER SYSTEM SET fsync = ${fsync}`)
    await pool.query('SELECT pg_reload_conf()')
    const client = await pool.connect()
    const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p as number
    let f = 0
    type Call = { name: string; what: string; run: () => Promise<void> }
    const call = (
      name: string,
      what: string,
      text: string,
      values: () => unknown[],
      check: (r: pg.QueryResult) => boolean,
    ): Call => ({
      name,
      what,
      run: async () => {
        const r = await client.query({ name: `q_${name}`, text, values: values() })
        if (!check(r)) throw new Error(`${name} failed: ${JSON.stringify(r.rows[0])}`)
      },
    })
    const calls: Call[] = [
      call(
        'floor',
        'floor call: 19 JSONB inserts + guarded update',
        'SELECT floor.apply($1::jsonb, 0) AS ok',
        () => [floorRows(`${fsync}-${f++}`)],
        (r) => r.rows[0].ok === true,
      ),
      call(
        'text',
        'the payload sent as text, nothing done',
        'SELECT $1::text IS NOT NULL AS ok',
        () => [fresh()],
        (r) => r.rows[0].ok === true,
      ),
      call(
        'parse',
        'the payload parsed as jsonb, nothing done',
        'SELECT $1::jsonb IS NOT NULL AS ok',
        () => [fresh()],
        (r) => r.rows[0].ok === true,
      ),
      ...variants.map((v) =>
        call(
          v.name,
          v.what,
          `SELECT w_${v.name}.pe_floor_writes($1::jsonb) AS ok`,
          () => [fresh()],
          (r) => r.rows[0].ok === true,
        ),
      ),
    ]
    for (const c of calls) for (let i = 0; i < 20; i++) await c.run()
    if (PERF) {
      const c = calls.find((x) => x.name === PERF)
      if (!c) throw new Error(`no variant ${PERF}`)
      const out = `/tmp/writes-perf-${PERF}-${fsync}.data`
      let done = false
      const recorded = recordPerf({
        pids: [pid],
        file: out,
        seconds: process.env.PERF_SECONDS ?? '6',
        frequency: 2000,
        verbose: true,
      }).finally(() => {
        done = true
      })
      let n = 0
      while (!done) {
        await c.run()
        n++
      }
      console.log(`perf: ${n} calls of ${PERF} while sampled, ${(await recorded) ? out : 'perf failed'}`)
      client.release()
      continue
    }
    await new Promise((r) => setTimeout(r, 600))
    await pool.query('SELECT pg_stat_reset()')
    const load = execSync('uptime').toString().trim()
    const cpu = new Map<string, number>()
    const wal = new Map<string, number>()
    const times = new Map<string, number[]>()
    const lsn = async () =>
      Number((await client.query("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn AS b")).rows[0].b)
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...calls].reverse() : calls
      for (const c of order) {
        const w0 = await lsn()
        const c0 = cpuMs(pid)
        const t = times.get(c.name) ?? []
        for (let i = 0; i < N; i++) {
          const t0 = performance.now()
          await c.run()
          t.push(performance.now() - t0)
        }
        times.set(c.name, t)
        cpu.set(c.name, (cpu.get(c.name) ?? 0) + cpuMs(pid) - c0)
        wal.set(c.name, (wal.get(c.name) ?? 0) + (await lsn()) - w0)
      }
    }
    client.release()
    await new Promise((r) => setTimeout(r, 600))
    const fns = await pool.query(
      `SELECT schemaname AS s, funcname AS f, total_time / nullif(calls, 0) AS ms FROM pg_stat_user_functions`,
    )
    const hot = await pool.query(
      `SELECT schemaname AS s, relname AS t, n_tup_upd AS u, n_tup_hot_upd AS h FROM pg_stat_user_tables WHERE relname IN ('counters', 'vouchers') AND n_tup_upd > 0`,
    )
    console.log(`\n### fsync ${fsync} (load before: ${load}; after: ${execSync('uptime').toString().trim()})\n`)
    console.log(
      '| call | what | client p50 ms | backend CPU ms | server ms | WAL bytes | CPU − full | server − full | ÷ floor call (p50, server, CPU) | HOT counters / vouchers |',
    )
    console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
    const p50 = (name: string) => {
      const t = [...(times.get(name) ?? [])].sort((x, y) => x - y)
      return t[Math.floor(t.length / 2)] ?? Number.NaN
    }
    const per = (name: string) => (cpu.get(name) ?? 0) / (ROUNDS * N)
    const server = (name: string) =>
      Number(
        fns.rows.find((r) => (name === 'floor' ? r.s === 'floor' : r.s === `w_${name}` && r.f === 'pe_floor_writes'))
          ?.ms ?? Number.NaN,
      )
    for (const c of calls) {
      const h = (t: string) => {
        const r = hot.rows.find((x) => x.s === `w_${c.name}` && x.t === t)
        return r ? `${r.h}/${r.u}` : '–'
      }
      console.log(
        `| ${c.name} | ${c.what} | ${p50(c.name).toFixed(3)} | ${per(c.name).toFixed(3)} | ${server(c.name).toFixed(3)} | ${Math.round((wal.get(c.name) ?? 0) / (ROUNDS * N))} | ${(per(c.name) - per('full')).toFixed(3)} | ${(server(c.name) - server('full')).toFixed(3)} | ${(p50(c.name) / p50('floor')).toFixed(2)}, ${(server(c.name) / server('floor')).toFixed(2)}, ${(per(c.name) / per('floor')).toFixed(2)} | ${h('counters')} · ${h('vouchers')} |`,
      )
    }
  }
} finally {
  await pool.end().catch(() => {})
  await server.stop()
}
