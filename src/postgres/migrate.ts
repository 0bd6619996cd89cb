import { COLLECTIONS } from '../storage/collections'
import type { CollectionName, IndexDeclarations } from '../storage/ports'
import { columnSets, quote, type TableLayout, tableLayout } from './columns'
import { commitFunction } from './commit-function'
import type { Queryable } from './connection'
import { installFeedBase } from './feed-numbering'
import { notifyDdl } from './read-cache'

/*
 * The schema, created and upgraded by `migrate()` (docs/postgres.md#migrations). Numbered steps run
 * once each, recorded in `pe_migrations`; the declared columns and indexes are then reconciled on
 * every run (a new engine release or a host's own `indexes` add them), and the commit function is
 * replaced. Everything runs in one transaction under an advisory lock, so two processes migrating at
 * once take turns and the second finds the work done.
 */

/** Collections whose rows a redemption writes and that pass 2 kB: kept uncompressed up to a page. */
const UNCOMPRESSED: readonly CollectionName[] = ['redemptions']

/**
 * Collections whose rows every redemption updates in place (a code's, a promotion tier's, a reward's
 * counts: rows that many customers' requests share), and the `fillfactor` their tables are made with
 * (docs/postgres.md#rows-updated-in-place). PostgreSQL prunes a page's dead versions when its free
 * space falls under a reserve: 10 % of the page at the default, so a row of 0.9–2 kB can leave more
 * free than that and still too little for its next version, which then goes to another page with a
 * new entry in every index. At 80 the reserve is 1,638 bytes: more than any row up to 1,634 bytes,
 * and four larger rows (up to the ~2 kB past which a row is compressed or moved out of line) leave
 * less than it.
 */
export const UPDATED_IN_PLACE: Readonly<Partial<Record<CollectionName, number>>> = {
  vouchers: 80,
  promotion_tiers: 80,
  rewards: 80,
}

/** The schema version this release writes. */
export const SCHEMA_VERSION = 10

const STEPS: readonly ((s: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.pe_feed (id integer PRIMARY KEY CHECK (id = 1), seq bigint NOT NULL);
    INSERT INTO ${s}.pe_feed VALUES (1, 0);
    CREATE TABLE ${s}.pe_changes (
      seq bigint NOT NULL, pos integer NOT NULL, collection text NOT NULL, id text NOT NULL,
      op text NOT NULL, version integer NOT NULL, value jsonb, PRIMARY KEY (seq, pos));
    CREATE TABLE ${s}.pe_keys (
      constraint_name text PRIMARY KEY, collection text NOT NULL, key text NOT NULL, columns text[] NOT NULL);`,
  // 2: a campaign's transactions are listed by campaign (the transactions export): reward redemptions
  // name their card's campaign, and rollbacks their redemption's, as the engine now writes them. The
  // tables exist only once the declared ones have been made (a fresh schema has nothing to fill in).
  (s) => `
    DO $$ BEGIN
      IF to_regclass('${s}.redemptions') IS NOT NULL AND to_regclass('${s}.vouchers') IS NOT NULL THEN
        UPDATE ${s}.redemptions r
          SET value = jsonb_set(r.value, '{related_object_parent_id}', to_jsonb(v.value->>'campaign_id'))
          FROM ${s}.vouchers v
          WHERE r.value->>'related_object_type' = 'voucher' AND r.value->>'related_object_parent_id' IS NULL
            AND v.id = r.value->>'related_object_id' AND v.value->>'campaign_id' IS NOT NULL;
      END IF;
      IF to_regclass('${s}.redemption_rollbacks') IS NOT NULL AND to_regclass('${s}.redemptions') IS NOT NULL THEN
        UPDATE ${s}.redemption_rollbacks rb
          SET value = jsonb_set(rb.value, '{related_object_parent_id}', r.value->'related_object_parent_id')
          FROM ${s}.redemptions r
          WHERE rb.value->>'related_object_parent_id' IS NULL AND r.id = rb.value->>'redemption'
            AND r.value->>'related_object_parent_id' IS NOT NULL;
      END IF;
    END $$;`,
  // 3: the shape each change's value was stored in, so the feed upgrades it like every read
  // (docs/postgres.md#change-feed-and-late-commits). Changes written before carry none.
  (s) => `ALTER TABLE ${s}.pe_changes ADD COLUMN shape integer;`,
  // 4: the feed is numbered by transaction ids, not by the one-row counter every commit took
  // (docs/postgres.md#change-feed-and-late-commits). The row keeps the base added to them (set on
  // every run, below). Renaming its column waits for commits that hold the counter, and makes one of
  // an older release still running fail (commit_failed, nothing written) rather than number its
  // rows below positions readers have passed.
  (s) => `
    ALTER TABLE ${s}.pe_feed RENAME COLUMN seq TO base;
    UPDATE ${s}.pe_feed SET base = 0;`,
  // 5: a budget counter is one row, its periods are fields of it (docs/storage.md#counters): the period
  // rows of earlier releases (`r:v_1|d:2026-11-26`) are folded into their base row as fields of the
  // same name (`d:2026-11-26`), the two newest of each kind per row (the current period and the
  // previous one, whatever the engine's time zone and the database's clock), and deleted; older ones
  // count for no decision. The migration's lock waits for commits holding these rows. A constraint then
  // refuses period rows: a process of an earlier release still running fails its redemption
  // (commit_failed, nothing written) rather than count it where this release never reads.
  (s) => `
    DO $$ BEGIN
      IF to_regclass('${s}.counters') IS NOT NULL THEN
        WITH old AS (
          DELETE FROM ${s}.counters WHERE id ~ '^(r|rc|c|cc|cu):[^|]*\\|[dwm]:[0-9-]+$' RETURNING id, value),
        parts AS (SELECT split_part(id, '|', 1) AS base, split_part(id, '|', 2) AS k, value -> 'count' AS n FROM old
          WHERE jsonb_typeof(value -> 'count') = 'number'),
        newest AS (SELECT base, k, n, row_number() OVER (PARTITION BY base, left(k, 1) ORDER BY k DESC) AS rank FROM parts),
        folded AS (SELECT base, jsonb_object_agg(k, n) AS f FROM newest WHERE rank <= 2 GROUP BY base)
        INSERT INTO ${s}.counters AS t (id, value, version, shape)
          SELECT base, f || jsonb_build_object('id', base), 1, 1 FROM folded ORDER BY base
          ON CONFLICT (id) DO UPDATE SET value = t.value || (excluded.value - 'id'), version = t.version + 1;
        ALTER TABLE ${s}.counters ADD CONSTRAINT pe_counters_no_period_rows
          CHECK (id !~ '^(r|rc|c|cc|cu):[^|]*\\|[dwm]:[0-9-]+$');
      END IF;
    END $$;`,
  // 6: indexes no list reads, which every insert paid (docs/postgres.md#schema): redemptions by their
  // parent redemption (and the column it read), activities and counters listed whole by date (the
  // counters' only derived column; their row trigger went with the reconciliation then, with step 8 now). A host that declares one in
  // its own `indexes` gets it back from the reconciliation below.
  (s) => `
    ALTER TABLE IF EXISTS ${s}.redemptions DROP COLUMN IF EXISTS f_redemption_t;
    ALTER TABLE IF EXISTS ${s}.counters DROP COLUMN IF EXISTS f_created_at_ts;
    DROP INDEX IF EXISTS ${s}.activities__f_created_at_ts;`,
  // 7: sparse indexes (docs/storage.md#sparse-indexes): activities by campaign, campaign type and
  // referrer, and redemptions by campaign, held only for rows that have the field, so the activities
  // of a plain redemption and its parent redemption write no entry there. The full indexes are
  // dropped here and the partial ones made by the reconciliation below, in this transaction: the
  // drop locks each table (ACCESS EXCLUSIVE) and the build blocks its writes (SHARE) until the
  // migration commits, a build that reads the whole table once (docs/postgres.md#migrations).
  (s) => `
    DROP INDEX IF EXISTS ${s}.activities__f_customer_id_t__f_campaign_id_t__f_created_at_ts;
    DROP INDEX IF EXISTS ${s}.activities__f_customer_id_t__f_campaign_type_t__f_created_at_ts;
    DROP INDEX IF EXISTS ${s}.activities__f_type_t__f_data_referrer_id_t__f_created_at_ts;
    DROP INDEX IF EXISTS ${s}.redemptions__f_related_object_parent_id_t__f_date_ts;`,
  // 8: no row triggers (docs/postgres.md#schema): every statement that writes a value computes the
  // derived columns itself, so the triggers that kept them (`pe_columns` on insert, `pe_columns_update`
  // on an update of the value) and their functions (`pe_cols_<collection>`) go. Each DROP TRIGGER
  // takes its table's ACCESS EXCLUSIVE lock until the migration commits (waiting for the commits that
  // write it), as the reconciliation's ADD COLUMN IF NOT EXISTS does on every run. A step that rewrites
  // stored values names its tables in REWRITES.
  (s) => `
    DO $$
    DECLARE r record;
    BEGIN
      FOR r IN SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
          WHERE c.relnamespace = '${s}'::regnamespace AND NOT t.tgisinternal AND t.tgname IN ('pe_columns', 'pe_columns_update')
          ORDER BY c.relname, t.tgname LOOP
        EXECUTE format('DROP TRIGGER %I ON ${s}.%I', r.tgname, r.relname);
      END LOOP;
      FOR r IN SELECT p.oid::regprocedure AS f FROM pg_proc p
          WHERE p.pronamespace = '${s}'::regnamespace AND p.proname LIKE 'pe\\_cols\\_%' AND p.prorettype = 'trigger'::regtype LOOP
        EXECUTE format('DROP FUNCTION %s', r.f);
      END LOOP;
    END $$;`,
  // 9: the tables of rows updated in place get their fillfactor (UPDATED_IN_PLACE); a fresh schema makes
  // them with it. Once: a host's own setting made afterwards stays. Pages already full get the room
  // as their rows are updated or vacuumed.
  (s) => `
    DO $$ BEGIN
      ${Object.entries(UPDATED_IN_PLACE)
        .map(
          ([c, ff]) =>
            `IF to_regclass('${s}.${quote(c)}') IS NOT NULL THEN ALTER TABLE ${s}.${quote(c)} SET (fillfactor = ${ff}); END IF;`,
        )
        .join('\n      ')}
    END $$;`,
  // 10: the feed's marks, for retention (trimChanges, docs/postgres.md#trimming-the-feed): each trim
  // records the time and the readers' horizon then, and deletes the changes below the newest mark
  // old enough. Nothing is added to a commit.
  (s) => `CREATE TABLE ${s}.pe_feed_marks (at timestamptz PRIMARY KEY, seq bigint NOT NULL);`,
]

/**
 * The tables whose stored values a step rewrites (its number → collections): their derived columns
 * are computed again after the reconciliation (which adds any column missing), for the rows where
 * one differs from its expression (docs/postgres.md#migrations). Needed from step 8 on, when no row
 * trigger keeps them.
 */
const REWRITES: Readonly<Record<number, readonly CollectionName[]>> = {
  2: ['redemptions', 'redemption_rollbacks'],
  5: ['counters'],
}

export interface MigrateOptions {
  schema: string
  indexes?: IndexDeclarations
}

/** An advisory lock key per schema, so migrations of different schemas do not wait on each other. */
function lockKey(schema: string): string {
  let h = 0
  for (const ch of `promo-engine:${schema}`) h = (Math.imul(h, 31) + (ch.codePointAt(0) ?? 0)) | 0
  return String(h)
}

export function layouts(schema: string, indexes: IndexDeclarations = {}): Map<CollectionName, TableLayout> {
  return new Map(COLLECTIONS.map((c) => [c, tableLayout(c, schema, indexes)]))
}

/** Creates or upgrades the schema; safe to run at every start and from several processes at once. */
export async function runMigrations(db: Queryable, options: MigrateOptions): Promise<{ applied: number[] }> {
  const s = quote(options.schema)
  const applied: number[] = []
  await db.query('BEGIN')
  try {
    await db.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey(options.schema)])
    await db.query(`CREATE SCHEMA IF NOT EXISTS ${s}`)
    await db.query(
      `CREATE TABLE IF NOT EXISTS ${s}.pe_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    )
    const done = await db.query<{ version: number }>(`SELECT version FROM ${s}.pe_migrations`)
    const have = new Set(done.rows.map((r) => r.version))
    for (let i = 0; i < STEPS.length; i++) {
      if (have.has(i + 1)) continue
      await db.query((STEPS[i] as (s: string) => string)(s))
      await db.query(`INSERT INTO ${s}.pe_migrations (version) VALUES ($1)`, [i + 1])
      applied.push(i + 1)
    }
    const tables = layouts(options.schema, options.indexes)
    const existing = await db.query<{ conname: string }>(
      'SELECT conname FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1',
      [options.schema],
    )
    const constraints = new Set(existing.rows.map((r) => r.conname))
    // Replaced on every run, like the commit function: a schema of an earlier release gets this
    // release's rule (docs/postgres.md#migrations).
    const ddl: string[] = [timestampFunction(s)]
    for (const layout of tables.values()) ddl.push(...tableDdl(s, layout, constraints))
    // Stored as written, not compressed (docs/postgres.md#commit): a redemption's row (2.2 kB of JSON,
    // written to its table and to the feed) passes the 2 kB at which PostgreSQL compresses a row,
    // and pglz on every insert was a large part of those inserts' time. Rows written from now on.
    for (const table of ['pe_changes', ...UNCOMPRESSED])
      ddl.push(`ALTER TABLE ${s}.${quote(table)} SET (toast_tuple_target = 8160)`)
    // The notices a store's read cache listens for (docs/postgres.md#read-cache): the function
    // replaced, the statement triggers on the cached tables made when missing.
    ddl.push(notifyDdl(options.schema))
    await db.query(ddl.join(';\n'))
    for (const collection of new Set(applied.flatMap((step) => REWRITES[step] ?? []))) {
      const layout = tables.get(collection)
      if (!layout || layout.columns.length === 0) continue
      const names = layout.columns.map((c) => quote(c.name)).join(', ')
      const values = layout.columns.map((c) => c.expression('value')).join(', ')
      await db.query(
        `UPDATE ${s}.${quote(collection)} SET ${columnSets(layout, 'value').slice(2)} WHERE ROW(${names}) IS DISTINCT FROM ROW(${values})`,
      )
    }
    await installFeedBase(db, s)
    await db.query(commitFunction(options.schema, [...tables.values()]))
    await db.query('COMMIT')
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined)
    throw error
  }
  return { applied }
}

/**
 * How a timestamp field reads as `timestamptz` (docs/postgres.md#schema), for the derived columns and
 * for list conditions' parameters: ISO-looking text cast with fixed settings (UTC, ISO), anything
 * that does not parse NULL, never an error. Replaced on every run, like the commit function, so a
 * schema of an earlier release gets this release's form (its shape check spelled digit by digit:
 * `\d{4}` costs PostgreSQL's regular expressions several times more).
 */
function timestampFunction(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.pe_timestamp(t text) RETURNS timestamptz
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET "TimeZone" = 'UTC' SET "DateStyle" = 'ISO' AS $$
BEGIN
  IF t !~ '^\\d\\d\\d\\d-\\d\\d-\\d\\d' THEN RETURN NULL; END IF;
  RETURN t::timestamptz;
EXCEPTION WHEN others THEN RETURN NULL;
END $$`
}

function tableDdl(s: string, layout: TableLayout, constraints: Set<string>): string[] {
  const t = `${s}.${quote(layout.collection)}`
  const fillfactor = UPDATED_IN_PLACE[layout.collection]
  const out = [
    `CREATE TABLE IF NOT EXISTS ${t} (id text COLLATE "C" PRIMARY KEY, value jsonb NOT NULL, version integer NOT NULL, shape integer NOT NULL)${fillfactor === undefined ? '' : ` WITH (fillfactor = ${fillfactor})`}`,
  ]
  // Derived columns are plain columns the statements that write the value compute (docs/postgres.md#schema):
  // a stored generated column's expression is read from the catalog and compiled again at every
  // statement that writes the table, a fifth of a redemption's commit. A new column is added
  // generated, which fills the rows already stored, then made plain; the writers keep it from then on.
  for (const c of layout.columns) {
    out.push(
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS ${quote(c.name)} ${c.sqlType} GENERATED ALWAYS AS (${c.expression('value')}) STORED`,
      `ALTER TABLE ${t} ALTER COLUMN ${quote(c.name)} DROP EXPRESSION IF EXISTS`,
    )
  }
  for (const k of layout.keys) {
    if (!constraints.has(k.constraint)) {
      // Checked at the end of the commit, not per statement: a changeset may move a key between entities.
      out.push(
        `ALTER TABLE ${t} ADD CONSTRAINT ${quote(k.constraint)} UNIQUE (${k.columns.map(quote).join(', ')}) DEFERRABLE INITIALLY DEFERRED`,
      )
    }
    const literal = (x: string) => `'${x.replace(/'/g, "''")}'`
    out.push(
      `INSERT INTO ${s}.pe_keys VALUES (${literal(k.constraint)}, ${literal(layout.collection)}, ${literal(k.key)}, ARRAY[${k.columns.map(literal).join(', ')}]::text[]) ON CONFLICT DO NOTHING`,
    )
  }
  const seen = new Set<string>()
  for (const index of layout.indexes) {
    if (seen.has(index.name)) continue
    seen.add(index.name)
    if (index.gin) {
      out.push(
        `CREATE INDEX IF NOT EXISTS ${quote(index.name)} ON ${t} USING GIN (${index.columns.map(quote).join(', ')})`,
      )
      continue
    }
    const cols = index.columns.map((c, i) => (i === index.columns.length - 1 ? `${quote(c)} NULLS FIRST` : quote(c)))
    if (index.columns.at(-1) !== 'id') cols.push('id')
    out.push(
      `CREATE INDEX IF NOT EXISTS ${quote(index.name)} ON ${t} (${cols.join(', ')})${index.where ? ` WHERE ${index.where}` : ''}`,
    )
  }
  return out
}
