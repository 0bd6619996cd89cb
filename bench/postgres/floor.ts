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
