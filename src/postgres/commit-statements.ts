import { columnFieldFilter, columnNames, columnSets, columnValues, literal, quote, type TableLayout } from './columns'

/*
 * The statements `pe_commit` (commit-function.ts) runs itself for the steps of a redemption
 * (docs/postgres.md#commit): new entities inserted, the counters upserted, one row's guarded
 * increment, and the derived columns an increment moved. Steps of other kinds go to their
 * collection's writer function (collection-writers.ts).
 */

/**
 * A step's new entities when it writes nothing else (docs/postgres.md#commit), run by \`pe_commit\`
 * itself: a plain insert, rows in the order the adapter sorted them (by id), the derived columns
 * computed by the statement, like every write of a value (docs/postgres.md#schema). An id
 * already stored raises unique_violation, which \`pe_commit\` turns into an \`exists\` conflict.
 */
export function insertStatement(schema: string, layout: TableLayout): string {
  return `INSERT INTO ${quote(schema)}.${quote(layout.collection)} (id, value, version, shape${columnNames(layout)})
            SELECT x.id, x.v, 1, x.s${columnValues(layout, 'x.v')} FROM jsonb_to_recordset(step -> 'rows') AS x(id text, v jsonb, s integer)`
}

/**
 * The derived columns of the rows a step incremented (docs/postgres.md#schema), set again only when an
 * increment adds to, assigns or removes a field one of them reads: an increment changes the fields
 * its paths name and nothing else (pe_apply or pe_inc, then `- up`), so a step whose paths all lie
 * outside those fields (a code's redeemed quantity) leaves every column as it was. '' for a table
 * without derived columns.
 */
export function columnRefresh(schema: string, layout: TableLayout): string {
  const filter = columnFieldFilter(layout)
  if (!filter) return ''
  return `IF step -> 'rows' @? ${literal(`$[*] ? (exists(@.ap[*] ? (${filter})) || exists(@.sp[*] ? (${filter})) || exists(@.up[*] ? (${filter})))`)} THEN
      UPDATE ${quote(schema)}.${quote(layout.collection)} SET ${columnSets(layout, 'value').slice(2)}
        WHERE id = ANY(ARRAY(SELECT x ->> 'id' FROM jsonb_array_elements(step -> 'rows') x WHERE x ->> 'op' = 'inc'));
    END IF;`
}

/**
 * A step of increments only, every row with `create`, none guarded (a redemption's counters), run by
 * `pe_commit` itself (docs/postgres.md#commit): one upsert adds to the rows that exist and inserts
 * those that do not (as `create` gives them, version 0), one row at a time in the order the adapter
 * sorted them (by id), so its row locks are taken in id order; the rows it inserted (a new customer's,
 * a new code's) then get their increment from a second statement. Each row's increment is its payload
 * row, which `pe_inc` reads with operators. What they wrote goes to `pe_commit`'s `vers`, `vals`
 * and `shps`. Complete statements, each ended by its semicolon.
 */
export function upsertStatements(schema: string, layout: TableLayout): string {
  const s = quote(schema)
  const t = `${s}.${quote(layout.collection)}`
  const slot = `${literal(`${layout.collection}/`)} || u.id`
  const written = (filter: string) =>
    `vers || coalesce(jsonb_object_agg(${slot}, u.version)${filter}, '{}'::jsonb),
            vals || coalesce(jsonb_object_agg(${slot}, u.value)${filter}, '{}'::jsonb),
            shps || coalesce(jsonb_object_agg(${slot}, u.shape)${filter}, '{}'::jsonb)`
  const created = "((x.w -> 'cr') || jsonb_build_object('id', x.id))"
  return `WITH x AS (SELECT w ->> 'id' AS id, w FROM jsonb_array_elements(step -> 'rows') w),
            u AS (INSERT INTO ${t} AS t (id, value, version, shape${columnNames(layout)})
                SELECT x.id, ${created}, 0, (x.w ->> 's')::integer${columnValues(layout, created)} FROM x
              ON CONFLICT (id) DO UPDATE SET (version, value) =
                (SELECT t.version + (x.w ->> 'n')::integer, ${s}.pe_inc(t.value, x.w) FROM x WHERE x.id = excluded.id)
              RETURNING t.id, t.version, t.value, t.shape)
          SELECT array_agg(u.id) FILTER (WHERE u.version = 0), ${written(' FILTER (WHERE u.version > 0)')}
            INTO fresh, vers, vals, shps FROM u;
          IF fresh IS NOT NULL THEN
            WITH u AS (UPDATE ${t} t SET value = ${s}.pe_inc(t.value, x.w), version = t.version + (x.w ->> 'n')::integer
                FROM jsonb_array_elements(step -> 'rows') x(w) WHERE t.id = x.w ->> 'id' AND t.id = ANY(fresh)
                RETURNING t.id, t.version, t.value, t.shape)
            SELECT ${written('')} INTO vers, vals, shps FROM u;
          END IF;
          ${columnRefresh(schema, layout)}`
}

/**
 * A step that increments one existing row (a redemption's code, under its guard), run by `pe_commit`
 * itself (docs/postgres.md#commit): one UPDATE of that row, which reports what it wrote into
 * `vers`, `vals` and `shps`. A row that does not exist raises no_data_found (`STRICT`), a failed
 * guard PE003 (`pe_inc`): `pe_commit` turns them into conflicts. Complete statements, each ended by
 * its semicolon.
 */
export function incrementStatement(schema: string, layout: TableLayout): string {
  const s = quote(schema)
  const t = `${s}.${quote(layout.collection)}`
  const slot = `${literal(`${layout.collection}/`)} || t.id`
  return `UPDATE ${t} t SET value = ${s}.pe_inc(t.value, step -> 'rows' -> 0), version = t.version + (step -> 'rows' -> 0 ->> 'n')::integer
            WHERE t.id = step -> 'rows' -> 0 ->> 'id'
            RETURNING vers || jsonb_build_object(${slot}, t.version), vals || jsonb_build_object(${slot}, t.value),
              shps || jsonb_build_object(${slot}, t.shape)
            INTO STRICT vers, vals, shps;
          ${columnRefresh(schema, layout)}`
}
