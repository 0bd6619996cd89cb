import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { startEmbedded } from '../../test/postgres/embedded'
import { captureRedemptionCommit } from './captured-commit'
import { buildsBeside, FLOOR_SQL, floorRows, writesFloorSql } from './floor'

/*
 * `npx tsx bench/postgres/commit-replay.ts <earlier dist>` (not a test; docs/postgres.md#commit): the
 * commit function alone, this checkout's against an earlier build's, on one server. One redemption's
 * commit payload (captured from this checkout's engine) is replayed `REPLAY_N` times per round from one
 * connection, its inserted ids made fresh each time, into each build's schema in turn, rounds
 * alternating (`REPLAY_ROUNDS`), fsync off then on. Reports per build the client's mean and p50 per
 * call and the server's `pe_commit` time per call (pg_stat_user_functions): the engine, the driver and
 * the reads left out, so the difference is the function's. The floor call (floor.ts: 19 JSONB inserts
 * and a guarded update in one function, as near-floor.ts measures it) runs in the same rounds, and each
 * build's commit is given as a multiple of it. Beside the server's time (wall time, which a loaded
 * machine stretches), the backend's CPU time per call (/proc/<pid>/stat, utime + stime, read around
 * each block of calls): what the function costs the database, whoever else holds the cores. A second
 * floor runs in the same rounds: the same commit's writes by hand (floor.ts `writesFloorSql`: one
 * static statement per table into this build's tables, nothing else), so the engine's commit is also
 * given as a multiple of what its own rows cost the database.
 */

/** The backend's CPU time so far, ms (clock ticks of 10 ms: a block of calls lasts hundreds of them). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const N = Number(process.env.REPLAY_N ?? 300)
const ROUNDS = Number(process.env.REPLAY_ROUNDS ?? 6)
const earlier = process.argv[2]
/** The schema of the writes by hand (bench/postgres/floor.ts `writesFloorSql`). */
const HAND = 'hand'
if (!earlier) throw new Error('usage: commit-replay.ts <earlier dist>')

const server = await startEmbedded({ track_functions: 'all' })
const pool = new pg.Pool({ connectionString: server.url, max: 2 }).on('error', () => {})
try {
  const builds = buildsBeside(earlier)
  await pool.query(FLOOR_SQL)
  for (const b of builds) {
    const { createPostgresStore } = (await import(b.mod)) as typeof import('../../src/postgres/index')
    await createPostgresStore({ pool, schema: b.schema }).migrate()
  }
  // One redemption of this build's engine, its commit payload kept; the code it increments copied to
  // the earlier build's schema.
  const { payload, inserted, fresh, copyCodeTo } = await captureRedemptionCommit(pool)
  await copyCodeTo('base')
  // The writes by hand in a schema of their own (this checkout's tables), so that neither build's
  // tables hold rows the other's do not: the code and the counter rows the payload increments.
  const { createPostgresStore: ownStore } = await import('../../src/postgres/index')
  await ownStore({ pool, schema: HAND }).migrate()
  await copyCodeTo(HAND)
  await pool.query(`INSERT INTO ${HAND}.counters SELECT * FROM promo_engine.counters`)
  const { insertStatement } = await import('../../src/postgres/commit-statements')
  const { layouts } = await import('../../src/postgres/migrate')
  const tables = [...layouts(HAND).values()]
  await pool.query(writesFloorSql(HAND, (l) => insertStatement(HAND, l as never), tables, JSON.parse(payload)))
  console.log(
    `${new Date().toISOString()}; payload ${payload.length} bytes, ${inserted.length} inserts; ${ROUNDS} rounds × ${N} calls per build`,
  )
  for (const fsync of ['off', 'on']) {
    await pool.query(`ALTER SYSTEM SET fsync = ${fsync}`)
    await pool.query('SELECT pg_reload_conf()')
    const client = await pool.connect()
    const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p as number
    const cpu = new Map<string, number>()
    const times = new Map<string, number[]>([
      ...builds.map((b): [string, number[]] => [b.schema, []]),
      ['floor', []],
      ['writes', []],
    ])
    const writes = { name: 'r_writes', text: `SELECT ${HAND}.pe_floor_writes($1::jsonb) AS ok` }
    for (let i = 0; i < 20; i++) await client.query({ ...writes, values: [fresh()] })
    // The hand-written writes are the commit's: one feed row per entity, every counter row incremented.
    const count = async () =>
      (
        await client.query(
          `SELECT (SELECT count(*) FROM ${HAND}.pe_changes WHERE seq < 0 AND pos >= 1)::int AS f,
            (SELECT sum(version) FROM ${HAND}.counters)::int AS c`,
        )
      ).rows[0] as { f: number; c: number }
    const before = await count()
    await client.query({ ...writes, values: [fresh()] })
    const after = await count()
    const steps = JSON.parse(payload).steps as { c: string; rows: unknown[] }[]
    const counterRows = steps.find((st) => st.c === 'counters')?.rows.length ?? 0
    if (after.f - before.f !== inserted.length + counterRows + 1 || after.c - before.c < counterRows)
      throw new Error(
        `the writes floor wrote ${after.f - before.f} feed rows and ${after.c - before.c} counter versions`,
      )
    for (const b of builds)
      for (let i = 0; i < 20; i++) await client.query(`SELECT ${b.schema}.pe_commit($1::jsonb)`, [fresh()])
    let f = 0
    const floor = { name: 'r_floor', text: 'SELECT floor.apply($1::jsonb, 0) AS ok' }
    for (let i = 0; i < 20; i++) await client.query({ ...floor, values: [floorRows(`${fsync}-w-${f++}`)] })
    await new Promise((r) => setTimeout(r, 600))
    await pool.query('SELECT pg_stat_reset()')
    const load = execSync('uptime').toString().trim()
    for (let round = 0; round < ROUNDS; round++) {
      const floorTimes = times.get('floor') as number[]
      let c0 = cpuMs(pid)
      for (let i = 0; i < N; i++) {
        const values = [floorRows(`${fsync}-${f++}`)]
        const t = performance.now()
        const r = await client.query({ ...floor, values })
        floorTimes.push(performance.now() - t)
        if (r.rows[0].ok !== true) throw new Error('the floor call failed')
      }
      cpu.set('floor', (cpu.get('floor') ?? 0) + cpuMs(pid) - c0)
      const writesTimes = times.get('writes') as number[]
      c0 = cpuMs(pid)
      for (let i = 0; i < N; i++) {
        const values = [fresh()]
        const t = performance.now()
        const r = await client.query({ ...writes, values })
        writesTimes.push(performance.now() - t)
        if (r.rows[0].ok !== true) throw new Error('the writes floor failed')
      }
      cpu.set('writes', (cpu.get('writes') ?? 0) + cpuMs(pid) - c0)
      for (const b of round % 2 ? [...builds].reverse() : builds) {
        const sql = { name: `r_${b.schema}`, text: `SELECT ${b.schema}.pe_commit($1::jsonb) AS r` }
        c0 = cpuMs(pid)
        for (let i = 0; i < N; i++) {
          const text = fresh()
          const t = performance.now()
          const r = await client.query({ ...sql, values: [text] })
          ;(times.get(b.schema) as number[]).push(performance.now() - t)
          if (r.rows[0].r.ok !== true) throw new Error(JSON.stringify(r.rows[0].r))
        }
        cpu.set(b.schema, (cpu.get(b.schema) ?? 0) + cpuMs(pid) - c0)
      }
    }
    client.release()
    await new Promise((r) => setTimeout(r, 600))
    const fns = await pool.query(
      `SELECT schemaname AS s, funcname AS f, total_time, calls FROM pg_stat_user_functions
        WHERE funcname = 'pe_commit' OR (schemaname = 'floor' AND funcname = 'apply')
          OR funcname = 'pe_floor_writes'`,
    )
    console.log(`\n### fsync ${fsync} (load before: ${load}; after: ${execSync('uptime').toString().trim()})\n`)
    console.log(
      '| call | client mean ms | client p50 ms | server ms per call | backend CPU ms per call | ÷ floor (p50) | ÷ floor (server) | ÷ writes by hand (p50, server, CPU) |',
    )
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    const stats = (schema: string) => {
      const t = (times.get(schema) as number[]).sort((x, y) => x - y)
      const fn = fns.rows.find((r) =>
        schema === 'writes' ? r.f === 'pe_floor_writes' : r.s === schema && r.f !== 'pe_floor_writes',
      )
      return {
        mean: t.reduce((a, x) => a + x, 0) / t.length,
        p50: t[Math.floor(t.length / 2)] ?? 0,
        server: fn.total_time / fn.calls,
        cpu: (cpu.get(schema) ?? 0) / t.length,
      }
    }
    const base = stats('floor')
    const own = stats('writes')
    for (const [label, s] of [
      ...builds.map((b): [string, ReturnType<typeof stats>] => [`${b.label}: pe_commit`, stats(b.schema)]),
      ['floor: 19 JSONB inserts + guarded update', base] as [string, ReturnType<typeof stats>],
      ["floor: this commit's writes by hand", own] as [string, ReturnType<typeof stats>],
    ])
      console.log(
        `| ${label} | ${s.mean.toFixed(3)} | ${s.p50.toFixed(3)} | ${s.server.toFixed(3)} | ${s.cpu.toFixed(3)} | ${(s.p50 / base.p50).toFixed(2)} | ${(s.server / base.server).toFixed(2)} | ${(s.p50 / own.p50).toFixed(2)}, ${(s.server / own.server).toFixed(2)}, ${(s.cpu / own.cpu).toFixed(2)} |`,
      )
  }
} finally {
  await pool.end().catch(() => {})
  await server.stop()
}
