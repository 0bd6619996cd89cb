import { identifier, quote, type TableLayout } from './columns'

/*
 * The commit as PL/pgSQL functions, installed by `migrate()` (docs/postgres.md#commit): the adapter
 * sends the changeset once, as JSON, so a busy row's lock is held for the time the server takes to
 * apply it, not for a round trip per write.
 *
 * Every statement is static: one function per collection (`pe_w_<collection>`) holds that table's
 * statements, planned once per connection and reused, and `pe_commit` calls them step by step. The
 * adapter groups the writes into steps (src/postgres/changeset.ts: one collection, one round, rows by
 * id, entities with a guarded increment last), and each step runs at most five statements whatever
 * its size: lock the existing rows it writes, in id order; insert (new entities and counter rows
 * made by `create`); update under a version check; delete under a version check; increment and check
 * the guards. Each of the writing statements records its change feed rows in the same statement.
 * Two commits therefore lock shared rows in the same order and cannot deadlock.
 *
 * Everything runs inside a block with an exception handler, which PostgreSQL runs as a
 * subtransaction: a conflict raises, the block's writes roll back, and the conflict is returned as
 * data. In the host's own transaction this leaves the host's earlier work untouched. When the
 * changeset carries alternatives and only guards failed, the block runs again with the alternative
 * chosen (a second subtransaction in the same transaction): one commit either way.
 *
 * The change feed's sequence number comes from a one-row counter taken by the last statements
 * (docs/postgres.md#change-feed-and-late-commits); the steps write the feed rows under a provisional
 * negative number, unique to the commit, renumbered then.
 */

/** Provisional feed numbers per transaction id: `-(xid * FEED_SLOTS + n)`. */
export const FEED_SLOTS = 4096

/** The function holding one collection's commit statements. */
export function writerFunction(schema: string, collection: string): string {
  return `${quote(schema)}.${quote(identifier(`pe_w_${collection}`))}`
}

export function commitFunction(schema: string, layouts: readonly TableLayout[]): string {
  const s = quote(schema)
  // The unique checks of the collections whose keys the changeset may change (\`uk\`, listed by the
  // adapter): static statements, one per collection with natural keys; none runs when no key changed.
  const setConstraints = (mode: string) =>
    layouts
      .filter((l) => l.keys.length > 0)
      .map(
        (l) =>
          `IF keyed ? ${literal(l.collection)} THEN SET CONSTRAINTS ${l.keys.map((k) => `${s}.${quote(k.constraint)}`).join(', ')} ${mode}; END IF;`,
      )
      .join('\n      ')
  const dispatch = layouts
    .map((l) => `WHEN ${literal(l.collection)} THEN ${writerFunction(schema, l.collection)}(seqv, step, collect)`)
    .join('\n          ')
  return `
CREATE OR REPLACE FUNCTION ${s}.pe_add(v jsonb, path text[], amount float8) RETURNS jsonb
  LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  child jsonb;
  base jsonb := CASE WHEN jsonb_typeof(v) = 'object' THEN v ELSE '{}'::jsonb END;
BEGIN
  IF array_length(path, 1) = 1 THEN
    child := base -> path[1];
    RETURN jsonb_set(base, path, to_jsonb(
      CASE WHEN jsonb_typeof(child) = 'number' THEN child::float8 ELSE 0 END + amount), true);
  END IF;
  RETURN jsonb_set(base, path[1:1], ${s}.pe_add(base -> path[1], path[2:], amount), true);
END $$;

CREATE OR REPLACE FUNCTION ${s}.pe_set(v jsonb, path text[], x jsonb) RETURNS jsonb
  LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  base jsonb := CASE WHEN jsonb_typeof(v) = 'object' THEN v ELSE '{}'::jsonb END;
BEGIN
  IF array_length(path, 1) = 1 THEN RETURN jsonb_set(base, path, x, true); END IF;
  RETURN jsonb_set(base, path[1:1], ${s}.pe_set(base -> path[1], path[2:], x), true);
END $$;

-- An increment's new value: its additions, then its assignments, in order (parallel arrays of dotted
-- paths and values; a loop over arrays runs no query, where one over jsonb_each would run one per call).
CREATE OR REPLACE FUNCTION ${s}.pe_apply(v jsonb, ap text[], av float8[], sp text[], sv jsonb) RETURNS jsonb
  LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  path text[];
BEGIN
  FOR i IN 1 .. coalesce(array_length(ap, 1), 0) LOOP
    path := string_to_array(ap[i], '.');
    IF array_length(path, 1) = 1 AND jsonb_typeof(v) = 'object' THEN
      v := jsonb_set(v, path, to_jsonb(
        CASE WHEN jsonb_typeof(v -> path[1]) = 'number' THEN (v -> path[1])::float8 ELSE 0 END + av[i]), true);
    ELSE
      v := ${s}.pe_add(v, path, av[i]);
    END IF;
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(sp, 1), 0) LOOP
    v := ${s}.pe_set(v, string_to_array(sp[i], '.'), sv -> (i - 1));
  END LOOP;
  RETURN v;
END $$;

CREATE OR REPLACE FUNCTION ${s}.pe_num(v jsonb) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN v::float8 ELSE 0 END $$;

-- A guarded field as the guard compares it: the field plus its \`plus\` fields (docs/storage.md#counters).
-- PL/pgSQL, whose plan is kept: an SQL function with a subquery is not inlined and was planned again
-- at every statement that called it (about half of a guarded increment's time in the profile).
CREATE OR REPLACE FUNCTION ${s}.pe_guarded(v jsonb, path text, g jsonb) RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  total float8 := ${s}.pe_num(v #> string_to_array(path, '.'));
BEGIN
  IF jsonb_typeof(g -> 'plus') = 'array' THEN
    FOR i IN 0 .. jsonb_array_length(g -> 'plus') - 1 LOOP
      total := total + ${s}.pe_num(v #> string_to_array(g -> 'plus' ->> i, '.'));
    END LOOP;
  END IF;
  RETURN total;
END $$;

-- A guard's upper bound: the lower of \`max\` and the number stored at \`maxOf\` (none: NULL), as guardCheck in src/storage/ports.ts.
CREATE OR REPLACE FUNCTION ${s}.pe_bound(v jsonb, g jsonb) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN g ? 'maxOf' AND jsonb_typeof(v #> string_to_array(g ->> 'maxOf', '.')) = 'number'
      THEN least((g ->> 'max')::float8, (v #> string_to_array(g ->> 'maxOf', '.'))::float8)
    ELSE (g ->> 'max')::float8 END $$;

${layouts.map((l) => writer(schema, l.collection)).join('\n')}

CREATE OR REPLACE FUNCTION ${s}.pe_commit(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  step jsonb;
  r jsonb;
  conflict jsonb;
  seqv bigint;
  final_seq bigint;
  n integer;
  cname text;
  kc record;
  dup text;
  written text[];
  pause jsonb := p -> 'pause';
  k integer := 0;
  result jsonb;
  -- Alternatives (docs/storage.md#alternatives): with some, a failed guard does not stop the writes;
  -- every failed guard is collected, and the alternative chosen is applied in a second round.
  todo jsonb := p -> 'steps';
  keyed jsonb := coalesce(p -> 'uk', '[]'::jsonb);
  -- What the steps wrote, per entity: its version (null: deleted); for increments its value and shape.
  vers jsonb;
  vals jsonb;
  shps jsonb;
  collect boolean := jsonb_array_length(coalesce(p -> 'alternatives', '[]'::jsonb)) > 0;
  failed jsonb := '[]'::jsonb;
  chosen integer;
BEGIN
  -- Concurrent inserts of one natural key queue on a lock of that key, taken first and in one order,
  -- instead of each finding the other's row in the deferred unique check and deadlocking there.
  IF p ? 'keys' THEN
    PERFORM pg_advisory_xact_lock(q.h) FROM (SELECT DISTINCT hashtextextended(x, 0) AS h
      FROM jsonb_array_elements_text(p -> 'keys') AS x ORDER BY 1) q;
  END IF;
  -- The feed position: this transaction's id, and how many commits it made before (a host's
  -- transaction may make several). No row is shared by all commits.
  n := coalesce(nullif(current_setting('promo_engine.commits', true), ''), '0')::integer;
  IF n >= ${FEED_SLOTS} THEN
    RAISE EXCEPTION 'promo-engine: more than ${FEED_SLOTS - 1} commits in one transaction';
  END IF;
  -- A provisional number, negative and unique to this commit, for the feed rows the steps write; the
  -- real one is taken last (below), so the shared counter's row is locked only from then to COMMIT.
  seqv := -(pg_current_xact_id()::text::bigint * ${FEED_SLOTS} + n);
  LOOP
  BEGIN
    k := 0;
    vers := '{}'::jsonb;
    vals := '{}'::jsonb;
    shps := '{}'::jsonb;
    FOR step IN SELECT value FROM jsonb_array_elements(todo) LOOP
      k := k + 1;
      r := CASE step ->> 'c'
          ${dispatch}
        END;
      IF r ? 'conflict' THEN
        conflict := r -> 'conflict';
        RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
      END IF;
      -- Failed guards with alternatives: written anyway, so later writes see them; the round rolls back below.
      IF r ? 'failed' THEN failed := failed || (r -> 'failed'); END IF;
      -- A later round's write of an entity replaces what an earlier one reported.
      vers := vers || coalesce(r -> 'v', '{}'::jsonb);
      IF r ? 'x' THEN
        vals := vals || (r -> 'x');
        shps := shps || (r -> 's');
      END IF;
      -- A testing hook (the adapter's commit hook): sleep after step k so a test can kill the client there.
      IF pause IS NOT NULL AND (pause ->> 'after')::integer = k THEN
        PERFORM pg_sleep((pause ->> 'seconds')::float8);
      END IF;
    END LOOP;

    -- Natural keys, checked on the final state of the changeset.
    BEGIN
      ${setConstraints('IMMEDIATE')}
    EXCEPTION WHEN unique_violation THEN
      GET STACKED DIAGNOSTICS cname = CONSTRAINT_NAME;
      SELECT * INTO kc FROM ${s}.pe_keys WHERE constraint_name = cname;
      SELECT array_agg(DISTINCT c.id) INTO written FROM ${s}.pe_changes c
        WHERE c.seq = seqv AND c.collection = kc.collection AND c.op = 'put';
      EXECUTE format('SELECT id FROM %I.%I WHERE id = ANY($1) AND (%s) IN (SELECT %s FROM %I.%I GROUP BY %s HAVING count(*) > 1) ORDER BY id LIMIT 1',
        ${literal(schema)}, kc.collection, array_to_string(kc.columns, ', '), array_to_string(kc.columns, ', '),
        ${literal(schema)}, kc.collection, array_to_string(kc.columns, ', '))
        INTO dup USING written;
      conflict := jsonb_build_object('collection', kc.collection, 'id', coalesce(dup, written[1]),
        'reason', 'unique', 'key', kc.key);
      RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
    END;
    ${setConstraints('DEFERRED')}
    -- Failed guards (and no conflict of another kind): nothing of these writes is kept.
    IF chosen IS NULL AND jsonb_array_length(failed) > 0 THEN
      conflict := failed -> 0;
      RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
    END IF;
    PERFORM set_config('promo_engine.commits', (n + 1)::text, true);
    -- The answer, from what the steps reported (per entity its last write; no query of the feed).
    result := jsonb_build_object('ok', true, 'seq', seqv, 'versions', jsonb_strip_nulls(vers), 'values', vals, 'shapes', shps);
    -- Last: the sequence number from the one-row counter. Its row lock is held until the transaction
    -- commits, so commits become visible in sequence order: a reader who has seen n has seen every
    -- commit numbered below n, and the feed lists the writes of one row in the order they were made.
    UPDATE ${s}.pe_feed SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO final_seq;
    UPDATE ${s}.pe_changes SET seq = final_seq WHERE seq = seqv;
    result := jsonb_set(result, '{seq}', to_jsonb(final_seq));
    EXIT;
  EXCEPTION
    WHEN SQLSTATE 'PE001' THEN
      -- Only failed guards (a conflict of another kind raised on its own): the first alternative that
      -- answers them is applied in place of the writes, in a round of its own (the same rules as
      -- chooseAlternative in src/storage/ports.ts).
      IF chosen IS NULL AND jsonb_array_length(failed) > 0 AND conflict ->> 'reason' = 'guard' THEN
        SELECT al.ord - 1 INTO chosen FROM jsonb_array_elements(p -> 'alternatives') WITH ORDINALITY AS al(alt, ord)
        WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(failed) fg
            WHERE fg ->> 'collection' = al.alt -> 'when' ->> 'c' AND fg ->> 'id' = al.alt -> 'when' ->> 'id'
              AND fg -> 'guard' ->> 'path' = al.alt -> 'when' ->> 'path')
          AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(failed) fg
            WHERE fg ->> 'collection' = al.alt -> 'when' ->> 'c' AND fg ->> 'id' = al.alt -> 'when' ->> 'id'
              AND fg -> 'guard' ->> 'path' = al.alt -> 'when' ->> 'path'
              AND ((al.alt -> 'when' ? 'min' AND (fg -> 'guard' ->> 'value')::float8 < (al.alt -> 'when' ->> 'min')::float8)
                OR (al.alt -> 'when' ? 'max' AND (fg -> 'guard' ->> 'value')::float8 > (al.alt -> 'when' ->> 'max')::float8)))
          AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(failed) fg
            WHERE NOT (fg ->> 'collection' = al.alt -> 'when' ->> 'c' AND fg ->> 'id' = al.alt -> 'when' ->> 'id'
                AND fg -> 'guard' ->> 'path' = al.alt -> 'when' ->> 'path')
              AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(al.alt -> 'tolerate', '[]'::jsonb)) tl
                WHERE tl ->> 'c' = fg ->> 'collection' AND tl ->> 'id' = fg ->> 'id' AND tl ->> 'path' = fg -> 'guard' ->> 'path'))
        ORDER BY al.ord LIMIT 1;
        IF chosen IS NOT NULL THEN
          todo := p -> 'alternatives' -> chosen -> 'steps';
          pause := NULL;
          -- The alternative's own guards fail as in a changeset without alternatives.
          collect := false;
          CONTINUE;
        END IF;
      END IF;
      RETURN jsonb_build_object('ok', false, 'conflict', conflict);
    WHEN deadlock_detected OR serialization_failure OR lock_not_available THEN
      RETURN jsonb_build_object('ok', false, 'conflict',
        jsonb_build_object('collection', step ->> 'c', 'id', coalesce(step -> 'rows' -> 0 ->> 'id', ''), 'reason', 'version'));
  END;
  END LOOP;
  IF chosen IS NOT NULL THEN
    RETURN result || jsonb_build_object('alternative', jsonb_build_object('index', chosen, 'failed', failed));
  END IF;
  RETURN result;
END $fn$;`
}

/**
 * One collection's step (docs/postgres.md#commit). Returns what it wrote, `{v, x, s}` (per entity
 * `collection/id`: its version, null when deleted; for increments its value after and its shape), or
 * `{conflict}`, or, collecting for alternatives, also `{failed}` (the guards that failed, written anyway).
 */
function writer(schema: string, collection: string): string {
  const s = quote(schema)
  const t = `${s}.${quote(collection)}`
  const c = literal(collection)
  const feed = `INSERT INTO ${s}.pe_changes AS f (seq, pos, collection, id, op, version, value, shape)`
  // A later round's write of the same entity replaces its change: per entity, the last write.
  const replace =
    'ON CONFLICT (seq, pos) DO UPDATE SET op = excluded.op, version = excluded.version, value = excluded.value, shape = excluded.shape'
  const conflictOf = (reason: string) =>
    `jsonb_build_object('conflict', jsonb_build_object('collection', ${c}, 'id', bad, 'reason', ${reason}))`
  const slot = (id: string) => `${c} || '/' || ${id}`
  const incRows =
    "jsonb_to_recordset(step -> 'rows') AS x(op text, id text, pos integer, n integer, ap text[], av float8[], sp text[], sv jsonb, g jsonb, cr jsonb, s integer)"
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
  const written = (rows: string) => `(SELECT jsonb_object_agg(${slot('u.id')}, u.version) FROM ${rows} u),
      (SELECT jsonb_object_agg(${slot('u.id')}, u.value) FROM ${rows} u), (SELECT jsonb_object_agg(${slot('u.id')}, u.shape) FROM ${rows} u)`
  const merge = `out := jsonb_build_object('v', coalesce(out -> 'v', '{}'::jsonb) || coalesce(vs, '{}'::jsonb),
      'x', coalesce(out -> 'x', '{}'::jsonb) || coalesce(xs, '{}'::jsonb), 's', coalesce(out -> 's', '{}'::jsonb) || coalesce(ss, '{}'::jsonb));
    IF earlier IS NOT NULL THEN
      failed := CASE WHEN failed IS NULL THEN earlier
        ELSE (SELECT jsonb_agg(e ORDER BY e ->> 'id', e -> 'guard' ->> 'path') FROM jsonb_array_elements(earlier || failed) e) END;
    END IF;`
  const outcome = `IF bad IS NOT NULL THEN RETURN ${conflictOf("'missing'")}; END IF;
    ${merge}
    IF failed IS NOT NULL THEN
      IF NOT collect THEN RETURN jsonb_build_object('conflict', failed -> 0); END IF;
      RETURN out || jsonb_build_object('failed', failed);
    END IF;
    RETURN out;`
  return `
CREATE OR REPLACE FUNCTION ${writerFunction(schema, collection)}(seqv bigint, step jsonb, collect boolean) RETURNS jsonb
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
  out jsonb := '{}'::jsonb;
  existing integer := (step ->> 'upd')::integer + (step ->> 'del')::integer + (step ->> 'inc')::integer;
BEGIN
  -- Increments only, some creating their row (the counter rows of a redemption): one statement adds
  -- to the rows that exist and inserts those that do not (as \`create\` gives them, version 0), in id
  -- order, records the changes and checks the guards of the rows it added to. The rows it inserted
  -- (a new day's counter, a new customer's) get their increment from the statement below. A row
  -- without \`create\` that did not exist is reported missing, and rolled back with the commit.
  IF existing = (step ->> 'inc')::integer AND (step ->> 'ins')::integer = 0 AND (step ->> 'cr')::integer > 0 THEN
    WITH x AS (SELECT * FROM ${incRows}),
      u AS (INSERT INTO ${t} AS t (id, value, version, shape)
          SELECT x.id, coalesce(x.cr, '{}'::jsonb) || jsonb_build_object('id', x.id), 0, x.s FROM x ORDER BY x.id
        ON CONFLICT (id) DO UPDATE SET version = t.version + (SELECT x.n FROM x WHERE x.id = excluded.id),
          value = (SELECT ${s}.pe_apply(t.value, x.ap, x.av, x.sp, x.sv) FROM x WHERE x.id = excluded.id)
        RETURNING t.id, t.version, t.value, t.shape),
      f AS (${feed} SELECT seqv, x.pos, ${c}, u.id, 'put', u.version, u.value, u.shape FROM u JOIN x ON x.id = u.id
        WHERE u.version > 0 ${replace}),
      added AS (SELECT * FROM u WHERE u.version > 0)
    SELECT (SELECT min(x.id) FROM x JOIN u ON u.id = x.id WHERE x.cr IS NULL AND u.version = 0),
        (SELECT array_agg(u.id) FROM u WHERE u.version = 0), ${guards('added')}, ${written('added')}
      INTO bad, fresh, failed, vs, xs, ss;
    IF fresh IS NULL THEN
      ${outcome}
    END IF;
    IF bad IS NOT NULL THEN RETURN ${conflictOf("'missing'")}; END IF;
    ${merge}
    earlier := failed;
  ELSE
    -- The rows that exist, locked in id order before any is written (one row alone needs no statement of its own).
    IF existing > 1 OR (existing = 1 AND (step ->> 'ins')::integer + (step ->> 'cr')::integer > 0) THEN
      PERFORM 1 FROM ${t} WHERE id IN (SELECT x ->> 'id' FROM jsonb_array_elements(step -> 'rows') x WHERE x ->> 'op' <> 'ins')
        ORDER BY id FOR UPDATE;
    END IF;
    -- New entities, and the counter rows an increment creates (version 0: the increment makes it n).
    IF (step ->> 'ins')::integer + (step ->> 'cr')::integer > 0 THEN
      WITH x AS (SELECT * FROM jsonb_to_recordset(step -> 'rows') AS x(op text, id text, v jsonb, s integer, pos integer, cr jsonb)
          WHERE x.op = 'ins' OR (x.op = 'inc' AND jsonb_typeof(x.cr) = 'object')),
        i AS (INSERT INTO ${t} (id, value, version, shape)
          SELECT x.id, CASE WHEN x.op = 'ins' THEN x.v ELSE x.cr || jsonb_build_object('id', x.id) END,
            CASE WHEN x.op = 'ins' THEN 1 ELSE 0 END, x.s FROM x ORDER BY x.id
          ON CONFLICT (id) DO NOTHING RETURNING id, version),
        f AS (${feed} SELECT seqv, x.pos, ${c}, x.id, 'put', 1, x.v, x.s FROM x JOIN i ON i.id = x.id WHERE i.version = 1 ${replace})
      SELECT min(x.id) FILTER (WHERE x.op = 'ins' AND i.id IS NULL),
          jsonb_object_agg(${slot('i.id')}, 1) FILTER (WHERE x.op = 'ins' AND i.id IS NOT NULL)
        INTO bad, vs FROM x LEFT JOIN i ON i.id = x.id;
      IF bad IS NOT NULL THEN RETURN ${conflictOf("'exists'")}; END IF;
      out := jsonb_build_object('v', coalesce(vs, '{}'::jsonb));
    END IF;
    IF (step ->> 'upd')::integer > 0 THEN
      WITH x AS (SELECT * FROM jsonb_to_recordset(step -> 'rows') AS x(op text, id text, v jsonb, ev integer, s integer, pos integer)
          WHERE x.op = 'upd'),
        u AS (UPDATE ${t} t SET value = x.v, version = t.version + 1, shape = x.s FROM x
          WHERE t.id = x.id AND t.version = x.ev RETURNING t.id, t.version, x.pos, x.v, x.s),
        f AS (${feed} SELECT seqv, u.pos, ${c}, u.id, 'put', u.version, u.v, u.s FROM u ${replace})
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
      WITH x AS (SELECT * FROM jsonb_to_recordset(step -> 'rows') AS x(op text, id text, ev integer, pos integer)
          WHERE x.op = 'del'),
        d AS (DELETE FROM ${t} t USING x WHERE t.id = x.id AND t.version = x.ev RETURNING t.id, t.version, x.pos),
        f AS (${feed} SELECT seqv, d.pos, ${c}, d.id, 'delete', d.version, NULL, NULL FROM d ${replace})
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
    WITH x AS (SELECT * FROM ${incRows} WHERE x.op = 'inc' AND (fresh IS NULL OR x.id = ANY(fresh))),
      u AS (UPDATE ${t} t SET value = ${s}.pe_apply(t.value, x.ap, x.av, x.sp, x.sv), version = t.version + x.n FROM x
        WHERE t.id = x.id RETURNING t.id, t.version, t.value, t.shape),
      f AS (${feed} SELECT seqv, x.pos, ${c}, u.id, 'put', u.version, u.value, u.shape FROM u JOIN x ON x.id = u.id ${replace})
    SELECT (SELECT min(x.id) FROM x WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.id = x.id)), ${guards('u')}, ${written('u')}
      INTO bad, failed, vs, xs, ss;
    ${outcome}
  END IF;
  RETURN out;
END $fn$;`
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}
