import { columnFieldFilter, columnSets, literal, quote, type TableLayout } from './columns'

/*
 * How a commit takes a card's points from its buckets (docs/storage.md#taking-points): `pe_take`,
 * which `pe_commit` (commit-function.ts) calls for a changeset's `take` steps.
 */

/** The function that applies a changeset's `take` steps (docs/storage.md#taking-points). */
export function takeFunctionName(schema: string): string {
  return `${quote(schema)}.pe_take`
}

/**
 * `pe_take`: takes a card's points from its spendable buckets in spending order (`takeOrder` in
 * src/storage/ports.ts), under the lock of the card the changeset's guarded decrement took first.
 * Two cursors walk the declared index `(voucher_id, status, expires_at, created_at NULLS FIRST, id)`
 * in its own order (the expiring buckets after `now`, then the never-expiring ones), one row fetched
 * and locked at a time, and stop at the bucket that covers the amount: a take reads what it takes,
 * whatever the card holds (docs/postgres.md#flat-in-live-rows). What was taken goes to the named
 * record; each bucket's change, and the record's new value, are returned (`f`, `r`) for `pe_commit` to
 * put in the feed (replacing this commit's earlier change of that entity). Too few points: a guard
 * conflict.
 */
export function takeFunction(schema: string, layout: TableLayout, layouts: readonly TableLayout[]): string {
  const s = quote(schema)
  const t = `${s}.${quote(layout.collection)}`
  const column = (path: string) => {
    const f = layout.fields.get(path)
    if (!f) throw new Error(`${layout.collection}: a take needs the declared field ${path}`)
    return quote(f.column)
  }
  const voucher = column('voucher_id')
  const status = column('status')
  const expires = column('expires_at')
  const created = column('created_at')
  // A bucket's derived columns that a take can move: it writes `remaining` and `status` and nothing else.
  const moved = (c: { field: string }) => c.field === 'remaining' || c.field === 'status'
  // The record's columns, set again when the record's path lies in a field one of them reads (a
  // dotted path: the engine's `points_taken` is in none), one static statement per collection.
  const recordColumns = layouts
    .filter((l) => l.columns.length > 0)
    .map(
      (l) =>
        `WHEN ${literal(l.collection)} THEN IF w -> 'record' -> 'path' @? ${literal(`$ ? (${columnFieldFilter(l)})`)} THEN
        UPDATE ${s}.${quote(l.collection)} SET ${columnSets(l, 'value').slice(2)} WHERE id = rid;
      END IF;`,
    )
    .join('\n      ')
  return `
CREATE OR REPLACE FUNCTION ${takeFunctionName(schema)}(step jsonb, collect boolean) RETURNS jsonb
  LANGUAGE plpgsql AS $fn$
DECLARE
  w jsonb := step -> 'take';
  card text := w ->> 'id';
  left_ numeric := (w ->> 'amount')::numeric;
  at timestamptz := (w ->> 'now')::timestamptz;
  b record;
  c refcursor;
  phase integer;
  part numeric;
  nv jsonb;
  nver integer;
  taken jsonb := '[]'::jsonb;
  vs jsonb := '{}'::jsonb;
  feed jsonb := '[]'::jsonb;
  rv jsonb;
  shortfall jsonb;
  rc text := w -> 'record' ->> 'collection';
  rid text := w -> 'record' ->> 'id';
BEGIN
  FOR phase IN 1 .. 2 LOOP
    EXIT WHEN left_ <= 0;
    -- Ordered exactly as the index, so that the cursor reads it in order and sorts nothing (an explicit
    -- cursor is planned for its first rows, and FETCH takes one row at a time).
    IF phase = 1 THEN
      OPEN c FOR SELECT id, value, version, shape FROM ${t}
        WHERE ${voucher} = card AND ${status} = 'ACTIVE' AND ${expires} > at
        ORDER BY ${expires}, ${created} NULLS FIRST, id FOR UPDATE;
    ELSE
      OPEN c FOR SELECT id, value, version, shape FROM ${t}
        WHERE ${voucher} = card AND ${status} = 'ACTIVE' AND ${expires} IS NULL
        ORDER BY ${created} NULLS FIRST, id FOR UPDATE;
    END IF;
    LOOP
      FETCH c INTO b;
      EXIT WHEN NOT FOUND;
      CONTINUE WHEN NOT ${s}.pe_num(b.value -> 'remaining') > 0;
      part := least(left_, (b.value ->> 'remaining')::numeric);
      left_ := left_ - part;
      nv := jsonb_set(b.value, '{remaining}', to_jsonb((b.value ->> 'remaining')::numeric - part));
      IF (b.value ->> 'remaining')::numeric = part THEN nv := jsonb_set(nv, '{status}', '"SPENT"'); END IF;
      UPDATE ${t} SET value = nv, version = version + 1${columnSets(layout, 'nv', moved)} WHERE CURRENT OF c RETURNING version INTO nver;
      feed := feed || jsonb_build_array(jsonb_build_object('c', ${literal(layout.collection)}, 'id', b.id, 'version', nver, 'value', nv, 'shape', b.shape));
      taken := taken || jsonb_build_object('bucketId', b.id, 'points', part);
      vs := vs || jsonb_build_object(${literal(layout.collection)} || '/' || b.id, nver);
      -- Stop before the next row is fetched (and locked).
      EXIT WHEN left_ <= 0;
    END LOOP;
    CLOSE c;
  END LOOP;
  -- Too few points: this round's writes roll back with the conflict (or with the round, collecting).
  IF left_ > 0 THEN
    shortfall := jsonb_build_object('collection', ${literal(layout.collection)}, 'id', card, 'reason', 'guard',
      'guard', jsonb_build_object('path', 'remaining', 'value', to_jsonb(-left_), 'min', 0));
    IF NOT collect THEN RETURN jsonb_build_object('conflict', shortfall); END IF;
    RETURN jsonb_build_object('v', vs, 'f', feed, 'failed', jsonb_build_array(shortfall));
  END IF;
  IF rid IS NOT NULL THEN
    -- The record's own write this commit made: its version stays the one that write gave it.
    EXECUTE format('UPDATE %s.%I SET value = ${s.replace(/%/g, '%%')}.pe_set(value, string_to_array($1, ''.''), $2) WHERE id = $3 RETURNING value', ${literal(quote(schema))}, rc)
      INTO rv USING w -> 'record' ->> 'path', taken, rid;
    CASE rc
      ${recordColumns}
      ELSE NULL;
    END CASE;
  END IF;
  -- The feed's entries (pe_commit numbers them): each bucket's change, in the order taken, and the
  -- record's value as it now stands (its change in the feed, if this commit wrote it, carries it).
  RETURN jsonb_build_object('v', vs, 'f', feed, 'r', CASE WHEN rv IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(rc || '/' || rid, rv) END);
END $fn$;`
}
