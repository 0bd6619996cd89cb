import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'

/*
 * `npx tsx bench/postgres/generated-columns.ts` (not a test; docs/postgres.md#commit): what a stored
 * generated column costs an INSERT of one row and of ten, by the form of its expression. PostgreSQL
 * rebuilds every generated column's expression (its stored node text parsed, then planned) once per
 * statement, so a one-row INSERT pays it in full. Tables: `plain` (id, value) only; `cases` five text
 * columns in the declared form of src/postgres/columns.ts; `cases_ts` the same and two timestamp
 * columns through a `pe_timestamp` copy; `calls` the five as one call of a PL/pgSQL helper with the
 * same result; `bare` the five as `value #>> path` (not the same result: booleans and objects read as
 * text). Rounds alternate; ms per statement from inside one DO block (no client time).
 */

const server = await startEmbedded({})
const pool = new pg.Pool({ connectionString: server.url, max: 1 })
const fields = ['a', 'b', 'c', 'd', 'e']
const declared = (n: string) =>
  `f_${n} text GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(value #> '{${n}}') IN ('string','number') THEN value #> '{${n}}' #>> '{}' END) STORED`
const stamped = (n: string) =>
  `f_${n} timestamptz GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(value #> '{${n}}') = 'string' THEN pe_ts(value #> '{${n}}' #>> '{}') END) STORED`
try {
  await pool.query(`CREATE FUNCTION pe_ts(t text) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE
    SET "TimeZone" = 'UTC' SET "DateStyle" = 'ISO' AS $$ BEGIN
      IF t !~ '^\\d{4}-\\d{2}-\\d{2}' THEN RETURN NULL; END IF; RETURN t::timestamptz;
    EXCEPTION WHEN others THEN RETURN NULL; END $$`)
  await pool.query(`CREATE FUNCTION pe_text(v jsonb, p text[]) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
    DECLARE x jsonb := v #> p; BEGIN
      IF jsonb_typeof(x) IN ('string', 'number') THEN RETURN x #>> '{}'; END IF; RETURN NULL; END $$`)
  await pool.query('CREATE TABLE plain (id text PRIMARY KEY, value jsonb)')
  await pool.query(`CREATE TABLE cases (id text PRIMARY KEY, value jsonb, ${fields.map(declared).join(', ')})`)
  await pool.query(
    `CREATE TABLE cases_ts (id text PRIMARY KEY, value jsonb, ${fields.map(declared).join(', ')}, ${['t1', 't2'].map(stamped).join(', ')})`,
  )
  await pool.query(
    `CREATE TABLE calls (id text PRIMARY KEY, value jsonb, ${fields.map((n) => `f_${n} text GENERATED ALWAYS AS (pe_text(value, '{${n}}')) STORED`).join(', ')})`,
  )
  await pool.query(
    `CREATE TABLE bare (id text PRIMARY KEY, value jsonb, ${fields.map((n) => `f_${n} text GENERATED ALWAYS AS (value #>> '{${n}}') STORED`).join(', ')})`,
  )
  const v = JSON.stringify({
    a: 'x',
    b: 'y',
    c: 1,
    d: 'z',
    e: 'w',
    t1: '2026-11-26T00:00:00Z',
    t2: '2026-11-26T10:00:00Z',
  })
  const client = await pool.connect()
  const out = new Map<string, number[]>()
  let current = ''
  client.on('notice', (n) => out.set(current, [...(out.get(current) ?? []), Number(n.message)]))
  const cases = ['plain', 'cases', 'cases_ts', 'calls', 'bare'].flatMap((t) => [1, 10].map((k) => [t, k] as const))
  for (let round = 0; round < 4; round++)
    for (const [t, k] of round % 2 ? [...cases].reverse() : cases) {
      current = `${t}, ${k} row${k > 1 ? 's' : ''}`
      await client.query(`DO $$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
        FOR i IN 1..1000 LOOP
          INSERT INTO ${t} (id, value) SELECT i || '_' || j || '_' || random(), '${v}'::jsonb FROM generate_series(1, ${k}) j;
        END LOOP;
        RAISE NOTICE '%', extract(epoch FROM clock_timestamp() - t0); END $$`)
    }
  client.release()
  console.log('| table, rows per INSERT | ms per statement, each round |')
  console.log('| --- | --- |')
  for (const [k, xs] of out) console.log(`| ${k} | ${xs.map((x) => x.toFixed(3)).join(' ')} |`)
} finally {
  await pool.end().catch(() => {})
  await server.stop()
}
