import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import { createPostgresStore } from '../../src/postgres'
import { SCHEMA_VERSION } from '../../src/postgres/migrate'
import type { CollectionName, Write } from '../../src/storage/ports'
import { repo } from '../../src/testing/fixtures'
import { manualClock } from '../support/engine'
import { dailyLimitedCode } from '../support/shops'
import { useClonedPool } from './database'
import { staleColumns } from './derived-columns'

/*
 * Numbered migration steps (docs/postgres.md#migrations) run once each: step 2 names the campaign on
 * reward redemptions and rollbacks written before the engine did, so a campaign's transactions are
 * found by its declared index; step 4 numbers the change feed by transaction ids, listing the changes
 * numbered before it first; step 5 folds the period rows of budget counters into their base rows.
 */

const db = useClonedPool(4)

const put = (collection: string, value: Record<string, unknown>) =>
  ({
    op: 'put',
    collection,
    value,
    expectedVersion: null,
    shape: currentShape(collection as CollectionName),
  }) as unknown as Write

describe('PostgreSQL migrations', () => {
  it('a fresh schema gets every step; a second run applies none', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'fresh' })
    expect(await store.migrate()).toEqual({ applied: Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1) })
    expect(await store.migrate()).toEqual({ applied: [] })
  })

  it('a redemption of 2.5 kB is stored uncompressed, in its table and in the feed; an activity table keeps the default', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'inline' })
    await store.migrate()
    const big = { id: 'r_big', object: 'redemption', date: '2026-01-01T00:00:00.000Z', filler: 'x'.repeat(2500) }
    const outcome = await store.commit({
      writes: [put('redemptions', big), put('activities', { ...big, id: 'evact_big', object: 'customer_activity' })],
    })
    expect(outcome.ok).toBe(true)
    const methods = await db.pool.query(
      `SELECT (SELECT pg_column_compression(value) FROM inline.redemptions) AS table_row,
         (SELECT pg_column_compression(value) FROM inline.pe_changes WHERE collection = 'redemptions') AS feed_row,
         (SELECT pg_column_compression(value) FROM inline.activities) AS activity_row`,
    )
    expect(methods.rows[0]).toEqual({ table_row: null, feed_row: null, activity_row: 'pglz' })
  })

  it("derived columns are plain columns the writes compute; an earlier release's generated column is converted in place", async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'derived' })
    await store.migrate()
    // As an earlier release left the table: the code's column generated, a row stored under it.
    await db.pool.query(`ALTER TABLE derived.vouchers DROP COLUMN k_code CASCADE;
      ALTER TABLE derived.vouchers ADD COLUMN k_code text COLLATE "C"
        GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(value -> 'code') = 'string' THEN value ->> 'code' END) STORED;
      INSERT INTO derived.vouchers (id, value, version, shape)
        VALUES ('v_old', '{"id": "v_old", "code": "OLD", "campaign_id": "camp", "created_at": "2026-01-01T00:00:00.000Z"}', 1, 1)`)
    expect(await store.migrate()).toEqual({ applied: [] })
    const generated = await db.pool.query(
      `SELECT count(*)::int AS n FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = 'derived' AND a.attgenerated <> ''`,
    )
    expect(generated.rows[0].n).toBe(0)
    expect((await store.vouchers.findBy('code', 'OLD'))?.value.id).toBe('v_old')
    // The commit's writes keep the columns: an insert, and an update that renames the code.
    const date = '2026-02-01T00:00:00.000Z'
    const old = await store.vouchers.get('v_old')
    const made = await store.commit({
      writes: [
        put('vouchers', { id: 'v_new', code: 'NEW', campaign_id: 'camp', holder_id: 7, created_at: date }),
        { ...put('vouchers', { ...old?.value, code: 'RENAMED' }), expectedVersion: old?.version ?? 0 } as Write,
      ],
    })
    expect(made.ok).toBe(true)
    const rows = await db.pool.query(
      'SELECT id, k_code, f_campaign_id_t, f_holder_id_t, f_created_at_ts FROM derived.vouchers ORDER BY id',
    )
    expect(rows.rows).toEqual([
      { id: 'v_new', k_code: 'NEW', f_campaign_id_t: 'camp', f_holder_id_t: '7', f_created_at_ts: new Date(date) },
      {
        id: 'v_old',
        k_code: 'RENAMED',
        f_campaign_id_t: 'camp',
        f_holder_id_t: null,
        f_created_at_ts: new Date('2026-01-01T00:00:00.000Z'),
      },
    ])
    expect(await store.vouchers.findBy('code', 'OLD')).toBeUndefined()
    const page = await store.vouchers.list({ where: { campaign_id: 'camp' }, count: false })
    expect(page.data.map((v) => v.value.id)).toEqual(['v_old', 'v_new'])
    expect(await staleColumns(db.pool, 'derived')).toEqual([])
  })

  it('step 8 drops the row triggers; every statement that writes a value computes the derived columns itself', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'upd' })
    await store.migrate()
    // As schema version 7 left it: each table with derived columns kept by two conditional row
    // triggers (the activities' here, and a stand-in on the codes that would spoil their columns).
    await db.pool.query(`CREATE FUNCTION upd.pe_cols_activities() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
      CREATE TRIGGER pe_columns BEFORE INSERT ON upd.activities FOR EACH ROW
        WHEN (NEW.f_customer_id_t IS NULL) EXECUTE FUNCTION upd.pe_cols_activities();
      CREATE TRIGGER pe_columns_update BEFORE UPDATE OF value ON upd.activities FOR EACH ROW
        WHEN (OLD.value -> 'customer_id' IS DISTINCT FROM NEW.value -> 'customer_id') EXECUTE FUNCTION upd.pe_cols_activities();
      CREATE FUNCTION upd.pe_cols_vouchers() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.f_campaign_id_t := 'spoiled'; RETURN NEW; END $$;
      CREATE TRIGGER pe_columns_update BEFORE UPDATE OF value ON upd.vouchers FOR EACH ROW EXECUTE FUNCTION upd.pe_cols_vouchers();
      DELETE FROM upd.pe_migrations WHERE version = 8`)
    expect(await store.migrate()).toEqual({ applied: [8] })
    const left = await db.pool.query(
      `SELECT (SELECT count(*)::int FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
           WHERE c.relnamespace = 'upd'::regnamespace AND NOT t.tgisinternal AND t.tgname <> 'pe_notify') AS triggers,
         (SELECT count(*)::int FROM pg_proc WHERE pronamespace = 'upd'::regnamespace AND proname LIKE 'pe_cols%') AS functions`,
    )
    // No row trigger is left; the statement triggers of the read cache's notices (docs/postgres.md#read-cache) stay.
    expect(left.rows[0]).toEqual({ triggers: 0, functions: 0 })
    const commit = async (writes: Write[]) => {
      const outcome = await store.commit({ writes })
      expect(outcome).toMatchObject({ ok: true })
    }
    const at = (day: number) => `2026-01-${String(day).padStart(2, '0')}T00:00:00.000Z`
    const code = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      code: id.toUpperCase(),
      campaign_id: 'camp',
      holder_id: 'cust_1',
      created_at: at(1),
      redemption: { quantity: 10, redeemed_quantity: 0 },
      ...extra,
    })
    const inc = (id: string, fields: Partial<Extract<Write, { op: 'increment' }>>): Write => ({
      op: 'increment',
      collection: 'vouchers',
      id,
      by: { 'redemption.redeemed_quantity': 1 },
      ...fields,
    })
    const update = async (collection: CollectionName, id: string, change: Record<string, unknown>) => {
      const row = await repo(store, collection).get(id)
      return { ...put(collection, { ...(row?.value as object), ...change }), expectedVersion: row?.version } as Write
    }
    // New entities only (pe_commit's insert), of several tables.
    await commit([
      put('activities', {
        id: 'evact_1',
        type: 'a',
        customer_id: 'cust_1',
        data: { referrer: { id: 'r1' } },
        created_at: at(1),
      }),
      put('activities', { id: 'evact_2', type: 'a', customer_id: 7, created_at: 'not a date' }),
      put('vouchers', code('v_1')),
      put('vouchers', code('v_2', { holder_id: null })),
      put('points_buckets', {
        id: 'b_1',
        voucher_id: 'v_1',
        status: 'ACTIVE',
        remaining: 5,
        created_at: at(1),
        expires_at: at(20),
      }),
      put('points_buckets', {
        id: 'b_2',
        voucher_id: 'v_1',
        status: 'ACTIVE',
        remaining: 5,
        created_at: at(2),
        expires_at: null,
      }),
      put('redemptions', { id: 'r_1', customer_id: 'cust_1', related_object_id: 'v_1', date: at(3) }),
    ])
    // A new entity beside an update (the writer's insert), and updates that move indexed fields.
    await commit([
      put('vouchers', code('v_3')),
      await update('vouchers', 'v_2', { campaign_id: 'camp2', holder_id: 'cust_2', created_at: at(4) }),
      await update('activities', 'evact_1', { customer_id: 'cust_9', data: {} }),
    ])
    // A new entity beside an increment that creates its row, then increments of rows that exist only
    // and some that create theirs (the upsert), each moving an indexed field or not.
    await commit([
      put('vouchers', code('v_4')),
      inc('v_5', { create: { code: 'MADE', campaign_id: 'camp', created_at: at(5) }, set: { holder_id: 'cust_5' } }),
    ])
    await commit([
      inc('v_1', { guard: { 'redemption.redeemed_quantity': { maxOf: 'redemption.quantity' } } }),
      inc('v_3', { set: { campaign_id: 'camp3', 'redemption.last': at(6) } }),
      inc('v_4', { unset: ['holder_id'] }),
    ])
    await commit([inc('v_6', { create: { code: 'MADE6', created_at: at(6) } }), inc('v_2', { by: { code: 1 } })])
    // A take: the buckets it spends change status, and its record is a field a column reads.
    await commit([
      { op: 'increment', collection: 'vouchers', id: 'v_1', by: { 'loyalty_card.balance': -7 } },
      {
        op: 'take',
        collection: 'points_buckets',
        id: 'v_1',
        amount: 7,
        now: at(10),
        record: { collection: 'redemptions', id: 'r_1', path: 'related_object_id' },
      },
    ])
    expect(await staleColumns(db.pool, 'upd')).toEqual([])
    const columns = await db.pool.query(
      `SELECT (SELECT jsonb_object_agg(id, jsonb_build_array(f_campaign_id_t, f_holder_id_t, k_code)) FROM upd.vouchers) AS codes,
         (SELECT jsonb_object_agg(id, f_status_t) FROM upd.points_buckets) AS buckets,
         (SELECT f_related_object_id_t FROM upd.redemptions) AS record,
         (SELECT jsonb_object_agg(id, f_customer_id_t) FROM upd.activities) AS activities`,
    )
    expect(columns.rows[0]).toEqual({
      codes: {
        v_1: ['camp', 'cust_1', 'V_1'],
        v_2: ['camp2', 'cust_2', null],
        v_3: ['camp3', 'cust_1', 'V_3'],
        v_4: ['camp', null, 'V_4'],
        v_5: ['camp', 'cust_5', 'MADE'],
        v_6: [null, null, 'MADE6'],
      },
      buckets: { b_1: 'SPENT', b_2: 'ACTIVE' },
      record: null,
      activities: { evact_1: 'cust_9', evact_2: '7' },
    })
  })

  it("pe_timestamp, replaced at every start, reads every text as the earlier release's did, whatever the session's TimeZone and DateStyle; the derived columns agree with it", async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'stamps' })
    await store.migrate()
    // The function as releases up to schema version 5 installed it: fixed settings, an exception block.
    const earlier = (name: string) => `CREATE OR REPLACE FUNCTION stamps.${name}(t text) RETURNS timestamptz
      LANGUAGE plpgsql IMMUTABLE SET "TimeZone" = 'UTC' SET "DateStyle" = 'ISO' AS $$
      BEGIN
        IF t !~ '^\\d{4}-\\d{2}-\\d{2}' THEN RETURN NULL; END IF;
        RETURN t::timestamptz;
      EXCEPTION WHEN others THEN RETURN NULL;
      END $$`
    await db.pool.query(earlier('pe_timestamp_v5'))
    // A schema an earlier release left gets this release's function at the next start.
    await db.pool.query(earlier('pe_timestamp'))
    expect(await store.migrate()).toEqual({ applied: [] })
    const installed = await db.pool.query(
      "SELECT prosrc FROM pg_proc WHERE oid = 'stamps.pe_timestamp(text)'::regprocedure",
    )
    expect(installed.rows[0].prosrc).not.toContain('{4}')
    const parsed = [
      '2026-11-26T12:00:00.000Z',
      '2026-11-26T12:00Z',
      '2026-11-26t12:00:00z',
      '2026-11-26 12:00:00+02',
      '2026-11-26T12:00:00.123456+05:30',
      '2026-11-26T12:00:00-0800',
      '2026-11-26T23:30:00-03:30',
      '2026-11-26T12:00:00+5',
      '2026-11-26T12:00:00 +02:00',
      '2026-11-26T12:00:00.123+02:00:30',
      // Beyond microseconds: rounded, into the next day at the end of one.
      '2026-11-26T12:00:00.1234567Z',
      '2026-12-31T23:59:59.9999999Z',
      '2026-12-31T24:00:00Z',
      '2026-06-30T23:59:60Z',
      '2026-11-26T12:00:00.Z',
      // Leap days, and texts naming no offset (UTC, whatever the session's zone, even in its DST gap).
      '2024-02-29T00:00:00Z',
      '2000-02-29T12:00:00Z',
      '2024-02-29',
      '2026-11-26',
      '2026-11-26 ',
      '2026-11-26 z',
      '2026-11-26T12:00:00',
      '2026-11-26 12:00',
      '2026-11-26 1230',
      '2026-03-29T02:30:00',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
    ]
    const refused = [
      ...['1900-02-29', '2026-02-29', '2026-02-29T00:00:00Z', '2026-13-01', '2026-00-10', '2026-04-31', '0000-01-01'],
      ...['2026-11-26T25:00:00Z', '2026-11-26T12:60:00Z', '2026-11-26T12:00:61Z', '2026-11-26T12:00:00+25:00'],
      ...['', 'garbage', 'Z', '26-11-2026', '11/26/2026', '2026-1-5', '2026-11-26TZ', '2026-11-26T', '  2026-11-26'],
      ...['now', 'today', 'infinity', 'epoch', '2026-11-26garbage', '2026-11-26T12', '2026-11-26 12:00:00 -'],
      ...['2026-11-26T12:00:00++02', '2026-11-26 12:00 Z 5', '2026-11-26-05', '2026-11-26T12:00:00 t'],
    ]
    // Read through the server's zone database and abbreviation list, at UTC whatever the session's zone.
    const named = [
      '2026-11-26 12:00:00 UTC',
      '2026-11-26 12:00 Europe/Paris',
      '2026-11-26 12:00 PST',
      '2026-11-26 12:00:00 GMT+2',
      '2026-11-26 BC',
      '2026-11-26 allballs',
    ]
    const inputs = [...parsed, ...refused, ...named]
    const client = await db.pool.connect()
    try {
      for (const settings of ["TimeZone = 'UTC'", "TimeZone = 'America/St_Johns'", "TimeZone = 'Europe/Paris'"]) {
        await client.query(`SET ${settings}; SET DateStyle = 'SQL, DMY'`)
        // Epoch seconds: what the session's DateStyle cannot change.
        const { rows } = await client.query<{ x: string; now: string | null; then: string | null }>(
          `SELECT x, extract(epoch FROM stamps.pe_timestamp(x))::text AS now,
             extract(epoch FROM stamps.pe_timestamp_v5(x))::text AS then FROM unnest($1::text[]) x`,
          [inputs],
        )
        const by = new Map(rows.map((r) => [r.x, r]))
        for (const x of [...parsed, ...named]) expect([x, by.get(x)?.now]).toEqual([x, by.get(x)?.then ?? 'parsed'])
        for (const x of refused) expect([x, by.get(x)?.now, by.get(x)?.then]).toEqual([x, null, null])
      }
    } finally {
      await client.query('RESET ALL')
      client.release()
    }
    // The derived columns call the same rule; a timestamp field that is not a string reads as absent.
    const values: unknown[] = [...inputs, 1_764_158_400_000, true, null, { at: '2026-11-26' }, ['2026-11-26']]
    const made = await store.commit({
      writes: values.map((date, i) => put('redemptions', { id: `r_${i}`, date, created_at: date })),
    })
    expect(made.ok).toBe(true)
    const stored = await db.pool.query(
      `SELECT r.id, r.f_date_ts IS NOT DISTINCT FROM CASE WHEN jsonb_typeof(r.value -> 'date') = 'string'
           THEN stamps.pe_timestamp(r.value ->> 'date') END AND r.f_created_at_ts IS NOT DISTINCT FROM r.f_date_ts AS same,
         r.f_date_ts IS NULL AS absent FROM stamps.redemptions r ORDER BY r.id`,
    )
    expect(stored.rows.filter((r) => !r.same)).toEqual([])
    expect(stored.rows.filter((r) => !r.absent)).toHaveLength(parsed.length + named.length)
  })

  it('step 6 drops the indexes no list reads; a host that declares one gets it back', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'unread' })
    await store.migrate()
    // As schema version 5 left them: redemptions by their parent redemption, activities and counters
    // listed whole by date, the counters' column kept by a row trigger.
    await db.pool.query(`ALTER TABLE unread.redemptions ADD COLUMN f_redemption_t text COLLATE "C";
      CREATE INDEX redemptions__f_redemption_t__f_date_ts ON unread.redemptions (f_redemption_t, f_date_ts NULLS FIRST, id);
      CREATE INDEX activities__f_created_at_ts ON unread.activities (f_created_at_ts NULLS FIRST, id);
      ALTER TABLE unread.counters ADD COLUMN f_created_at_ts timestamptz;
      CREATE INDEX counters__f_created_at_ts ON unread.counters (f_created_at_ts NULLS FIRST, id);
      CREATE FUNCTION unread.pe_cols_counters() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
      CREATE TRIGGER pe_columns BEFORE INSERT OR UPDATE OF value ON unread.counters FOR EACH ROW EXECUTE FUNCTION unread.pe_cols_counters();
      DELETE FROM unread.pe_migrations WHERE version IN (6, 8)`)
    const left = async () => {
      const indexes = await db.pool.query(
        `SELECT indexname FROM pg_indexes WHERE schemaname = 'unread' AND indexname IN
           ('redemptions__f_redemption_t__f_date_ts', 'activities__f_created_at_ts', 'counters__f_created_at_ts') ORDER BY 1`,
      )
      const rest = await db.pool.query(
        `SELECT (SELECT count(*)::int FROM information_schema.columns WHERE table_schema = 'unread'
             AND (table_name, column_name) IN (('redemptions', 'f_redemption_t'), ('counters', 'f_created_at_ts'))) AS columns,
           (SELECT count(*)::int FROM pg_trigger WHERE tgrelid = 'unread.counters'::regclass AND NOT tgisinternal) AS triggers`,
      )
      return { indexes: indexes.rows.map((r) => r.indexname), ...rest.rows[0] }
    }
    expect(await left()).toMatchObject({ columns: 2, triggers: 1 })
    expect((await left()).indexes).toHaveLength(3)
    expect(await store.migrate()).toEqual({ applied: [6, 8] })
    expect(await left()).toEqual({ indexes: [], columns: 0, triggers: 0 })
    // A counter is still written and read (no derived column, no trigger).
    const counted = await store.commit({
      writes: [{ op: 'increment', collection: 'counters', id: 'c_1', by: { n: 1 }, create: {}, shape: 1 }],
    })
    expect(counted.ok).toBe(true)
    expect((await store.counters.get('c_1'))?.value).toEqual({ id: 'c_1', n: 1 })
    const host = createPostgresStore({
      pool: db.pool,
      schema: 'unread',
      indexes: { activities: [{ on: [], sort: ['created_at', 'timestamp'] }] },
    })
    expect(await host.migrate()).toEqual({ applied: [] })
    expect((await left()).indexes).toEqual(['activities__f_created_at_ts'])
  })

  it('step 7 makes the activities and redemptions indexes of fields a plain redemption leaves absent sparse; the lists still read them', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'sparse' })
    await store.migrate()
    const sparse = async () =>
      (
        await db.pool.query<{ indexname: string; indexdef: string }>(
          `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'sparse' AND indexdef LIKE '% WHERE %' ORDER BY 1`,
        )
      ).rows
    const partial = await sparse()
    expect(partial.map((r) => r.indexdef.split(' WHERE ')[1])).toEqual([
      '((f_customer_id_t IS NOT NULL) AND (f_campaign_id_t IS NOT NULL))',
      '((f_customer_id_t IS NOT NULL) AND (f_campaign_type_t IS NOT NULL))',
      '((f_type_t IS NOT NULL) AND (f_data_referrer_id_t IS NOT NULL))',
      '(f_related_object_parent_id_t IS NOT NULL)',
    ])
    // As schema version 6 left them: full indexes under the names without the suffix.
    const full = [
      ['activities', 'f_customer_id_t, f_campaign_id_t, f_created_at_ts'],
      ['activities', 'f_customer_id_t, f_campaign_type_t, f_created_at_ts'],
      ['activities', 'f_type_t, f_data_referrer_id_t, f_created_at_ts'],
      ['redemptions', 'f_related_object_parent_id_t, f_date_ts'],
    ].map(([t, cols]) => `${t}__${(cols as string).replace(/, /g, '__')}`)
    await db.pool.query(
      `${partial.map((r) => `DROP INDEX sparse.${r.indexname};`).join('\n')}
      CREATE INDEX ${full[0]} ON sparse.activities (f_customer_id_t, f_campaign_id_t, f_created_at_ts NULLS FIRST, id);
      CREATE INDEX ${full[1]} ON sparse.activities (f_customer_id_t, f_campaign_type_t, f_created_at_ts NULLS FIRST, id);
      CREATE INDEX ${full[2]} ON sparse.activities (f_type_t, f_data_referrer_id_t, f_created_at_ts NULLS FIRST, id);
      CREATE INDEX ${full[3]} ON sparse.redemptions (f_related_object_parent_id_t, f_date_ts NULLS FIRST, id);
      DELETE FROM sparse.pe_migrations WHERE version = 7`,
    )
    expect(await sparse()).toEqual([])
    expect(await store.migrate()).toEqual({ applied: [7] })
    expect(await sparse()).toEqual(partial)
    const left = await db.pool.query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = 'sparse' AND indexname = ANY($1)`,
      [full],
    )
    expect(left.rows).toEqual([])
    // A customer with many activities, a few of a campaign: an insert without the fields writes no entry.
    const activity = (i: number, campaign: boolean) =>
      put('activities', {
        id: `act_${String(i).padStart(5, '0')}`,
        customer_id: 'c1',
        type: 'customer.redemption.succeeded',
        created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
        ...(campaign ? { campaign_id: 'camp_1', campaign_type: 'LOYALTY_PROGRAM' } : {}),
      })
    const writes = Array.from({ length: 2000 }, (_, i) => activity(i, i % 200 === 0))
    expect((await store.commit({ writes })).ok).toBe(true)
    // VACUUM counts each index's entries: the partial ones hold only the rows with their fields.
    await db.pool.query('VACUUM (ANALYZE) sparse.activities')
    const entries = await db.pool.query<{ name: string; entries: number }>(
      `SELECT c.relname AS name, c.reltuples::int AS entries FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'sparse' AND c.relkind = 'i' AND c.relname LIKE 'activities%' ORDER BY 1`,
    )
    const held = new Map(entries.rows.map((r) => [r.name, r.entries]))
    expect(partial.slice(0, 3).map((r) => held.get(r.indexname))).toEqual([10, 10, 0])
    // The others (the primary key, by customer, type, category) hold every activity.
    expect(entries.rows.filter((r) => !partial.some((p) => p.indexname === r.name)).map((r) => r.entries)).toEqual(
      Array(4).fill(2000),
    )
    // The list as the store sends it, planned generically ($n parameters, as a prepared statement is
    // after its fifth run): `campaign_id = $2` implies NOT NULL, so the partial index answers it.
    const sent: string[] = []
    const recording = {
      query: (q: { text: string; values?: unknown[] } | string, v?: unknown[]) => {
        sent.push(typeof q === 'string' ? q : q.text)
        return db.pool.query(q as never, v as never)
      },
      connect: () => db.pool.connect(),
      end: async () => undefined,
    }
    const listing = createPostgresStore({ pool: recording as never, schema: 'sparse' })
    // The customer's activities of a campaign (by value and by `in`), and a referrer's conversions
    // as `customer-relations.ts` lists them.
    // With `in` the customer's index gives the order and PostgreSQL prefers it: it is taken away
    // (in a transaction rolled back) to show the partial index answers `= ANY($2)` too.
    const customerIndexes = (
      await db.pool.query<{ indexname: string }>(
        `SELECT indexname FROM pg_indexes WHERE schemaname = 'sparse' AND tablename = 'activities'
           AND indexdef LIKE '%(f_customer_id_t%' AND indexdef NOT LIKE '% WHERE %'`,
      )
    ).rows.map((r) => r.indexname)
    expect(customerIndexes).toHaveLength(3)
    const lists = [
      [{ customer_id: 'c1', campaign_id: 'camp_1' }, 5, ['c1', 'camp_1', 6], 0, false],
      [{ customer_id: 'c1', campaign_id: { in: ['camp_1', 'camp_2'] } }, 5, ['c1', '{camp_1,camp_2}', 6], 0, true],
      [{ type: 'customer.referred', 'data.referrer.id': 'c1' }, undefined, ['customer.referred', 'c1'], 2, false],
    ] as const
    const client = await db.pool.connect()
    try {
      await client.query('SET plan_cache_mode = force_generic_plan')
      for (const [where, limit, values, index, alone] of lists) {
        sent.length = 0
        const page = await listing.activities.list({
          where: where as never,
          order: { field: 'created_at', direction: 'desc' },
          ...(limit === undefined ? {} : { limit }),
          count: false,
        })
        expect(page.data).toHaveLength(limit ?? 0)
        const text = sent.find((t) => t.includes('sparse"."activities'))
        expect(text).toBeDefined()
        if (alone) {
          await client.query('BEGIN')
          for (const name of customerIndexes) await client.query(`DROP INDEX sparse.${name}`)
        }
        await client.query(`PREPARE listed AS ${text}`)
        const plan = JSON.stringify(
          (
            await client.query(
              `EXPLAIN (FORMAT JSON) EXECUTE listed(${values.map((v) => (typeof v === 'number' ? v : `'${v}'`)).join(', ')})`,
            )
          ).rows[0]['QUERY PLAN'],
        )
        expect(plan).toContain(partial[index]?.indexname)
        expect(plan).not.toContain('Seq Scan')
        await client.query('DEALLOCATE listed')
        if (alone) await client.query('ROLLBACK')
      }
    } finally {
      await client.query('RESET plan_cache_mode')
      client.release()
    }
  })

  it('step 2 names the campaign on redemptions and rollbacks stored without it', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'older' })
    await store.migrate()
    const date = '2026-01-01T00:00:00.000Z'
    const outcome = await store.commit({
      writes: [
        put('vouchers', { id: 'v_card', code: 'CARD', campaign_id: 'camp_club', created_at: date }),
        put('vouchers', { id: 'v_loose', code: 'LOOSE', campaign_id: null, created_at: date }),
        // As an engine before step 2 wrote a reward redemption: no related_object_parent_id.
        put('redemptions', { id: 'r_reward', date, related_object_type: 'voucher', related_object_id: 'v_card' }),
        put('redemptions', { id: 'r_loose', date, related_object_type: 'voucher', related_object_id: 'v_loose' }),
        put('redemptions', {
          id: 'r_coupon',
          date,
          related_object_type: 'voucher',
          related_object_id: 'v_other',
          related_object_parent_id: 'camp_coupons',
        }),
        put('redemption_rollbacks', { id: 'rr_reward', date, redemption: 'r_reward', related_object_id: 'v_card' }),
        put('redemption_rollbacks', { id: 'rr_coupon', date, redemption: 'r_coupon', related_object_id: 'v_other' }),
        put('redemption_rollbacks', { id: 'rr_loose', date, redemption: 'r_loose', related_object_id: 'v_loose' }),
      ],
    })
    expect(outcome.ok).toBe(true)
    await db.pool.query('DELETE FROM "older".pe_migrations WHERE version = 2')
    expect(await store.migrate()).toEqual({ applied: [2] })
    const ids = async (collection: 'redemptions' | 'redemption_rollbacks', campaign: string) =>
      (await store[collection].list({ where: { related_object_parent_id: campaign } })).data.map((s) => s.value.id)
    expect(await ids('redemptions', 'camp_club')).toEqual(['r_reward'])
    expect(await ids('redemption_rollbacks', 'camp_club')).toEqual(['rr_reward'])
    expect(await ids('redemption_rollbacks', 'camp_coupons')).toEqual(['rr_coupon'])
    // A voucher of no campaign names none.
    expect((await store.redemptions.get('r_loose'))?.value).not.toHaveProperty('related_object_parent_id')
    expect((await store.redemption_rollbacks.get('rr_loose'))?.value).not.toHaveProperty('related_object_parent_id')
  })

  it('step 4: changes the one-row counter numbered are listed once, before the new ones; an old cursor goes on', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'counted' })
    await store.migrate()
    // The schema as version 3 left it: the counter at 3, three changes numbered 1, 2, 3.
    await db.pool.query(`ALTER TABLE counted.pe_feed RENAME COLUMN base TO seq;
      UPDATE counted.pe_feed SET seq = 3;
      DELETE FROM counted.pe_migrations WHERE version = 4;
      INSERT INTO counted.pe_changes (seq, pos, collection, id, op, version, value, shape)
        SELECT n, 0, 'categories', 'old' || n, 'put', 1, jsonb_build_object('id', 'old' || n, 'name', 'old'), 1
        FROM generate_series(1, 3) n`)
    expect(await store.migrate()).toEqual({ applied: [4] })
    const made = await store.commit({ writes: [put('categories', { id: 'new', name: 'new' })] })
    expect(made.ok && made.seq > 3).toBe(true)
    const ids = async (after: number) => (await store.changes({ after })).data.map((c) => c.id)
    expect(await ids(0)).toEqual(['old1', 'old2', 'old3', 'new'])
    // A reader's cursor from before the upgrade reads the rest of the old changes, then the new.
    expect(await ids(2)).toEqual(['old3', 'new'])
  })

  it('a database restored with transaction ids below its feed: migrate() raises the base, no change lands below', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'restored' })
    await store.migrate()
    const first = await store.commit({ writes: [put('categories', { id: 'first', name: 'first' })] })
    expect(first.ok).toBe(true)
    // As if restored from a cluster whose transaction ids ran far ahead of this one's.
    const far = 1_000_000_000_000
    await db.pool.query(`INSERT INTO restored.pe_changes (seq, pos, collection, id, op, version, value, shape)
      VALUES (${far}, 0, 'categories', 'restored', 'put', 1, '{"id": "restored", "name": "r"}', 1)`)
    expect(await store.migrate()).toEqual({ applied: [] })
    const next = await store.commit({ writes: [put('categories', { id: 'next', name: 'next' })] })
    expect(next.ok && next.seq > far).toBe(true)
    expect((await store.changes({ after: far })).data.map((c) => c.id)).toEqual(['next'])
    // Once raised, the base stays: another run changes nothing.
    const base = async () => (await db.pool.query('SELECT restored.pe_feed_base() AS b')).rows[0].b
    const before = await base()
    await store.migrate()
    expect(await base()).toBe(before)
  })

  it('step 5: period counter rows of an earlier release fold into their base rows; a daily limit is not reset', async () => {
    const store = createPostgresStore({ pool: db.pool, schema: 'periods' })
    await store.migrate()
    const engine = createEngine({ store, clock: manualClock('2026-11-26T12:00:00.000Z'), random: seededRandom(5) })
    const code = await dailyLimitedCode(engine)
    // As an earlier release left them: the total row and a row per period (today 2, yesterday 4 and
    // an older day; the week and month), written by store commits of literal rows.
    const r = `r:${code.id}`
    const rows: [string, Record<string, number>][] = [
      [r, { count: 9, amount: 90_000, discount: 900 }],
      [`${r}|d:2026-11-26`, { count: 2 }],
      [`${r}|d:2026-11-25`, { count: 4 }],
      [`${r}|d:2026-11-20`, { count: 3 }],
      [`${r}|w:2026-11-23`, { count: 6 }],
      [`${r}|m:2026-11`, { count: 9 }],
    ]
    const seeded = await store.commit({
      writes: rows.map(([id, by]) => ({ op: 'increment', collection: 'counters', id, by, create: {}, shape: 1 })),
    })
    expect(seeded.ok).toBe(true)
    await db.pool.query('DELETE FROM periods.pe_migrations WHERE version = 5')
    expect(await store.migrate()).toEqual({ applied: [5] })
    const ids = (await db.pool.query('SELECT id FROM periods.counters ORDER BY id')).rows.map((x) => x.id)
    expect(ids).toEqual([r])
    // A process of the earlier release still running: its period row is refused, nothing written.
    const late = {
      op: 'increment' as const,
      collection: 'counters' as const,
      id: `${r}|d:2026-11-26`,
      by: { count: 1 },
    }
    await expect(store.commit({ writes: [{ ...late, create: {} }] })).rejects.toMatchObject({
      key: 'commit_failed',
      details: expect.stringContaining('pe_counters_no_period_rows'),
    })
    expect((await db.pool.query('SELECT count(*)::int AS n FROM periods.counters')).rows[0].n).toBe(1)
    // The two newest days, the week and the month are fields of the row; the older day is gone.
    expect((await store.counters.get(r))?.value).toEqual({
      id: r,
      count: 9,
      amount: 90_000,
      discount: 900,
      'd:2026-11-26': 2,
      'd:2026-11-25': 4,
      'w:2026-11-23': 6,
      'm:2026-11': 9,
    })
    // Two redemptions counted today: one more fits, the next are refused (all three would fit, had the upgrade reset the day).
    const body = {
      redeemables: [{ object: 'voucher' as const, id: 'DAILY' }],
      order: { amount: 1000 },
      customer: { source_id: 'shopper' },
    }
    const results = []
    for (let i = 0; i < 3; i++)
      results.push(
        (await engine.raw.redemptions.redeemStackable(body).catch(() => null))?.parent_redemption.result ?? 'FAILED',
      )
    expect(results).toEqual(['SUCCESS', 'FAILURE', 'FAILURE'])
    const after = (await store.counters.get(r))?.value
    expect(after).toMatchObject({ count: 10, 'd:2026-11-26': 3, 'w:2026-11-23': 7, 'm:2026-11': 10 })
    // The redemption that counted removed nothing it must keep: yesterday stays until the day after.
    expect(after).toHaveProperty(['d:2026-11-25'], 4)
  })
})
