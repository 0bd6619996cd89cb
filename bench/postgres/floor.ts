/*
 * The floor a commit is measured against (issue 22; docs/postgres.md#commit): what the database itself
 * commits in one call, one PL/pgSQL function applying 19 JSONB inserts and a guarded single-row update.
 * Shared by the benches that put an engine commit beside it.
 */

export const FLOOR_SQL = `
CREATE SCHEMA IF NOT EXISTS floor;
CREATE TABLE IF NOT EXISTS floor.counter (id integer PRIMARY KEY, n bigint NOT NULL, cap bigint NOT NULL);
CREATE TABLE IF NOT EXISTS floor.rows (id text PRIMARY KEY, value jsonb NOT NULL, version integer NOT NULL);
INSERT INTO floor.counter SELECT g, 0, 1000000000000 FROM generate_series(0, 7) g ON CONFLICT DO NOTHING;
CREATE OR REPLACE FUNCTION floor.apply(p jsonb, which integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO floor.rows (id, value, version) SELECT x ->> 'id', x -> 'value', 1 FROM jsonb_array_elements(p) x;
  UPDATE floor.counter SET n = n + 1 WHERE id = which AND n + 1 <= cap;
  RETURN FOUND;
END $$;`

/** The floor call's argument: 19 rows (ids unique by `prefix`), each as near-floor-worker.ts sends them. */
export function floorRows(prefix: string, code = 'D0'): string {
  return JSON.stringify(
    Array.from({ length: 19 }, (_, i) => ({
      id: `${prefix}-${i}`,
      value: {
        id: `x${i}`,
        type: 'customer.redemption.succeeded',
        customer_id: 'cust_1',
        amount: 100 * i,
        data: { code, order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1 }] } },
      },
    })),
  )
}

/** This checkout's adapter and an earlier build's, each in a schema of its own, as the benches compare them. */
export function buildsBeside(earlier: string): { label: string; schema: string; mod: string }[] {
  return [
    { label: 'this build', schema: 'promo_engine', mod: '../../src/postgres/index.ts' },
    { label: 'earlier build', schema: 'base', mod: `${earlier}/postgres.js` },
  ]
}

/**
 * A variant of the second floor, for taking its cost apart (bench/postgres/writes-decomposed.ts): the
 * derived columns left NULL instead of computed (`columns: false`; `'untimed'`: only the timestamps,
 * which call `pe_timestamp`), the feed rows without their values
 * and shapes or not written (`feed`), the counters' and the code's values left as they are, only
 * their versions moved (`arithmetic: false`). The default is the floor itself.
 */
export interface WritesVariant {
  columns?: boolean | 'untimed'
  feed?: 'values' | 'bare' | 'none'
  arithmetic?: boolean
}

/**
 * The second floor (docs/postgres.md#commit): the writes of one captured redemption's commit, and
 * nothing else, by hand. One PL/pgSQL function with one static statement per table, into this build's
 * own tables (their indexes and derived columns), from the commit's own payload: the new
 * entities inserted with their derived columns computed (as the commit's insert does), the counters'
 * and the code's increments applied with JSON arithmetic (the code's under its limit), and one
 * change-feed row per entity written. No versions reported, no conflict kinds, no alternatives, no
 * subtransaction, no feed numbering: what the database needs for these rows, which an engine commit
 * pays whatever its design. `insertStatement` is the commit's own (src/postgres/commit-statements.ts).
 */
export function writesFloorSql(
  schema: string,
  insertStatement: (layout: { collection: string; columns?: readonly unknown[] }) => string,
  layouts: readonly { collection: string; columns?: readonly unknown[] }[],
  payload: { steps: { c: string; rows: { op: string }[] }[] },
  variant: WritesVariant = {},
): string {
  const s = `"${schema}"`
  const { columns = true, feed = 'values', arithmetic = true } = variant
  const inserts = payload.steps
    .filter((st) => st.rows.every((r) => r.op === 'ins'))
    .map((st) => {
      const layout = layouts.find((l) => l.collection === st.c)
      if (!layout) throw new Error(`no table for ${st.c}`)
      return `step := (SELECT e FROM jsonb_array_elements(p -> 'steps') e WHERE e ->> 'c' = '${st.c}');
  ${insertStatement(
    columns === true
      ? layout
      : {
          ...layout,
          columns:
            columns === 'untimed'
              ? (layout.columns ?? []).filter((c) => (c as { sqlType: string }).sqlType !== 'timestamptz')
              : [],
        },
  )};`
    })
    .join('\n  ')
  for (const st of payload.steps)
    if (!st.rows.every((r) => r.op === 'ins') && !['counters', 'vouchers'].includes(st.c))
      throw new Error(`the writes floor knows no step of ${st.c}`)
  return `
CREATE OR REPLACE FUNCTION ${s}.pe_floor_writes(p jsonb) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  step jsonb;
  n integer;
BEGIN
  ${inserts}
  -- The increments: top-level numbers of the counter rows, the code's redeemed quantity under its limit.
  WITH x AS (SELECT * FROM jsonb_to_recordset((SELECT e FROM jsonb_array_elements(p -> 'steps') e WHERE e ->> 'c' = 'counters') -> 'rows')
      AS x(id text, n integer, ap text[], av float8[])),
    c AS (UPDATE ${s}.counters t SET version = t.version + x.n${
      arithmetic
        ? `,
        value = t.value || (SELECT jsonb_object_agg(u.k, coalesce((t.value ->> u.k)::float8, 0) + u.v) FROM unnest(x.ap, x.av) AS u(k, v))`
        : ''
    }
      FROM x WHERE t.id = x.id RETURNING t.id, t.version, t.value, t.shape),
    v AS (UPDATE ${s}.vouchers t SET version = t.version + 1${
      arithmetic
        ? `,
        value = jsonb_set(jsonb_set(t.value, '{redemption,redeemed_quantity}',
          to_jsonb(coalesce((t.value #>> '{redemption,redeemed_quantity}')::integer, 0) + 1)), '{updated_at}', to_jsonb(now()))`
        : ''
    }
      WHERE t.id = (SELECT e -> 'rows' -> 0 ->> 'id' FROM jsonb_array_elements(p -> 'steps') e WHERE e ->> 'c' = 'vouchers')
        AND coalesce((t.value #>> '{redemption,redeemed_quantity}')::integer, 0) + 1 <= (t.value #>> '{redemption,quantity}')::integer
      RETURNING t.id, t.version, t.value, t.shape)${
        feed === 'none'
          ? ''
          : `,
    f AS (INSERT INTO ${s}.pe_changes (seq, pos, collection, id, op, version, value, shape)
      SELECT -(pg_current_xact_id()::text::bigint), row_number() OVER (), w.c, w.id, 'put', w.version, ${feed === 'values' ? 'w.value, w.shape' : 'NULL, NULL'} FROM (
        SELECT e ->> 'c' AS c, r ->> 'id' AS id, 1 AS version, r -> 'v' AS value, (r ->> 's')::integer AS shape
          FROM jsonb_array_elements(p -> 'steps') e, jsonb_array_elements(e -> 'rows') r WHERE r ->> 'op' = 'ins'
        UNION ALL SELECT 'counters', id, version, value, shape FROM c
        UNION ALL SELECT 'vouchers', id, version, value, shape FROM v) w RETURNING 1)`
      }
  SELECT (SELECT count(*) FROM v) INTO n;
  RETURN n = 1;
END $$;`
}
