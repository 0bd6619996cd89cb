import type { Change, ChangePage, ChangesQuery, TrimChangesQuery, TrimChangesResult } from 'promo-engine/storage'
import { trimBounds } from '../storage/ports'
import { feedHorizon } from './feed-numbering'
import type { Statements } from './statements'

/**
 * A store's `changes()`: a page of the change feed in one statement. Readers stop below the oldest
 * transaction in progress (docs/postgres.md#change-feed-and-late-commits): every position below it is
 * final, so a cursor never passes a commit that appears later.
 */
export function feedPages(s: string, statements: Statements): (q?: ChangesQuery) => Promise<ChangePage> {
  const horizon = feedHorizon(s)
  return async function changes(q = {}) {
    const after = q.after ?? 0
    const limit = q.limit ?? 100
    const only = q.collections && q.collections.length > 0 ? q.collections : undefined
    const filter = only ? ' AND collection = ANY($3::text[])' : ''
    // One statement: the seq of the limit-th matching change below the horizon (the page ends with
    // that commit, whole), the page, whether more follows, and the last commit below the horizon.
    const sql = `WITH h AS (SELECT ${horizon} AS h),
      edge AS (SELECT seq FROM ${s}.pe_changes, h WHERE seq > $1 AND seq < h.h${filter} ORDER BY seq, pos OFFSET $2 LIMIT 1),
      page AS (SELECT c.seq, c.pos, c.collection, c.id, c.op, c.version, c.value, c.shape FROM ${s}.pe_changes c, h
        WHERE c.seq > $1 AND c.seq < h.h AND c.seq <= coalesce((SELECT seq FROM edge), h.h)${filter.replace('collection', 'c.collection')})
      SELECT (SELECT seq FROM edge) AS edge,
        (SELECT EXISTS (SELECT 1 FROM ${s}.pe_changes, h WHERE seq > (SELECT seq FROM edge) AND seq < h.h)) AS more,
        (SELECT max(seq) FROM ${s}.pe_changes, h WHERE seq > $1 AND seq < h.h) AS last,
        p.seq, p.collection, p.id, p.op, p.version, p.value, p.shape
      FROM (SELECT 1) one LEFT JOIN page p ON TRUE ORDER BY p.seq, p.pos`
    const { rows } = await statements.query<
      Omit<Change, 'seq'> & {
        seq: string | null
        shape: number | null
        edge: string | null
        more: boolean | null
        last: string | null
      }
    >(sql, only ? [after, limit - 1, only] : [after, limit - 1])
    const head = rows[0]
    const data: Change[] = rows
      .filter((r) => r.seq !== null)
      .map((r) => ({
        seq: Number(r.seq),
        collection: r.collection,
        id: r.id,
        op: r.op,
        version: r.version,
        value: r.op === 'put' ? r.value : null,
        // Changes written before the feed recorded shapes (schema version 3) carry none: read as written.
        shape: r.op === 'put' ? r.shape : null,
      }))
    if (head?.edge != null) return { data, has_more: head.more === true, next_after: Number(head.edge) }
    // Fewer than `limit` matched: the cursor moves past every commit read, matching or not.
    return { data, has_more: false, next_after: head?.last == null ? after : Number(head.last) }
  }
}

/**
 * A store's `trimChanges()` (docs/postgres.md#trimming-the-feed), one statement. A call records a mark
 * (at most one a second, however often a loop calls), its time and the readers' horizon then: every
 * change below that position had committed by that time. The changes below the newest mark made `olderThanSeconds` ago or earlier are old enough; the
 * oldest `limit` of them go, each commit whole: the position of the `limit`-th, read through the
 * primary key, bounds one range delete (two bounds, so a generic plan takes the index). The marks
 * older than that one go with them (the newest mark always stays: `migrate()` keeps new positions
 * above it, feed-numbering.ts). A commit writes nothing for it.
 */
export function feedTrim(s: string, statements: Statements): (q: TrimChangesQuery) => Promise<TrimChangesResult> {
  const horizon = feedHorizon(s)
  const sql = `WITH mark AS (INSERT INTO ${s}.pe_feed_marks SELECT now(), ${horizon}
        WHERE NOT EXISTS (SELECT 1 FROM ${s}.pe_feed_marks WHERE at > now() - interval '1 second') ON CONFLICT (at) DO NOTHING),
      cut AS (SELECT max(at) AS at, max(seq) AS seq FROM (
          SELECT at, seq FROM ${s}.pe_feed_marks WHERE at <= now() - make_interval(secs => $1)
          UNION ALL SELECT now(), ${horizon} WHERE $1 = 0) m),
      edge AS (SELECT seq FROM ${s}.pe_changes WHERE seq < (SELECT seq FROM cut) ORDER BY seq, pos OFFSET $2 - 1 LIMIT 1),
      span AS (SELECT (SELECT seq FROM ${s}.pe_changes ORDER BY seq, pos LIMIT 1) AS lo,
          coalesce((SELECT seq FROM edge), (SELECT seq FROM cut) - 1) AS hi),
      d AS (DELETE FROM ${s}.pe_changes WHERE seq BETWEEN (SELECT lo FROM span) AND (SELECT hi FROM span) RETURNING 1),
      gone AS (DELETE FROM ${s}.pe_feed_marks WHERE at < (SELECT at FROM cut))
    SELECT (SELECT count(*) FROM d)::integer AS deleted,
      EXISTS (SELECT 1 FROM edge) AND EXISTS (SELECT 1 FROM ${s}.pe_changes
        WHERE seq > (SELECT seq FROM edge) AND seq < (SELECT seq FROM cut)) AS more`
  return async function trimChanges(q) {
    const { olderThanSeconds, limit } = trimBounds(q)
    const { rows } = await statements.query<{ deleted: number; more: boolean }>(sql, [olderThanSeconds, limit])
    return { deleted: rows[0]?.deleted ?? 0, has_more: rows[0]?.more === true }
  }
}
