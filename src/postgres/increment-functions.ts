/*
 * How an increment applies and how a guard reads its field (docs/storage.md#counters), as the SQL
 * functions the commit's writers call (collection-writers.ts): the same rules as the memory store's and
 * `guardCheck` in src/storage/ports.ts.
 */

export function incrementFunctions(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.pe_add(v jsonb, path text[], amount float8) RETURNS jsonb
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
BEGIN
  -- A top-level field (a counter's) without an array variable: assigning one costs more than the addition.
  FOR i IN 1 .. coalesce(array_length(ap, 1), 0) LOOP
    IF strpos(ap[i], '.') = 0 AND ap[i] <> '' AND jsonb_typeof(v) = 'object' THEN
      v := v || jsonb_build_object(ap[i],
        CASE WHEN jsonb_typeof(v -> ap[i]) = 'number' THEN (v -> ap[i])::float8 ELSE 0 END + av[i]);
    ELSE
      v := ${s}.pe_add(v, string_to_array(ap[i], '.'), av[i]);
    END IF;
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(sp, 1), 0) LOOP
    v := ${s}.pe_set(v, string_to_array(sp[i], '.'), sv -> (i - 1));
  END LOOP;
  RETURN v;
END $$;

-- An increment as pe_commit applies it to one row (docs/postgres.md#commit), its payload row read with
-- operators (no record built from it, no function scan to join): its additions, its assignments,
-- its removals, as pe_apply; a top-level field, or one of an object a level down (a code's quantity),
-- without a call of pe_add or pe_set. Then its guards (\`gk\`: their paths, listed by the adapter, so
-- that a loop over an array walks them without a query), as pe_guarded and pe_bound read them: one
-- failing raises PE003 with the value after the increment, and pe_commit lists the failed guards.
CREATE OR REPLACE FUNCTION ${s}.pe_inc(v jsonb, r jsonb) RETURNS jsonb
  LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  ap jsonb := r -> 'ap';
  f text;
  p text[];
  g jsonb;
  n float8;
BEGIN
  FOR i IN 0 .. coalesce(jsonb_array_length(ap), 0) - 1 LOOP
    f := ap ->> i;
    IF strpos(f, '.') = 0 AND f <> '' AND jsonb_typeof(v) = 'object' THEN
      v := v || jsonb_build_object(f,
        CASE WHEN jsonb_typeof(v -> f) = 'number' THEN (v -> f)::float8 ELSE 0 END + ${s}.pe_float(r -> 'av' -> i));
    ELSE
      p := string_to_array(f, '.');
      IF array_length(p, 1) = 2 AND jsonb_typeof(v -> p[1]) = 'object' THEN
        v := jsonb_set(v, p, to_jsonb(
          CASE WHEN jsonb_typeof(v #> p) = 'number' THEN (v #> p)::float8 ELSE 0 END + ${s}.pe_float(r -> 'av' -> i)));
      ELSE
        v := ${s}.pe_add(v, p, ${s}.pe_float(r -> 'av' -> i));
      END IF;
    END IF;
  END LOOP;
  IF r ? 'sp' THEN
    FOR i IN 0 .. jsonb_array_length(r -> 'sp') - 1 LOOP
      f := r -> 'sp' ->> i;
      IF strpos(f, '.') = 0 AND f <> '' AND jsonb_typeof(v) = 'object' THEN
        v := v || jsonb_build_object(f, r -> 'sv' -> i);
      ELSE
        v := ${s}.pe_set(v, string_to_array(f, '.'), r -> 'sv' -> i);
      END IF;
    END LOOP;
  END IF;
  IF r ? 'up' THEN
    FOR i IN 0 .. jsonb_array_length(r -> 'up') - 1 LOOP
      v := v - (r -> 'up' ->> i);
    END LOOP;
  END IF;
  IF r ? 'gk' THEN
    FOR i IN 0 .. jsonb_array_length(r -> 'gk') - 1 LOOP
      f := r -> 'gk' ->> i;
      g := r -> 'g' -> f;
      n := ${s}.pe_num(v #> string_to_array(f, '.'));
      IF jsonb_typeof(g -> 'plus') = 'array' THEN
        FOR j IN 0 .. jsonb_array_length(g -> 'plus') - 1 LOOP
          n := n + ${s}.pe_num(v #> string_to_array(g -> 'plus' ->> j, '.'));
        END LOOP;
      END IF;
      IF (g ? 'min' AND n < (g ->> 'min')::float8) OR n > ${s}.pe_bound(v, g) THEN
        RAISE EXCEPTION USING ERRCODE = 'PE003', MESSAGE = v::text;
      END IF;
    END LOOP;
  END IF;
  RETURN v;
END $$;

-- A payload's number as the writers' float8[] columns read it (a JSON null, or anything not a number: NULL).
CREATE OR REPLACE FUNCTION ${s}.pe_float(v jsonb) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN v::float8 END $$;

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

-- The guards of one incremented row that failed, as conflicts (in the writers' form and order), for a
-- row whose increment pe_inc refused.
CREATE OR REPLACE FUNCTION ${s}.pe_failed(c text, id text, v jsonb, g jsonb) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_agg(jsonb_build_object('collection', c, 'id', id, 'reason', 'guard',
      'guard', jsonb_build_object('path', f.key, 'value', to_jsonb(f.n)) || f.value
        || CASE WHEN f.lim IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('max', to_jsonb(f.lim)) END) ORDER BY f.key)
    FROM (SELECT e.key, e.value, ${s}.pe_guarded(v, e.key, e.value) AS n, ${s}.pe_bound(v, e.value) AS lim
      FROM jsonb_each(coalesce(g, '{}'::jsonb)) e) f
    WHERE (f.value ? 'min' AND f.n < (f.value ->> 'min')::float8) OR f.n > f.lim $$;`
}
