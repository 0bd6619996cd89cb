import { quote, type TableLayout } from './columns'

/*
 * The commit as one PL/pgSQL function, installed by `migrate()`: the adapter sends the changeset
 * once, as JSON, so a busy row's lock is held for the time the server takes to apply it, not for a
 * round trip per write (docs/postgres.md#commit).
 *
 * The writes arrive sorted: by (collection, id), entities with a guarded increment last, several
 * writes to one entity in the order the changeset gave them. Two commits therefore lock shared rows
 * in the same order and cannot deadlock, and the hottest rows (counters, quantities, balances) are
 * locked last and held shortest.
 *
 * Everything runs inside a block with an exception handler, which PostgreSQL runs as a
 * subtransaction: a conflict raises, the block's writes roll back, and the conflict is returned as
 * data. In the host's own transaction this leaves the host's earlier work untouched. When the
 * changeset carries alternatives and only guards failed, the block runs again with the alternative
 * chosen (a second subtransaction in the same transaction): one commit either way.
 *
 * The change feed's sequence number is taken from a one-row counter by the last statements: its row
 * lock is held until the transaction commits, so commits become visible in sequence order, and a
 * reader who has seen sequence n has seen every commit numbered below n (none can appear late).
 */
export function commitFunction(schema: string, layouts: readonly TableLayout[]): string {
  const s = quote(schema)
  const constraints = layouts.flatMap((l) => l.keys.map((k) => `${s}.${quote(k.constraint)}`))
  const keyConstraints = constraints.length > 0 ? constraints.join(', ') : ''
  const setConstraints = (mode: string) => (keyConstraints === '' ? '' : `SET CONSTRAINTS ${keyConstraints} ${mode};`)
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

CREATE OR REPLACE FUNCTION ${s}.pe_commit(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  w jsonb;
  t text;
  wid text;
  slot text;
  ver integer;
  found_version integer;
  cur_value jsonb;
  cur_version integer;
  cur_shape integer;
  next_value jsonb;
  g record;
  inc record;
  n float8;
  lim float8;
  pl text;
  attempt integer;
  -- One entry per write, appended (O(1) each: a changeset of 5,000 writes must not cost 5,000²).
  entries jsonb[] := '{}';
  conflict jsonb;
  seqv bigint;
  cname text;
  kc record;
  dup text;
  written text[];
  pause jsonb := p -> 'pause';
  k integer := 0;
  versions jsonb := '{}'::jsonb;
  vals jsonb := '{}'::jsonb;
  shapes jsonb := '{}'::jsonb;
  -- Alternatives (docs/storage.md#alternatives): with some, a failed guard does not stop the writes;
  -- every failed guard is collected, and the alternative chosen is applied in a second round.
  todo jsonb := p -> 'writes';
  collect boolean := jsonb_array_length(coalesce(p -> 'alternatives', '[]'::jsonb)) > 0;
  failed jsonb := '[]'::jsonb;
  chosen integer;
  lk record;
BEGIN
  -- Concurrent inserts of one natural key queue on a lock of that key, taken first and in one order,
  -- instead of each finding the other's row in the deferred unique check and deadlocking there.
  FOR lk IN SELECT DISTINCT hashtextextended(x, 0) AS h
    FROM jsonb_array_elements_text(coalesce(p -> 'keys', '[]'::jsonb)) AS x ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock(lk.h);
  END LOOP;
  LOOP
  BEGIN
    k := 0;
    entries := '{}';
    FOR w IN SELECT value FROM jsonb_array_elements(todo) LOOP
      k := k + 1;
      t := format('%I.%I', ${literal(schema)}, w ->> 'c');
      wid := w ->> 'id';
      slot := (w ->> 'c') || '/' || wid;
      IF w ->> 'op' = 'put' THEN
        IF jsonb_typeof(w -> 'ev') = 'null' THEN
          EXECUTE format('INSERT INTO %s (id, value, version, shape) VALUES ($1, $2, 1, $3) ON CONFLICT (id) DO NOTHING RETURNING version', t)
            INTO ver USING wid, w -> 'v', (w ->> 's')::integer;
          IF ver IS NULL THEN
            conflict := jsonb_build_object('collection', w ->> 'c', 'id', wid, 'reason', 'exists');
            RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
          END IF;
        ELSE
          EXECUTE format('UPDATE %s SET value = $2, version = version + 1, shape = $3 WHERE id = $1 AND version = $4 RETURNING version', t)
            INTO ver USING wid, w -> 'v', (w ->> 's')::integer, (w ->> 'ev')::integer;
          IF ver IS NULL THEN
            EXECUTE format('SELECT version FROM %s WHERE id = $1', t) INTO found_version USING wid;
            conflict := jsonb_build_object('collection', w ->> 'c', 'id', wid,
              'reason', CASE WHEN found_version IS NULL THEN 'missing' ELSE 'version' END);
            RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
          END IF;
        END IF;
        entries := array_append(entries, jsonb_build_object('slot', slot, 'c', w ->> 'c', 'id', wid, 'pos', w -> 'pos',
          'op', 'put', 'version', ver, 'value', w -> 'v', 'shape', w -> 's', 'inc', false));
      ELSIF w ->> 'op' = 'delete' THEN
        EXECUTE format('DELETE FROM %s WHERE id = $1 AND version = $2 RETURNING version', t)
          INTO ver USING wid, (w ->> 'ev')::integer;
        IF ver IS NULL THEN
          EXECUTE format('SELECT version FROM %s WHERE id = $1', t) INTO found_version USING wid;
          conflict := jsonb_build_object('collection', w ->> 'c', 'id', wid,
            'reason', CASE WHEN found_version IS NULL THEN 'missing' ELSE 'version' END);
          RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
        END IF;
        entries := array_append(entries, jsonb_build_object('slot', slot, 'c', w ->> 'c', 'id', wid, 'pos', w -> 'pos',
          'op', 'delete', 'version', ver, 'value', NULL, 'inc', false));
      ELSE
        -- An increment: lock the newest row, add, check the guards on the result, write.
        attempt := 0;
        LOOP
          attempt := attempt + 1;
          EXECUTE format('SELECT value, version, shape FROM %s WHERE id = $1 FOR UPDATE', t)
            INTO cur_value, cur_version, cur_shape USING wid;
          IF cur_version IS NULL THEN
            IF jsonb_typeof(w -> 'create') IS DISTINCT FROM 'object' THEN
              conflict := jsonb_build_object('collection', w ->> 'c', 'id', wid, 'reason', 'missing');
              RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
            END IF;
            cur_value := (w -> 'create') || jsonb_build_object('id', wid);
            cur_version := 0;
            cur_shape := (w ->> 's')::integer;
          END IF;
          next_value := cur_value;
          FOR inc IN SELECT key, value FROM jsonb_each(w -> 'by') LOOP
            next_value := ${s}.pe_add(next_value, string_to_array(inc.key, '.'), (inc.value #>> '{}')::float8);
          END LOOP;
          FOR inc IN SELECT key, value FROM jsonb_each(coalesce(w -> 'set', '{}'::jsonb)) LOOP
            next_value := ${s}.pe_set(next_value, string_to_array(inc.key, '.'), inc.value);
          END LOOP;
          -- A guard compares the field plus its \`plus\` fields with min, max and the bound stored in
          -- the row at commit (\`maxOf\`), as guardCheck in src/ports.ts does.
          FOR g IN SELECT key, value FROM jsonb_each(coalesce(w -> 'guard', '{}'::jsonb)) LOOP
            n := CASE WHEN jsonb_typeof(next_value #> string_to_array(g.key, '.')) = 'number'
              THEN (next_value #> string_to_array(g.key, '.'))::float8 ELSE 0 END;
            FOR pl IN SELECT jsonb_array_elements_text(coalesce(g.value -> 'plus', '[]'::jsonb)) LOOP
              IF jsonb_typeof(next_value #> string_to_array(pl, '.')) = 'number' THEN
                n := n + (next_value #> string_to_array(pl, '.'))::float8;
              END IF;
            END LOOP;
            lim := CASE WHEN g.value ? 'max' THEN (g.value ->> 'max')::float8 END;
            IF g.value ? 'maxOf' AND jsonb_typeof(next_value #> string_to_array(g.value ->> 'maxOf', '.')) = 'number' THEN
              lim := least(lim, (next_value #> string_to_array(g.value ->> 'maxOf', '.'))::float8);
            END IF;
            IF (g.value ? 'min' AND n < (g.value ->> 'min')::float8) OR (lim IS NOT NULL AND n > lim) THEN
              conflict := jsonb_build_object('collection', w ->> 'c', 'id', wid, 'reason', 'guard',
                'guard', jsonb_build_object('path', g.key, 'value', to_jsonb(n)) || g.value
                  || CASE WHEN lim IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('max', to_jsonb(lim)) END);
              IF NOT collect OR chosen IS NOT NULL THEN
                RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
              END IF;
              -- Written anyway, so later writes see it; the round rolls back below.
              failed := failed || jsonb_build_array(conflict);
            END IF;
          END LOOP;
          IF cur_version > 0 THEN
            EXECUTE format('UPDATE %s SET value = $2, version = version + 1 WHERE id = $1 RETURNING version', t)
              INTO ver USING wid, next_value;
            EXIT;
          END IF;
          EXECUTE format('INSERT INTO %s (id, value, version, shape) VALUES ($1, $2, 1, $3) ON CONFLICT (id) DO NOTHING RETURNING version', t)
            INTO ver USING wid, next_value, cur_shape;
          -- Another commit created the row first: increment the row it created.
          EXIT WHEN ver IS NOT NULL OR attempt >= 3;
        END LOOP;
        IF ver IS NULL THEN
          conflict := jsonb_build_object('collection', w ->> 'c', 'id', wid, 'reason', 'version');
          RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
        END IF;
        entries := array_append(entries, jsonb_build_object('slot', slot, 'c', w ->> 'c', 'id', wid, 'pos', w -> 'pos',
          'op', 'put', 'version', ver, 'value', next_value, 'shape', cur_shape, 'inc', true));
      END IF;
      -- A testing hook (the adapter's commit hook): sleep after write k so a test can kill the client there.
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
      SELECT array_agg(DISTINCT e ->> 'id') INTO written FROM unnest(entries) e
        WHERE e ->> 'c' = kc.collection AND e ->> 'op' = 'put';
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

    -- Last: the sequence number (see above), then the change feed rows: per entity its last write,
    -- flagged when any of its writes was an increment.
    UPDATE ${s}.pe_feed SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO seqv;
    INSERT INTO ${s}.pe_changes (seq, pos, collection, id, op, version, value, shape)
      SELECT seqv, (x ->> 'pos')::integer, x ->> 'c', x ->> 'id', x ->> 'op', (x ->> 'version')::integer,
        CASE WHEN x ->> 'op' = 'put' THEN x -> 'value' END, (x ->> 'shape')::integer
      FROM (SELECT DISTINCT ON (u.x ->> 'slot') u.x ->> 'slot' AS eslot, u.x AS x,
        bool_or((u.x ->> 'inc')::boolean) OVER (PARTITION BY u.x ->> 'slot') AS einc
      FROM unnest(entries) WITH ORDINALITY AS u(x, n) ORDER BY u.x ->> 'slot', u.n DESC) f;
    SELECT coalesce(jsonb_object_agg(eslot, x -> 'version') FILTER (WHERE x ->> 'op' = 'put'), '{}'::jsonb),
           coalesce(jsonb_object_agg(eslot, x -> 'value') FILTER (WHERE einc AND x ->> 'op' = 'put'), '{}'::jsonb),
           coalesce(jsonb_object_agg(eslot, x -> 'shape') FILTER (WHERE einc AND x ->> 'op' = 'put'), '{}'::jsonb)
      INTO versions, vals, shapes FROM (SELECT DISTINCT ON (u.x ->> 'slot') u.x ->> 'slot' AS eslot, u.x AS x,
        bool_or((u.x ->> 'inc')::boolean) OVER (PARTITION BY u.x ->> 'slot') AS einc
      FROM unnest(entries) WITH ORDINALITY AS u(x, n) ORDER BY u.x ->> 'slot', u.n DESC) f;
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
          todo := p -> 'alternatives' -> chosen -> 'writes';
          pause := NULL;
          CONTINUE;
        END IF;
      END IF;
      RETURN jsonb_build_object('ok', false, 'conflict', conflict);
    WHEN deadlock_detected OR serialization_failure OR lock_not_available THEN
      RETURN jsonb_build_object('ok', false, 'conflict',
        jsonb_build_object('collection', w ->> 'c', 'id', wid, 'reason', 'version'));
  END;
  END LOOP;
  IF chosen IS NOT NULL THEN
    RETURN jsonb_build_object('ok', true, 'seq', seqv, 'versions', versions, 'values', vals, 'shapes', shapes,
      'alternative', jsonb_build_object('index', chosen, 'failed', failed));
  END IF;
  RETURN jsonb_build_object('ok', true, 'seq', seqv, 'versions', versions, 'values', vals, 'shapes', shapes);
END $fn$;`
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}
