import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { commitFunction } from '../../src/postgres/commit-function'
import { FEED_OF_STEPS, FEED_ONCE, feedInsert } from '../../src/postgres/feed-rows'
import { layouts } from '../../src/postgres/migrate'
import { startEmbedded } from '../../test/postgres/embedded'
import { captureRedemptionCommit } from './captured-commit'

/*
 * `npx tsx bench/postgres/feed-forms.ts` (not a test; docs/postgres.md#change-feed-and-late-commits):
 * the change feed's row per change against forms that write one row per commit, inside this build's
 * `pe_commit`, on one server. Each form is this build's schema with the feed's statement (feed-rows.ts
 * `feedInsert`) replaced; the numbering, the steps and the answer stay. One captured one-line
 * redemption's commit is replayed `REPLAY_N` times per round from one connection, rounds alternating
 * (`REPLAY_ROUNDS`), for each `FSYNC` setting (default off,on). Reports per form the client's p50,
 * `pe_commit`'s server time per call (pg_stat_user_functions) and the backend's CPU per call (as
 * commit-replay.ts), and the size and compression of the feed row(s) one commit leaves.
 *
 * - rows: this build, a row per change, primary key (seq, pos);
 * - one-jsonb: one row, `changes jsonb`, an array of the changes (jsonb_agg of jsonb_build_object);
 * - one-json: the same array as `json` text (json_agg: values printed, not rebuilt);
 * - one-arrays: one row of parallel arrays, the values a `jsonb[]` kept out of line uncompressed
 *   (STORAGE EXTERNAL: array_agg copies each value, nothing is rebuilt or compressed);
 * - none: no feed row at all, the answer's versions only: a bound, not a feed.
 */

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const N = Number(process.env.REPLAY_N ?? 300)
const ROUNDS = Number(process.env.REPLAY_ROUNDS ?? 6)
const FSYNC = (process.env.FSYNC ?? 'off,on').split(',')
const entry = `jsonb_build_object('c', f.collection, 'id', f.id, 'op', f.op, 'v', f.version, 's', f.shape, 'value', f.value)`
const versions = `SELECT jsonb_object_agg(f.collection || '/' || f.id, f.version) FILTER (WHERE f.op = 'put') INTO vers FROM f`
const oneRow = (s: string, insert: string) => `WITH gone AS (DELETE FROM ${s}.pe_changes WHERE seq = seqv AND pos = -1),
    f AS MATERIALIZED (${FEED_OF_STEPS}),
    i AS (${insert})
  ${versions}`
/** Per form: its table (none for `rows`: this build's) and its feed statement in `pe_commit`. */
const forms: Record<string, { table?: string; feed: (s: string) => string }> = {
  'one-jsonb': {
    table: '(seq bigint PRIMARY KEY, changes jsonb NOT NULL)',
    feed: (s) => oneRow(s, `INSERT INTO ${s}.pe_one SELECT final_seq, jsonb_agg(${entry} ORDER BY f.pos) FROM f`),
  },
  'one-json': {
    table: '(seq bigint PRIMARY KEY, changes json NOT NULL)',
    feed: (s) =>
      oneRow(
        s,
        `INSERT INTO ${s}.pe_one SELECT final_seq, json_agg(${entry.replace('jsonb_', 'json_')} ORDER BY f.pos) FROM f`,
      ),
  },
  'one-arrays': {
    table: '(seq bigint PRIMARY KEY, cs text[], ids text[], ops text[], vs integer[], ss integer[], vals jsonb[])',
    feed: (s) =>
      oneRow(
        s,
        `INSERT INTO ${s}.pe_one SELECT final_seq, ${['collection', 'id', 'op', 'version', 'shape', 'value'].map((c) => `array_agg(f.${c} ORDER BY f.pos)`).join(', ')} FROM f`,
      ),
  },
  none: {
    feed: (s) =>
      `DELETE FROM ${s}.pe_changes WHERE seq = seqv AND pos = -1; ${versions.replace('FROM f', `FROM (${FEED_OF_STEPS}) f`)}`,
  },
}

const server = await startEmbedded({ track_functions: 'all' })
const pool = new pg.Pool({ connectionString: server.url, max: 2 }).on('error', () => {})
try {
  const { createPostgresStore } = await import('../../src/postgres/index')
  await createPostgresStore({ pool }).migrate()
  const schemaOf = (form: string) => form.replace('-', '_')
  for (const [form, { table, feed }] of Object.entries(forms)) {
    const schema = schemaOf(form)
    await createPostgresStore({ pool, schema }).migrate()
    const s = `"${schema}"`
    if (table) {
      await pool.query(`CREATE TABLE ${s}.pe_one ${table} WITH (toast_tuple_target = 8160)`)
      if (form === 'one-arrays') await pool.query(`ALTER TABLE ${s}.pe_one ALTER COLUMN vals SET STORAGE EXTERNAL`)
    }
    const text = commitFunction(schema, [...layouts(schema).values()])
    const statement = feedInsert(s, FEED_ONCE, false)
    if (!text.includes(statement)) throw new Error("the commit function's feed statement was not found")
    await pool.query(text.replace(statement, feed(s)))
  }
  const { payload, inserted, fresh, copyCodeTo } = await captureRedemptionCommit(pool)
  const schemas = ['promo_engine', ...Object.keys(forms).map(schemaOf)]
  for (const s of schemas.slice(1)) await copyCodeTo(s)
  console.log(
    `${new Date().toISOString()}; payload ${payload.length} bytes, ${inserted.length} inserts; ${ROUNDS} rounds × ${N} calls per form`,
  )
  for (const fsync of FSYNC) {
    await pool.query(`ALTER SYSTEM SET fsync = ${fsync}`)
    await pool.query('SELECT pg_reload_conf()')
    const client = await pool.connect()
    const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p as number
    const cpu = new Map<string, number>()
    const times = new Map<string, number[]>(schemas.map((s) => [s, []]))
    for (const s of schemas)
      for (let i = 0; i < 20; i++) await client.query(`SELECT ${s}.pe_commit($1::jsonb)`, [fresh()])
    await new Promise((r) => setTimeout(r, 600))
    await pool.query('SELECT pg_stat_reset()')
    const load = execSync('uptime').toString().trim()
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of round % 2 ? [...schemas].reverse() : schemas) {
        const sql = { name: `r_${s}`, text: `SELECT ${s}.pe_commit($1::jsonb) AS r` }
        const c0 = cpuMs(pid)
        for (let i = 0; i < N; i++) {
          const text = fresh()
          const t = performance.now()
          const r = await client.query({ ...sql, values: [text] })
          ;(times.get(s) as number[]).push(performance.now() - t)
          if (r.rows[0].r.ok !== true) throw new Error(JSON.stringify(r.rows[0].r))
        }
        cpu.set(s, (cpu.get(s) ?? 0) + cpuMs(pid) - c0)
      }
    }
    client.release()
    await new Promise((r) => setTimeout(r, 600))
    const fns = await pool.query(
      `SELECT schemaname AS s, total_time, calls FROM pg_stat_user_functions WHERE funcname = 'pe_commit'`,
    )
    console.log(`\n### fsync ${fsync} (load before: ${load}; after: ${execSync('uptime').toString().trim()})\n`)
    console.log('| form | client p50 ms | server ms per call | backend CPU ms per call | server ÷ rows | CPU ÷ rows |')
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
    const stats = (schema: string) => {
      const t = (times.get(schema) as number[]).sort((x, y) => x - y)
      const fn = fns.rows.find((r) => r.s === schema)
      return {
        p50: t[Math.floor(t.length / 2)] ?? 0,
        server: fn.total_time / fn.calls,
        cpu: (cpu.get(schema) ?? 0) / t.length,
      }
    }
    const rows = stats('promo_engine')
    for (const s of schemas) {
      const x = stats(s)
      console.log(
        `| ${s === 'promo_engine' ? 'rows' : s.replace('_', '-')} | ${x.p50.toFixed(3)} | ${x.server.toFixed(3)} | ${x.cpu.toFixed(3)} | ${(x.server / rows.server).toFixed(2)} | ${(x.cpu / rows.cpu).toFixed(2)} |`,
      )
    }
  }
  // What one commit leaves in the feed, per form: bytes as stored and how.
  const sizes = [
    `SELECT 'rows' AS form, count(*)::int AS rows, sum(pg_column_size(c.*))::int AS bytes, string_agg(DISTINCT coalesce(pg_column_compression(value), 'none'), ',') AS compression
       FROM promo_engine.pe_changes c WHERE seq = (SELECT max(seq) FROM promo_engine.pe_changes)`,
    ...['one_jsonb', 'one_json'].map(
      (
        s,
      ) => `SELECT '${s}' AS form, 1 AS rows, pg_column_size(changes) AS bytes, coalesce(pg_column_compression(changes), 'none') AS compression
        FROM ${s}.pe_one WHERE seq = (SELECT max(seq) FROM ${s}.pe_one)`,
    ),
    `SELECT 'one_arrays' AS form, 1 AS rows, pg_column_size(o.*) AS bytes,
         coalesce(pg_column_compression(vals), 'none') || ', row inline ' || pg_column_size(o.*) || ' bytes, values ' || pg_column_size(vals) AS compression
       FROM one_arrays.pe_one o WHERE seq = (SELECT max(seq) FROM one_arrays.pe_one)`,
  ]
  console.log('\n| form | rows per commit | bytes stored | compression |\n| --- | ---: | ---: | --- |')
  for (const q of sizes) {
    const r = (await pool.query(q)).rows[0]
    console.log(`| ${r.form} | ${r.rows} | ${r.bytes} | ${r.compression} |`)
  }
} finally {
  await pool.end().catch(() => {})
  await server.stop()
}
