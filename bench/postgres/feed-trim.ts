import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { createPostgresStore } from '../../src/postgres'
import { startEmbedded } from '../../test/postgres/embedded'

/*
 * `npx tsx bench/postgres/feed-trim.ts` (not a test; docs/postgres.md#trimming-the-feed): how fast the
 * change feed's retention deletes, beside the database's own floor for deleting the same rows. One
 * embedded PostgreSQL 17, fsync off and then on. Each pass fills two schemas alike with COMMITS
 * commits of ten changes (values of about VALUE_BYTES, as a redemption's feed rows carry), half of them
 * below a mark two hours old; then `store.trimChanges({ olderThanSeconds: 3600, limit: LIMIT })` runs
 * until `has_more` is false in one schema, and the floor deletes the same rows in the other: a plain
 * `DELETE … WHERE seq >= $1 AND seq < $2` per batch of the same size. Per batch: the client's time, the
 * backend's CPU (/proc/<pid>/schedstat) and the WAL written (`pg_current_wal_lsn()`).
 */

const COMMITS = Number(process.env.COMMITS ?? 20_000)
const LIMIT = Number(process.env.LIMIT ?? 1000)
const VALUE_BYTES = Number(process.env.VALUE_BYTES ?? 700)
const PER_COMMIT = 10

const cpuMs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1] ?? 0
}

async function fill(pool: pg.Pool, schema: string): Promise<void> {
  await createPostgresStore({ pool, schema }).migrate()
  await pool.query(
    `INSERT INTO ${schema}.pe_changes (seq, pos, collection, id, op, version, value, shape)
      SELECT g / ${PER_COMMIT} + 1, g % ${PER_COMMIT}, 'redemptions', 'r_' || g, 'put', 1,
        jsonb_build_object('id', 'r_' || g, 'pad', repeat(md5(g::text), ${Math.ceil(VALUE_BYTES / 32)})), 1
      FROM generate_series(0, ${COMMITS * PER_COMMIT - 1}) g`,
  )
  await pool.query(`INSERT INTO ${schema}.pe_feed_marks VALUES (now() - interval '2 hours', ${COMMITS / 2 + 1})`)
  await pool.query(`VACUUM ANALYZE ${schema}.pe_changes`)
}

interface Batch {
  ms: number
  cpu: number
  wal: number
  deleted: number
}

async function lsn(client: pg.PoolClient): Promise<bigint> {
  const { rows } = await client.query(`SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint AS b`)
  return BigInt(rows[0].b)
}

async function measure(client: pg.PoolClient, pid: number, step: () => Promise<number | null>): Promise<Batch[]> {
  const out: Batch[] = []
  for (;;) {
    const w0 = await lsn(client)
    const c0 = cpuMs(pid)
    const t0 = performance.now()
    const deleted = await step()
    const ms = performance.now() - t0
    const cpu = cpuMs(pid) - c0
    if (deleted === null) break
    out.push({ ms, cpu, deleted, wal: Number((await lsn(client)) - w0) })
  }
  return out
}

const row = (label: string, b: Batch[]) => {
  const n = b.reduce((s, x) => s + x.deleted, 0)
  const ms = b.reduce((s, x) => s + x.ms, 0)
  const cpu = b.reduce((s, x) => s + x.cpu, 0)
  const wal = b.reduce((s, x) => s + x.wal, 0)
  return `| ${label} | ${b.length} | ${n} | ${median(b.map((x) => x.ms)).toFixed(2)} | ${((n / ms) * 1000).toFixed(0)} | ${(cpu / n).toFixed(4)} | ${(wal / n).toFixed(0)} |`
}

console.log(
  `${new Date().toISOString()}; ${COMMITS} commits × ${PER_COMMIT} changes of ~${VALUE_BYTES} B, half old; limit ${LIMIT}; load ${execSync('uptime').toString().trim()}`,
)
for (const fsync of ['off', 'on'] as const) {
  const server = await startEmbedded({ fsync })
  const pool = new pg.Pool({ connectionString: server.url, max: 2 }).on('error', () => {})
  try {
    await fill(pool, 'trimmed')
    await fill(pool, 'floor')
    const client = await pool.connect()
    const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p as number
    const store = createPostgresStore({ client, schema: 'trimmed' })
    let more = true
    const trims = await measure(client, pid, async () => {
      if (!more) return null
      const r = await store.trimChanges({ olderThanSeconds: 3600, limit: LIMIT })
      more = r.has_more
      return r.deleted
    })
    let lo = 1
    const cut = COMMITS / 2 + 1
    const floors = await measure(client, pid, async () => {
      if (lo >= cut) return null
      const hi = Math.min(cut, lo + LIMIT / PER_COMMIT)
      const r = await client.query('DELETE FROM floor.pe_changes WHERE seq >= $1 AND seq < $2', [lo, hi])
      lo = hi
      return r.rowCount ?? 0
    })
    const left = await client.query(
      `SELECT (SELECT count(*) FROM trimmed.pe_changes)::int AS t, (SELECT count(*) FROM floor.pe_changes)::int AS f`,
    )
    client.release()
    console.log(`\n### fsync ${fsync} (rows left: trimmed ${left.rows[0].t}, floor ${left.rows[0].f})\n`)
    console.log(
      '| call | batches | changes deleted | ms per batch (p50) | changes/s | backend CPU ms per change | WAL bytes per change |',
    )
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    console.log(row(`\`trimChanges\` (limit ${LIMIT})`, trims))
    console.log(row('floor: `DELETE … WHERE seq >= $1 AND seq < $2`', floors))
  } finally {
    await pool.end()
    await server.stop()
  }
}
