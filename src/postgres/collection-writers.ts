import { columnNames, columnSets, columnValues, identifier, literal, quote, type TableLayout } from './columns'
import { columnRefresh } from './commit-statements'

/*
 * One PL/pgSQL function per collection (`pe_w_<collection>`), holding that table's static statements
 * for one step of a commit (docs/postgres.md#commit); `pe_commit` (commit-function.ts) calls them step
 * by step.
 */

/** The function holding one collection's commit statements. */
export function writerFunction(schema: string, collection: string): string {
  return `${quote(schema)}.${quote(identifier(`pe_w_${collection}`))}`
}

/**
 * One collection's step (docs/postgres.md#commit). Returns what it wrote, `{v, x, s}` (per entity
 * `collection/id`: its version, null when deleted; for increments its value after and its shape), or
 * `{conflict}`, or, collecting for alternatives, also `{failed}` (the guards that failed, written anyway).
 */
export function collectionWriter(schema: string, layout: TableLayout): string {
  const collection = layout.collection
  const s = quote(schema)
  const t = `${s}.${quote(collection)}`
  const names = columnNames(layout)
  const c = literal(collection)
  const conflictOf = (reason: string) =>
    `jsonb_build_object('conflict', jsonb_build_object('collection', ${c}, 'id', bad, 'reason', ${reason}))`
  const slot = (id: string) => `${c} || '/' || ${id}`
  // The value of a row an increment creates, before the increment.
  const created = "(coalesce(x.cr, '{}'::jsonb) || jsonb_build_object('id', x.id))"
  const incRows =
    "jsonb_to_recordset(step -> 'rows') AS x(op text, id text, n integer, ap text[], av float8[], sp text[], sv jsonb, up text[], g jsonb, cr jsonb, s integer)"
  // The guards of the incremented rows `u` (joined to their writes `x`), checked on the result.
  const guards = (
    rows: string,
  ) => `(SELECT jsonb_agg(jsonb_build_object('collection', ${c}, 'id', u.id, 'reason', 'guard',
          'guard', jsonb_build_object('path', g.key, 'value', to_jsonb(g.n)) || g.value
            || CASE WHEN g.lim IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('max', to_jsonb(g.lim)) END) ORDER BY u.id, g.key)
        FROM ${rows} u JOIN x ON x.id = u.id CROSS JOIN LATERAL (SELECT e.key, e.value, ${s}.pe_guarded(u.value, e.key, e.value) AS n,
            ${s}.pe_bound(u.value, e.value) AS lim
          FROM jsonb_each(coalesce(x.g, '{}'::jsonb)) e) g
        WHERE (g.value ? 'min' AND g.n < (g.value ->> 'min')::float8) OR g.n > g.lim)`
  // What the rows written report, aggregated in one pass (one aggregate node to set up, not three).
  const written = (filter: string) =>
    `jsonb_object_agg(${slot('u.id')}, u.version)${filter} AS vs, jsonb_object_agg(${slot('u.id')}, u.value)${filter} AS xs,
        jsonb_object_agg(${slot('u.id')}, u.shape)${filter} AS ss`
  const merge = `out := jsonb_build_object('v', coalesce(out -> 'v', '{}'::jsonb) || coalesce(vs, '{}'::jsonb),
      'x', coalesce(out -> 'x', '{}'::jsonb) || coalesce(xs, '{}'::jsonb), 's', coalesce(out -> 's', '{}'::jsonb) || coalesce(ss, '{}'::jsonb));
    IF earlier IS NOT NULL THEN
      failed := CASE WHEN failed IS NULL THEN earlier
        ELSE (SELECT jsonb_agg(e ORDER BY e ->> 'id', e -> 'guard' ->> 'path') FROM jsonb_array_elements(earlier || failed) e) END;
    END IF;`
  // The derived columns of the rows incremented (docs/postgres.md#schema), set again only when an
  // increment adds to, assigns or removes a field one of them reads: an increment changes the fields
  // its paths name and nothing else (pe_apply, then `- up`), so a step whose paths all lie outside
  // those fields (a code's redeemed quantity) leaves every column as it was.
  const touched = columnRefresh(schema, layout)
  const outcome = `IF bad IS NOT NULL THEN RETURN ${conflictOf("'missing'")}; END IF;
    ${touched}
    ${merge}
    IF failed IS NOT NULL THEN
      IF NOT collect THEN RETURN jsonb_build_object('conflict', failed -> 0); END IF;
      RETURN out || jsonb_build_object('failed', failed);
    END IF;
    RETURN out;`
  return `
CREATE OR REPLACE FUNCTION ${writerFunction(schema, collection)}(step jsonb, collect boolean) RETURNS jsonb
  LANGUAGE plpgsql AS $fn$
DECLARE
  bad text;
  found_version integer;
  failed jsonb;
  earlier jsonb;
  vs jsonb;
  xs jsonb;
  ss jsonb;
  fresh text[];
  got text[];
  out jsonb := '{}'::jsonb;
  guarded boolean := step -> 'rows' @? '$[*].g';
  existing integer := (step ->> 'upd')::integer + (step ->> 'del')::integer + (step ->> 'inc')::integer;
BEGIN
  -- Increments only, some creating their row (the counter rows of a redemption): one statement adds
  -- to the rows that exist and inserts those that do not (as \`create\` gives them, version 0), in id
  -- order, records the changes and checks the guards of the rows it added to. The rows it inserted
  -- (a new day's counter, a new customer's) get their increment from the statement below. A row
  -- without \`create\` that did not exist is reported missing, and rolled back with the commit.
  IF existing = (step ->> 'inc')::integer AND (step ->> 'ins')::integer = 0 AND (step ->> 'cr')::integer > 0 THEN
    -- Two static forms: a step none of whose rows has a guard (the counters) checks none, one node
    -- fewer to set up in a statement that runs for every redemption.
    IF guarded THEN
      WITH x AS (SELECT * FROM ${incRows}),
        u AS (INSERT INTO ${t} AS t (id, value, version, shape${names})
            SELECT x.id, ${created}, 0, x.s${columnValues(layout, created)} FROM x ORDER BY x.id
          ON CONFLICT (id) DO UPDATE SET version = t.version + (SELECT x.n FROM x WHERE x.id = excluded.id),
            value = (SELECT ${s}.pe_apply(t.value, x.ap, x.av, x.sp, x.sv) - coalesce(x.up, '{}'::text[]) FROM x WHERE x.id = excluded.id)
          RETURNING t.id, t.version, t.value, t.shape),
        added AS (SELECT * FROM u WHERE u.version > 0)
      SELECT w.fresh, ${guards('added')}, w.vs, w.xs, w.ss INTO fresh, failed, vs, xs, ss
        FROM (SELECT array_agg(u.id) FILTER (WHERE u.version = 0) AS fresh, ${written(' FILTER (WHERE u.version > 0)')} FROM u) w;
    ELSE
      WITH x AS (SELECT * FROM ${incRows}),
        u AS (INSERT INTO ${t} AS t (id, value, version, shape${names})
            SELECT x.id, ${created}, 0, x.s${columnValues(layout, created)} FROM x ORDER BY x.id
          ON CONFLICT (id) DO UPDATE SET version = t.version + (SELECT x.n FROM x WHERE x.id = excluded.id),
            value = (SELECT ${s}.pe_apply(t.value, x.ap, x.av, x.sp, x.sv) - coalesce(x.up, '{}'::text[]) FROM x WHERE x.id = excluded.id)
          RETURNING t.id, t.version, t.value, t.shape)
      SELECT array_agg(u.id) FILTER (WHERE u.version = 0), ${written(' FILTER (WHERE u.version > 0)')}
        INTO fresh, vs, xs, ss FROM u;
    END IF;
    IF fresh IS NULL THEN
      ${outcome}
    END IF;
    -- Rows inserted: one without \`create\` did not exist, and is reported missing.
    SELECT min(x.id) INTO bad FROM jsonb_to_recordset(step -> 'rows') AS x(id text, cr jsonb) WHERE x.cr IS NULL AND x.id = ANY(fresh);
    IF bad IS NOT NULL THEN RETURN ${conflictOf("'missing'")}; END IF;
    ${merge}
    earlier := failed;
  ELSE
    -- The rows that exist, locked in id order before any is written (one row alone needs no statement of its own).
    IF existing > 1 OR (existing = 1 AND (step ->> 'ins')::integer + (step ->> 'cr')::integer > 0) THEN
      -- \`= ANY(ARRAY(…))\`, not \`IN (SELECT …)\`: the planner guesses 100 rows for the subquery and, on a
      -- table of a few thousand rows, answers IN with a scan of the whole table; an array goes through the key.
      PERFORM 1 FROM ${t} WHERE id = ANY(ARRAY(SELECT x ->> 'id' FROM jsonb_array_elements(step -> 'rows') x WHERE x ->> 'op' <> 'ins'))
        ORDER BY id FOR UPDATE;
    END IF;
    -- New entities only: a plain insert. An id already stored raises unique_violation, which pe_commit
    -- turns into an \`exists\` conflict (ON CONFLICT would cost every row a probe of the key first and
    -- a second WAL record to confirm it, for a collision random ids do not have).
    IF (step ->> 'cr')::integer = 0 AND (step ->> 'ins')::integer > 0 THEN
      WITH i AS (INSERT INTO ${t} (id, value, version, shape${names})
          SELECT x.id, x.v, 1, x.s${columnValues(layout, 'x.v')} FROM jsonb_to_recordset(step -> 'rows') AS x(op text, id text, v jsonb, s integer)
          WHERE x.op = 'ins' ORDER BY x.id RETURNING id)
      SELECT jsonb_object_agg(${slot('i.id')}, 1) INTO vs FROM i;
      out := jsonb_build_object('v', vs);
    -- New entities and the counter rows an increment creates (version 0: the increment makes it n).
    ELSIF (step ->> 'ins')::integer + (step ->> 'cr')::integer > 0 THEN
      WITH x AS (SELECT x.*, CASE WHEN x.op = 'ins' THEN x.v ELSE x.cr || jsonb_build_object('id', x.id) END AS nv
          FROM jsonb_to_recordset(step -> 'rows') AS x(op text, id text, v jsonb, s integer, cr jsonb)
          WHERE x.op = 'ins' OR (x.op = 'inc' AND jsonb_typeof(x.cr) = 'object')),
        i AS (INSERT INTO ${t} (id, value, version, shape${names})
          SELECT x.id, x.nv, CASE WHEN x.op = 'ins' THEN 1 ELSE 0 END, x.s${columnValues(layout, 'x.nv')} FROM x ORDER BY x.id
          ON CONFLICT (id) DO NOTHING RETURNING id, version)
      SELECT min(x.id) FILTER (WHERE x.op = 'ins' AND i.id IS NULL),
          jsonb_object_agg(${slot('i.id')}, 1) FILTER (WHERE x.op = 'ins' AND i.id IS NOT NULL)
        INTO bad, vs FROM x LEFT JOIN i ON i.id = x.id;
      IF bad IS NOT NULL THEN RETURN ${conflictOf("'exists'")}; END IF;
      out := jsonb_build_object('v', coalesce(vs, '{}'::jsonb));
    END IF;
    IF (step ->> 'upd')::integer > 0 THEN
      WITH x AS (SELECT * FROM jsonb_to_recordset(step -> 'rows') AS x(op text, id text, v jsonb, ev integer, s integer)
          WHERE x.op = 'upd'),
        u AS (UPDATE ${t} t SET value = x.v, version = t.version + 1, shape = x.s${columnSets(layout, 'x.v')} FROM x
          WHERE t.id = x.id AND t.version = x.ev RETURNING t.id, t.version)
      SELECT (SELECT min(x.id) FROM x WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.id = x.id)),
          (SELECT jsonb_object_agg(${slot('u.id')}, u.version) FROM u)
        INTO bad, vs;
      IF bad IS NOT NULL THEN
        SELECT version INTO found_version FROM ${t} WHERE id = bad;
        RETURN ${conflictOf("CASE WHEN found_version IS NULL THEN 'missing' ELSE 'version' END")};
      END IF;
      out := jsonb_build_object('v', coalesce(out -> 'v', '{}'::jsonb) || coalesce(vs, '{}'::jsonb));
    END IF;
    IF (step ->> 'del')::integer > 0 THEN
      WITH x AS (SELECT * FROM jsonb_to_recordset(step -> 'rows') AS x(op text, id text, ev integer)
          WHERE x.op = 'del'),
        d AS (DELETE FROM ${t} t USING x WHERE t.id = x.id AND t.version = x.ev RETURNING t.id)
      SELECT (SELECT min(x.id) FROM x WHERE NOT EXISTS (SELECT 1 FROM d WHERE d.id = x.id)),
          (SELECT jsonb_object_agg(${slot('d.id')}, NULL::integer) FROM d)
        INTO bad, vs;
      IF bad IS NOT NULL THEN
        SELECT version INTO found_version FROM ${t} WHERE id = bad;
        RETURN ${conflictOf("CASE WHEN found_version IS NULL THEN 'missing' ELSE 'version' END")};
      END IF;
      out := jsonb_build_object('v', coalesce(out -> 'v', '{}'::jsonb) || coalesce(vs, '{}'::jsonb));
    END IF;
  END IF;
  -- Increments beside other writes, and those of rows just created: add to the newest row, record the
  -- change, and check every guard on the result, in one statement.
  IF (step ->> 'inc')::integer > 0 THEN
    IF guarded THEN
      WITH x AS (SELECT * FROM ${incRows} WHERE x.op = 'inc' AND (fresh IS NULL OR x.id = ANY(fresh))),
        u AS (UPDATE ${t} t SET value = ${s}.pe_apply(t.value, x.ap, x.av, x.sp, x.sv) - coalesce(x.up, '{}'::text[]), version = t.version + x.n FROM x
          WHERE t.id = x.id RETURNING t.id, t.version, t.value, t.shape)
      SELECT w.got, ${guards('u')}, w.vs, w.xs, w.ss INTO got, failed, vs, xs, ss
        FROM (SELECT array_agg(u.id) AS got, ${written('')} FROM u) w;
    ELSE
      WITH x AS (SELECT * FROM ${incRows} WHERE x.op = 'inc' AND (fresh IS NULL OR x.id = ANY(fresh))),
        u AS (UPDATE ${t} t SET value = ${s}.pe_apply(t.value, x.ap, x.av, x.sp, x.sv) - coalesce(x.up, '{}'::text[]), version = t.version + x.n FROM x
          WHERE t.id = x.id RETURNING t.id, t.version, t.value, t.shape)
      SELECT array_agg(u.id), ${written('')} INTO got, vs, xs, ss FROM u;
    END IF;
    -- Fewer rows written than named: the first one that did not exist is missing.
    IF coalesce(array_length(got, 1), 0) < coalesce(array_length(fresh, 1), (step ->> 'inc')::integer) THEN
      SELECT min(x.id) INTO bad FROM jsonb_to_recordset(step -> 'rows') AS x(op text, id text)
        WHERE x.op = 'inc' AND (fresh IS NULL OR x.id = ANY(fresh)) AND x.id <> ALL(coalesce(got, '{}'::text[]));
    END IF;
    ${outcome}
  END IF;
  RETURN out;
END $fn$;`
}
