import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { captureRedemptionCommit } from './captured-commit'

/*
 * `npx tsx bench/postgres/sparse-indexes.ts` (not a test; docs/postgres.md#indexes-of-the-tables-a-redemption-writes):
 * the sparse indexes alone. One build, two schemas: `promo_engine` with the partial indexes, `fullidx`
 * with the full ones migration step 7 replaced; one captured redemption's commit replayed into each
 * (its inserted ids made fresh), `ROUNDS` alternating rounds of `N` calls on one connection, fsync off
 * then on. Per schema: the client's p50, `pe_commit`'s server time, the backend's CPU per call.
 */
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(f[11]) + Number(f[12])) * 10
}
const N = Number(process.env.N ?? 300)
const ROUNDS = Number(process.env.ROUNDS ?? 12)
const server = await startEmbedded({ track_functions: 'all' })
const pool = new pg.Pool({ connectionString: server.url, max: 2 }).on('error', () => {})
try {
  const { createPostgresStore } = await import('../../src/postgres/index')
  await createPostgresStore({ pool }).migrate()
  await createPostgresStore({ pool, schema: 'fullidx' }).migrate()
  const partial = (
    await pool.query(`SELECT indexname FROM pg_indexes WHERE schemaname = 'fullidx' AND indexdef LIKE '% WHERE %'`)
  ).rows
  for (const r of partial) await pool.query(`DROP INDEX fullidx.${r.indexname}`)
  await pool.query(`CREATE INDEX ON fullidx.activities (f_customer_id_t, f_campaign_id_t, f_created_at_ts NULLS FIRST, id);
    CREATE INDEX ON fullidx.activities (f_customer_id_t, f_campaign_type_t, f_created_at_ts NULLS FIRST, id);
    CREATE INDEX ON fullidx.activities (f_type_t, f_data_referrer_id_t, f_created_at_ts NULLS FIRST, id);
    CREATE INDEX ON fullidx.redemptions (f_related_object_parent_id_t, f_date_ts NULLS FIRST, id);`)
  const { fresh, copyCodeTo } = await captureRedemptionCommit(pool)
  await copyCodeTo('fullidx')
  const schemas = ['promo_engine', 'fullidx']
  console.log(new Date().toISOString(), `${ROUNDS} rounds x ${N}`)
  for (const fsync of (process.env.FSYNC ?? 'off,on').split(',')) {
    await pool.query(`ALTER SYSTEM SET fsync = ${fsync}`)
    await pool.query('SELECT pg_reload_conf()')
    const client = await pool.connect()
    const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p as number
    for (const s of schemas)
      for (let i = 0; i < 30; i++)
        await client.query({ name: `r_${s}`, text: `SELECT ${s}.pe_commit($1::jsonb) AS r`, values: [fresh()] })
    await pool.query('SELECT pg_stat_reset()')
    const cpu = new Map<string, number>()
    const times = new Map<string, number[]>()
    const load = execSync('uptime').toString().trim()
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of round % 2 ? [...schemas].reverse() : schemas) {
        const texts = Array.from({ length: N }, () => fresh())
        const c0 = cpuMs(pid)
        const t = times.get(s) ?? []
        for (const text of texts) {
          const t0 = performance.now()
          const r = await client.query({
            name: `r_${s}`,
            text: `SELECT ${s}.pe_commit($1::jsonb) AS r`,
            values: [text],
          })
          t.push(performance.now() - t0)
          if (r.rows[0].r.ok !== true) throw new Error(JSON.stringify(r.rows[0].r))
        }
        times.set(s, t)
        cpu.set(s, (cpu.get(s) ?? 0) + cpuMs(pid) - c0)
      }
    }
    client.release()
    await new Promise((r) => setTimeout(r, 600))
    const fns = (
      await pool.query(
        `SELECT schemaname AS s, total_time / calls AS ms FROM pg_stat_user_functions WHERE funcname = 'pe_commit'`,
      )
    ).rows
    console.log(`fsync ${fsync}; ${load}; after ${execSync('uptime').toString().trim()}`)
    for (const s of schemas) {
      const t = (times.get(s) as number[]).sort((a, b) => a - b)
      console.log(
        `${s === 'fullidx' ? 'full indexes' : 'sparse indexes'}: client p50 ${t[t.length >> 1]?.toFixed(3)} ms, server ${Number(fns.find((f) => f.s === s)?.ms).toFixed(3)} ms, backend CPU ${((cpu.get(s) ?? 0) / t.length).toFixed(3)} ms per call`,
      )
    }
  }
} finally {
  await pool.end().catch(() => {})
  await server.stop()
}
