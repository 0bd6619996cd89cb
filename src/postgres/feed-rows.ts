/*
 * What the change feed records for a commit (docs/postgres.md#commit): the queries `pe_commit`
 * (commit-function.ts) runs at its end, over its own variables (`todo`, the round's steps; `vers`,
 * `vals`, `shps`, what the steps reported; `takes` and `recs`, what the takes did), to insert
 * each entity's change once under the commit's final number.
 */

// The change-feed rows of the round that stands, one per entity written, in the order the changeset
// first touched each (`pos`): an entity's last write (a later round's row replaces an earlier one's),
// its version (1 for an insert, which reports none; for the others as the steps reported it), and for
// an increment its value and shape, as reported; an inserted or updated entity's value and shape as
// the payload carries them. Then the takes' buckets (the last
// take of each; one this commit wrote before keeps its position, the others follow in the order
// taken), and the value a take left in its record. Nothing is copied per step to build them (carried
// as JSON built by each step, they cost more than the rows' rewrite they saved: bench/RESULTS.md).
// The payload's rows are read with operators: jsonb_to_recordset, called again for every step, cost
// ten times more. Without takes (the common case) a statement that joins nothing; when some entity is
// written in more than one step (the adapter marks the first step, `dd`), each entity's last write
// picked by a sort, and when none is (a redemption), no sort.
function feedOfSteps(once: boolean): string {
  return `SELECT ${once ? '' : "DISTINCT ON (st.c, x.r ->> 'id') "}(x.r ->> 'pos')::integer AS pos, st.c AS collection, x.r ->> 'id' AS id,
          CASE WHEN x.r ->> 'op' = 'del' THEN 'delete' ELSE 'put' END AS op,
          CASE x.r ->> 'op' WHEN 'del' THEN (x.r ->> 'ev')::integer WHEN 'ins' THEN 1 ELSE (vers ->> (st.c || '/' || (x.r ->> 'id')))::integer END AS version,
          CASE x.r ->> 'op' WHEN 'del' THEN NULL WHEN 'inc' THEN vals -> (st.c || '/' || (x.r ->> 'id')) ELSE x.r -> 'v' END AS value,
          CASE x.r ->> 'op' WHEN 'del' THEN NULL WHEN 'inc' THEN (shps ->> (st.c || '/' || (x.r ->> 'id')))::integer
            ELSE (x.r ->> 's')::integer END AS shape
        FROM (SELECT e.value ->> 'c' AS c, e.value -> 'rows' AS rows${once ? '' : ', e.ordinality'} FROM jsonb_array_elements(todo)${once ? '' : ' WITH ORDINALITY'} e) st
          CROSS JOIN LATERAL jsonb_array_elements(st.rows) AS x(r)${once ? '' : "\n        ORDER BY st.c, x.r ->> 'id', st.ordinality DESC"}`
}
export const FEED_OF_STEPS = feedOfSteps(false)
export const FEED_ONCE = feedOfSteps(true)
// With takes, and to name a duplicate key's entity:
export const FEED_ROWS = `WITH w AS (SELECT DISTINCT ON (st.c, x.r ->> 'id') st.c AS c, x.r ->> 'id' AS id,
          st.c || '/' || (x.r ->> 'id') AS slot, x.r ->> 'op' AS op, (x.r ->> 'pos')::integer AS pos, x.r -> 'v' AS v,
          (x.r ->> 'ev')::integer AS ev, (x.r ->> 's')::integer AS s
        FROM (SELECT e.value ->> 'c' AS c, e.value -> 'rows' AS rows, e.ordinality FROM jsonb_array_elements(todo) WITH ORDINALITY e) st
          CROSS JOIN LATERAL jsonb_array_elements(st.rows) AS x(r)
        ORDER BY st.c, x.r ->> 'id', st.ordinality DESC),
      b AS (SELECT DISTINCT ON (tb.value ->> 'c', tb.value ->> 'id') (tb.value ->> 'c') || '/' || (tb.value ->> 'id') AS slot,
          tb.value AS e, min(tb.ordinality) OVER (PARTITION BY tb.value ->> 'c', tb.value ->> 'id') AS first
        FROM jsonb_array_elements(takes) WITH ORDINALITY tb
        ORDER BY tb.value ->> 'c', tb.value ->> 'id', tb.ordinality DESC)
      SELECT coalesce(w.pos, (SELECT coalesce(max(pos), -1) FROM w)
            + (row_number() OVER (PARTITION BY w.pos IS NULL ORDER BY b.first))::integer) AS pos,
          coalesce(w.c, b.e ->> 'c') AS collection, coalesce(w.id, b.e ->> 'id') AS id,
          CASE WHEN b.slot IS NULL AND w.op = 'del' THEN 'delete' ELSE 'put' END AS op,
          CASE WHEN b.slot IS NOT NULL THEN (b.e ->> 'version')::integer WHEN w.op = 'del' THEN w.ev
            WHEN w.op = 'ins' THEN 1 ELSE (vers ->> w.slot)::integer END AS version,
          CASE WHEN b.slot IS NOT NULL THEN b.e -> 'value' WHEN w.op = 'del' THEN NULL
            ELSE coalesce(recs -> w.slot, CASE WHEN w.op = 'inc' THEN vals -> w.slot ELSE w.v END) END AS value,
          CASE WHEN b.slot IS NOT NULL THEN (b.e ->> 'shape')::integer WHEN w.op = 'del' THEN NULL
            WHEN w.op = 'inc' THEN (shps ->> w.slot)::integer ELSE w.s END AS shape
        FROM w FULL JOIN b ON b.slot = w.slot`

/**
 * Deletes the numbering placeholder (`seqv`) and inserts the commit's feed rows under `final_seq`, one
 * per change, from one of the queries above, in one statement (so bench/postgres/feed-forms.ts can put
 * another form of the feed in its place). With `answer`, it also sets `vers` to the answer's versions
 * (per entity its last write; deleted ones left out) from the rows it inserted; without, `vers` stays
 * what the steps reported, which the adapter completes (`outcome` in src/postgres/changeset.ts).
 */
export function feedInsert(s: string, changes: string, answer = true): string {
  const insert = `INSERT INTO ${s}.pe_changes (seq, pos, collection, id, op, version, value, shape)
              SELECT final_seq, f.pos, f.collection, f.id, f.op, f.version, f.value, f.shape FROM (${changes}) f`
  const gone = `DELETE FROM ${s}.pe_changes WHERE seq = seqv AND pos = -1`
  if (!answer)
    return `WITH gone AS (${gone})
            ${insert}`
  return `WITH gone AS (${gone}),
            i AS (${insert}
              RETURNING collection, id, op, version)
          SELECT jsonb_object_agg(i.collection || '/' || i.id, i.version) FILTER (WHERE i.op = 'put') INTO vers FROM i`
}
