import type { Queryable } from './connection'

/*
 * The change feed's numbering on PostgreSQL (docs/postgres.md#change-feed-and-late-commits). A commit's
 * position is `pe_feed_base()` plus the 64-bit id of a subtransaction it begins after its last write;
 * a reader lists only positions below `pe_feed_base()` plus the oldest transaction still in progress,
 * so nothing below what it read can commit later.
 */

/** The position below which every commit has ended, as of the statement's snapshot (SQL). */
export function feedHorizon(s: string): string {
  return `(${s}.pe_feed_base() + pg_snapshot_xmin(pg_current_snapshot())::text::bigint)`
}

/**
 * Keeps new positions above every stored one (and above the newest trim's mark: a trimmed feed's
 * positions were handed out too), and installs `pe_feed_base()`, run by every `migrate()`.
 * Positions written by the one-row counter before schema version 4 are small; a database restored
 * into a new cluster (a dump, not `pg_upgrade`) restarts transaction ids below the positions it
 * holds. Either way the base rises until the next transaction id lands above the newest position, so
 * readers list the rows stored before, once, then the new ones.
 */
export async function installFeedBase(db: Queryable, s: string): Promise<void> {
  const { rows } = await db.query<{ base: string }>(
    `WITH m AS (SELECT coalesce(greatest((SELECT max(seq) FROM ${s}.pe_changes), (SELECT max(seq) FROM ${s}.pe_feed_marks)), 0)
          + 1 - pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS need),
      u AS (UPDATE ${s}.pe_feed f SET base = m.need FROM m WHERE m.need > f.base RETURNING f.base)
    SELECT coalesce((SELECT base FROM u), (SELECT base FROM ${s}.pe_feed)) AS base`,
  )
  const base = BigInt(rows[0]?.base ?? 0)
  // A constant the planner folds into the commit function and the readers: no row read per commit.
  await db.query(
    `CREATE OR REPLACE FUNCTION ${s}.pe_feed_base() RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT ${base}::bigint $$`,
  )
}
