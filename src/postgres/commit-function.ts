import { OWN_STEPS } from './changeset'
import { collectionWriter, writerFunction } from './collection-writers'
import { literal, quote, type TableLayout } from './columns'
import { incrementStatement, insertStatement, upsertStatements } from './commit-statements'
import { FEED_OF_STEPS, FEED_ONCE, FEED_ROWS, feedInsert } from './feed-rows'
import { incrementFunctions } from './increment-functions'
import { takeFunction, takeFunctionName } from './take-function'

/*
 * The commit as PL/pgSQL functions, installed by `migrate()` (docs/postgres.md#commit): the adapter
 * sends the changeset once, as JSON, so a busy row's lock is held for the time the server takes to
 * apply it, not for a round trip per write.
 *
 * Every statement is static: one function per collection (`pe_w_<collection>`) holds that table's
 * statements, planned once per connection and reused, and `pe_commit` calls them step by step (a
 * step that only inserts new entities it applies itself, with that table's static insert). The
 * adapter groups the writes into steps (src/postgres/changeset.ts: one collection, one round, rows by
 * id, entities with a guarded increment last), and each step runs at most five statements whatever
 * its size: lock the existing rows it writes, in id order; insert (new entities and counter rows
 * made by `create`); update under a version check; delete under a version check; increment and check
 * the guards. Two commits therefore lock shared rows in the same order and cannot deadlock: the
 * statements that write without the lock statement before them write new rows only, or one existing
 * row, or take their locks in id order themselves (the upsert inserts and updates its rows in id
 * order), and entities with a guarded increment (the hot rows) come last.
 *
 * Everything runs inside a block with an exception handler, which PostgreSQL runs as a
 * subtransaction: a conflict raises, the block's writes roll back, and the conflict is returned as
 * data. In the host's own transaction this leaves the host's earlier work untouched. When the
 * changeset carries alternatives and only guards failed, the block runs again with the alternative
 * chosen (a second subtransaction in the same transaction): one commit either way.
 *
 * The change feed's position is the id of a subtransaction begun after the last write
 * (docs/postgres.md#change-feed-and-late-commits): the steps write no feed rows; that subtransaction
 * writes them, each once, under the final number, built from the payload and what the steps
 * reported. No row is taken by every commit.
 */

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
  // A CASE statement, not one CASE expression: PL/pgSQL sets an expression up again in every
  // transaction, and one naming every writer looked each of them up (about 30 functions) for every
  // commit. An arm is set up only when reached, so the collections a redemption writes come first.
  const hotFirst = (first: readonly string[]) => [
    ...first.flatMap((c) => layouts.filter((l) => l.collection === c)),
    ...layouts.filter((l) => !first.includes(l.collection)),
  ]
  const dispatch = hotFirst(['counters', 'vouchers', 'customers'])
    .map((l) => `WHEN ${literal(l.collection)} THEN r := ${writerFunction(schema, l.collection)}(step, collect);`)
    .join('\n          ')
  // The steps pe_commit applies itself (OWN_STEPS, src/postgres/changeset.ts): one CASE statement
  // whose arms are in the order of a checkout's steps; each WHEN is an expression of its own, set up in
  // every transaction when reached and tested in turn. Only these: PostgreSQL compiles the whole
  // function in every new session before its first call, and an arm for every kind of every
  // collection made it 240 kB of source, 10–13 ms a connection (docs/postgres.md#tuning).
  const own = new Map<string, string>()
  for (const l of layouts) {
    own.set(`i ${l.collection}`, `${insertStatement(schema, l)};`)
    own.set(`u ${l.collection}`, upsertStatements(schema, l))
    own.set(`g ${l.collection}`, incrementStatement(schema, l))
  }
  const arms = OWN_STEPS.filter((k) => own.has(k))
    .map((k) => `WHEN ${literal(k)} THEN\n          ${own.get(k)}`)
    .join('\n        ')
  // An earlier release's writers also took the provisional feed number: those overloads go.
  const dropOld = [...layouts.map((l) => writerFunction(schema, l.collection)), takeFunctionName(schema)]
    .map((f) => `DROP FUNCTION IF EXISTS ${f}(bigint, jsonb, boolean);`)
    .join('\n')
  return `
${incrementFunctions(s)}

${dropOld}
${layouts.map((l) => collectionWriter(schema, l)).join('\n')}
${layouts
  .filter((l) => l.collection === 'points_buckets')
  .map((l) => takeFunction(schema, l, layouts))
  .join('\n')}

CREATE OR REPLACE FUNCTION ${s}.pe_commit(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  step jsonb;
  r jsonb;
  own boolean;
  conflict jsonb;
  seqv bigint;
  final_seq bigint;
  top bigint;
  sub bigint;
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
  keyed jsonb := p -> 'uk';
  -- What the steps wrote, per entity: its version (null: deleted); for increments its value and shape.
  vers jsonb;
  vals jsonb;
  shps jsonb;
  -- For the feed: how many steps were takes (every other step writes rows), the takes' buckets (in
  -- the order taken) and the values takes left in their records.
  nt integer;
  takes jsonb;
  recs jsonb;
  -- The rows an upsert of pe_commit's own inserted.
  fresh text[];
  collect boolean := jsonb_array_length(coalesce(p -> 'alternatives', '[]'::jsonb)) > 0;
  failed jsonb := '[]'::jsonb;
  chosen integer;
  choices integer := 0;
BEGIN
  -- Only activities appended, and the host opted in (docs/postgres.md#asynchronous-activity-commits):
  -- this transaction alone returns before its WAL record is flushed.
  IF p ? 'async' THEN PERFORM set_config('synchronous_commit', 'off', true); END IF;
  -- Concurrent inserts of one natural key queue on a lock of that key, taken first and in one order,
  -- instead of each finding the other's row in the deferred unique check and deadlocking there.
  IF p ? 'keys' THEN
    PERFORM pg_advisory_xact_lock(q.h) FROM (SELECT DISTINCT hashtextextended(x, 0) AS h
      FROM jsonb_array_elements_text(p -> 'keys') AS x ORDER BY 1) q;
  END IF;
  -- A provisional feed number, unique to this commit: minus the transaction's id (a host's transaction
  -- committing twice removed its first commit's placeholder before the second starts).
  seqv := -(pg_current_xact_id()::text::bigint);
  LOOP
  BEGIN
    k := 0;
    vers := '{}'::jsonb;
    vals := '{}'::jsonb;
    shps := '{}'::jsonb;
    nt := 0;
    takes := '[]'::jsonb;
    recs := '{}'::jsonb;
    -- By index, not over a query of the array: no cursor to open for every commit.
    FOR i IN 0 .. jsonb_array_length(todo) - 1 LOOP
      step := todo -> i;
      k := k + 1;
      -- The steps of a checkout (new entities, counters, the code's guarded increment), here rather
      -- than in a writer, whose call and branches cost more than the statement (docs/postgres.md#commit):
      -- the kind the adapter named (\`k\`); any other step, or a kind this function does not apply
      -- itself (an adapter of another release named it), goes to its collection's writer. Inserted
      -- entities' version is 1, which the feed's statement below knows without a report.
      own := step ? 'k';
      IF own THEN
        CASE step ->> 'k'
          ${arms}
        ELSE
          own := false;
        END CASE;
      END IF;
      IF NOT own THEN
        r := NULL;
        IF step ? 'take' THEN
          nt := nt + 1;
          r := ${takeFunctionName(schema)}(step, collect);
        ELSE
          CASE step ->> 'c'
          ${dispatch}
          END CASE;
        END IF;
        IF r IS NOT NULL THEN
          IF r ? 'conflict' THEN
            conflict := r -> 'conflict';
            RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
          END IF;
          -- Failed guards with alternatives: written anyway, so later writes see them; the round rolls back below.
          IF r ? 'failed' THEN failed := failed || (r -> 'failed'); END IF;
          -- A later round's write of an entity replaces what an earlier one reported.
          IF r ? 'v' THEN vers := vers || (r -> 'v'); END IF;
          IF r ? 'f' THEN
            takes := takes || (r -> 'f');
            recs := recs || (r -> 'r');
          END IF;
          IF r ? 'x' THEN
            vals := vals || (r -> 'x');
            shps := shps || (r -> 's');
          END IF;
        END IF;
      END IF;
      -- A testing hook (the adapter's commit hook): sleep after step k so a test can kill the client there.
      IF pause IS NOT NULL AND (pause ->> 'after')::integer = k THEN
        PERFORM pg_sleep((pause ->> 'seconds')::float8);
      END IF;
    END LOOP;

    -- Natural keys, checked on the final state of the changeset; none changed (a redemption whose
    -- order has no source id), no check and no subtransaction for it.
    IF keyed IS NOT NULL THEN
    BEGIN
      ${setConstraints('IMMEDIATE')}
    EXCEPTION WHEN unique_violation THEN
      GET STACKED DIAGNOSTICS cname = CONSTRAINT_NAME;
      SELECT * INTO kc FROM ${s}.pe_keys WHERE constraint_name = cname;
      SELECT array_agg(DISTINCT f.id) INTO written FROM (${FEED_ROWS}) f
        WHERE f.collection = kc.collection AND f.op = 'put';
      EXECUTE format('SELECT id FROM %I.%I WHERE id = ANY($1) AND (%s) IN (SELECT %s FROM %I.%I GROUP BY %s HAVING count(*) > 1) ORDER BY id LIMIT 1',
        ${literal(schema)}, kc.collection, array_to_string(kc.columns, ', '), array_to_string(kc.columns, ', '),
        ${literal(schema)}, kc.collection, array_to_string(kc.columns, ', '))
        INTO dup USING written;
      conflict := jsonb_build_object('collection', kc.collection, 'id', coalesce(dup, written[1]),
        'reason', 'unique', 'key', kc.key);
      RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
    END;
    ${setConstraints('DEFERRED')}
    END IF;
    -- Failed guards (and no conflict of another kind): nothing of these writes is kept.
    IF chosen IS NULL AND jsonb_array_length(failed) > 0 THEN
      conflict := failed -> 0;
      RAISE EXCEPTION 'conflict' USING ERRCODE = 'PE001';
    END IF;
    -- Last: the feed position, the id of a subtransaction begun now, after every row this commit writes
    -- is locked (docs/postgres.md#change-feed-and-late-commits). A commit that writes a row after this
    -- one waited for this transaction to end, so its id, taken later still, is larger: the feed lists
    -- each row's writes in the order they were made. Readers stop below the oldest transaction in
    -- progress, which is older than this id until this transaction ends: none appears late.
    BEGIN
      IF k > nt OR jsonb_array_length(takes) > 0 THEN
        -- The subtransaction's first write gives it its id, which the row written reports as xmin: a
        -- placeholder of a few bytes under the provisional number, removed by the statement that
        -- writes the commit's feed rows, each once, under the final number.
        INSERT INTO ${s}.pe_changes (seq, pos, collection, id, op, version) VALUES (seqv, -1, '', '', 'put', 0)
          RETURNING xmin::text::bigint INTO sub;
        -- As a 64-bit id (it never wraps): the subtransaction's is the transaction's plus less than 2^32.
        top := pg_current_xact_id()::text::bigint;
        final_seq := ${s}.pe_feed_base() + top + (sub - top % 4294967296 + 4294967296) % 4294967296;
        -- With takes, the answer's versions are the feed rows' (per entity its last write; deleted ones
        -- left out). Without, they are what the steps reported (\`wrote\`: the steps that only insert
        -- report nothing), which the adapter completes from its steps: no aggregate of the rows inserted.
        IF jsonb_array_length(takes) > 0 THEN
          ${feedInsert(s, FEED_ROWS)};
        -- No entity written twice (the adapter marks the first step otherwise): nothing to pick the
        -- last write from, no sort.
        ELSIF todo -> 0 ? 'dd' THEN
          ${feedInsert(s, FEED_OF_STEPS, false)};
        ELSE
          ${feedInsert(s, FEED_ONCE, false)};
        END IF;
      ELSE
        -- Nothing written: the position below which the feed is final now.
        final_seq := ${s}.pe_feed_base() + pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1;
        vers := NULL;
      END IF;
    EXCEPTION WHEN SQLSTATE 'PE002' THEN
      -- Never raised: a handler is what makes the block a subtransaction of its own.
      RAISE;
    END;
    result := jsonb_build_object('ok', true, 'seq', final_seq,
      CASE WHEN jsonb_array_length(takes) > 0 THEN 'versions' ELSE 'wrote' END, coalesce(vers, '{}'::jsonb),
      'values', vals, 'shapes', shps);
    EXIT;
  EXCEPTION
    WHEN SQLSTATE 'PE001' OR SQLSTATE 'PE003' THEN
      -- A guard of a step pe_commit applied itself failed (pe_inc): its failed guards, on the value it
      -- gave the row (a round without alternatives: pe_inc checks no guard of a round that collects them).
      IF SQLSTATE = 'PE003' THEN
        GET STACKED DIAGNOSTICS cname = MESSAGE_TEXT;
        conflict := ${s}.pe_failed(step ->> 'c', step -> 'rows' -> 0 ->> 'id', cname::jsonb, step -> 'rows' -> 0 -> 'g') -> 0;
      END IF;
      -- The chosen alternative's own guard failed: the first round's row locks went with its rollback,
      -- so another commit moved a row in between. Choose again on what is stored now (the first round
      -- again, its guards collected anew), a bounded number of times, rather than send the request
      -- back to decide again.
      IF chosen IS NOT NULL AND conflict ->> 'reason' = 'guard' AND choices < 3 THEN
        choices := choices + 1;
        chosen := NULL;
        todo := p -> 'steps';
        collect := true;
        failed := '[]'::jsonb;
        CONTINUE;
      END IF;
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
    WHEN no_data_found THEN
      -- The one row a step pe_commit applies itself increments does not exist (its UPDATE's STRICT).
      RETURN jsonb_build_object('ok', false, 'conflict', jsonb_build_object('collection', step ->> 'c',
        'id', step -> 'rows' -> 0 ->> 'id', 'reason', 'missing'));
    WHEN unique_violation THEN
      -- A step's plain insert of new entities met an id already stored (commit-statements.ts, collection-writers.ts): the
      -- first such id, \`exists\`, as ON CONFLICT reported it. Its rows are rolled back, so an id this
      -- changeset inserted twice is found among its own inserts instead. Any other key raises on.
      GET STACKED DIAGNOSTICS cname = CONSTRAINT_NAME;
      IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = cname AND contype = 'p'
          AND conrelid = format('%I.%I', ${literal(schema)}, step ->> 'c')::regclass) THEN
        RAISE;
      END IF;
      EXECUTE format('SELECT min(id) FROM %I.%I WHERE id = ANY($1)', ${literal(schema)}, step ->> 'c')
        INTO dup USING ARRAY(SELECT x ->> 'id' FROM jsonb_array_elements(step -> 'rows') x WHERE x ->> 'op' = 'ins');
      IF dup IS NULL THEN
        SELECT min(x ->> 'id') INTO dup FROM jsonb_array_elements(step -> 'rows') x
          WHERE x ->> 'op' = 'ins' AND EXISTS (SELECT 1 FROM jsonb_array_elements(todo) WITH ORDINALITY st(v, n), jsonb_array_elements(st.v -> 'rows') y
            WHERE st.n < k AND st.v ->> 'c' = step ->> 'c' AND y ->> 'id' = x ->> 'id');
      END IF;
      RETURN jsonb_build_object('ok', false, 'conflict', jsonb_build_object('collection', step ->> 'c',
        'id', dup, 'reason', 'exists'));
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
