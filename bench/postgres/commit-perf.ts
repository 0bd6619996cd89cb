import { spawn } from 'node:child_process'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { captureRedemptionCommit } from './captured-commit'

/*
 * `npx tsx bench/postgres/commit-perf.ts` (not a test; docs/postgres.md#commit): a CPU profile of the
 * backend while it runs one redemption's `pe_commit` in a loop. The payload is captured from this
 * checkout's engine (as in commit-replay.ts), replayed from one connection with its inserted ids made
 * fresh each time, and `perf record -g` samples that connection's backend for `PERF_SECONDS`. Prints
 * the `perf report` of the samples, self and children.
 */

const SECONDS = Number(process.env.PERF_SECONDS ?? 8)
const OUT = process.env.PERF_OUT ?? '/tmp/pgcut-perf.data'

const server = await startEmbedded({ track_functions: 'all' })
const pool = new pg.Pool({ connectionString: server.url, max: 2 }).on('error', () => {})
try {
  const { createPostgresStore } = await import('../../src/postgres/index')
  await createPostgresStore({ pool }).migrate()
  const { payload, inserted, fresh } = await captureRedemptionCommit(pool)
  const client = await pool.connect()
  const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p as number
  const sql = { name: 'r', text: 'SELECT promo_engine.pe_commit($1::jsonb) AS r' }
  for (let i = 0; i < 50; i++) await client.query({ ...sql, values: [fresh()] })
  await pool.query('SELECT pg_stat_reset()')
  console.log(
    `${new Date().toISOString()}; backend ${pid}; payload ${payload.length} bytes, ${inserted.length} inserts`,
  )
  const perf = spawn(
    'perf',
    [
      'record',
      ...(process.env.PERF_CALLGRAPH ? ['--call-graph', process.env.PERF_CALLGRAPH] : ['-g']),
      '-o',
      OUT,
      '-p',
      String(pid),
      '--',
      'sleep',
      String(SECONDS),
    ],
    {
      stdio: 'inherit',
    },
  )
  let done = false
  perf.on('exit', () => {
    done = true
  })
  let calls = 0
  while (!done) {
    const r = await client.query({ ...sql, values: [fresh()] })
    if (r.rows[0].r.ok !== true) throw new Error(JSON.stringify(r.rows[0].r))
    calls++
  }
  const fn = await pool.query(
    `SELECT total_time, calls FROM pg_stat_user_functions WHERE funcname = 'pe_commit' AND schemaname = 'promo_engine'`,
  )
  console.log(
    `${calls} calls while sampled; pe_commit ${(fn.rows[0].total_time / fn.rows[0].calls).toFixed(3)} ms per call`,
  )
  client.release()
} finally {
  await pool.end().catch(() => {})
  await server.stop()
}
