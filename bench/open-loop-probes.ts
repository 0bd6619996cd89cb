import { execSync, spawn } from 'node:child_process'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type pg from 'pg'

/*
 * What bench/open-loop.ts reads beside its latencies: the CPU of a process and of the database's
 * processes by role (from /proc), the database connections' CPU by phase (perf), the servers'
 * /metrics, and what the database's backends are doing (pg_stat_activity).
 */

export const host = '127.0.0.1'

/** User and system (kernel: syscalls, the loopback's TCP) CPU time of a process, in ms. */
export function cpuSplit(pid: number | undefined): { user: number; system: number } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return { user: (Number(fields[11]) * 1000) / 100, system: (Number(fields[12]) * 1000) / 100 }
  } catch {
    return null
  }
}

/** A process's parent and CPU times in ms (its own, and its reaped children's), from /proc/<pid>/stat. */
export function procStat(pid: number): { ppid: number; ms: number; children: number } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    const ms = (i: number) => (Number(fields[i]) * 1000) / 100
    return { ppid: Number(fields[1]), ms: ms(11) + ms(12), children: ms(13) + ms(14) }
  } catch {
    return null
  }
}

/** The roles the database's CPU is told by, in the table's order. */
export const ROLES = [
  "server's connections",
  'bench sampler',
  'autovacuum',
  'checkpointer + bgwriter',
  'walwriter',
  'postmaster + other',
  'exited',
] as const

export interface ProcessSnapshot {
  pids: Map<number, { role: string; ms: number }>
  postmaster: { ms: number; children: number }
}

/** Every child of the postmaster with its role (from the title PostgreSQL gives it) and CPU so far. */
export function databaseProcesses(postmaster: number, adminPid: number): ProcessSnapshot {
  const pids = new Map<number, { role: string; ms: number }>()
  let entries: string[] = []
  try {
    entries = readdirSync('/proc')
  } catch {
    // No /proc (not Linux): no CPU figures, as cpuSplit gives none.
  }
  for (const entry of entries) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid <= 0) continue
    const stat = procStat(pid)
    if (!stat || stat.ppid !== postmaster) continue
    let title = ''
    try {
      title = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    } catch {}
    const role =
      pid === adminPid
        ? 'bench sampler'
        : title.includes('autovacuum')
          ? 'autovacuum'
          : title.includes('checkpointer') || title.includes('background writer')
            ? 'checkpointer + bgwriter'
            : title.includes('walwriter')
              ? 'walwriter'
              : /\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(title)
                ? "server's connections"
                : 'postmaster + other'
    pids.set(pid, { role, ms: stat.ms })
  }
  const own = procStat(postmaster)
  return { pids, postmaster: { ms: own?.ms ?? 0, children: own?.children ?? 0 } }
}

/** CPU ms by role between two snapshots; what exited children used comes from the reaped time. */
export function databaseCpuByRole(before: ProcessSnapshot, after: ProcessSnapshot): Map<string, number> {
  const out = new Map<string, number>()
  const add = (role: string, ms: number) => out.set(role, (out.get(role) ?? 0) + ms)
  for (const [pid, p] of after.pids) add(p.role, p.ms - (before.pids.get(pid)?.ms ?? 0))
  // A child reaped during the rate adds its whole life to the postmaster's children time: less what it
  // had used before the rate (counted in `before`).
  let gone = 0
  for (const [pid, p] of before.pids) if (!after.pids.has(pid)) gone += p.ms
  add('exited', after.postmaster.children - before.postmaster.children - gone)
  add('postmaster + other', after.postmaster.ms - before.postmaster.ms)
  return out
}

/** What `perf record` samples, for how long, and how. */
export interface PerfRecording {
  pids: readonly number[]
  /** The data file written. */
  file: string
  seconds: number | string
  /** `--call-graph` (default `dwarf,16384`). */
  callGraph?: string
  /** Samples per second (`-F`; perf's default when absent). */
  frequency?: number
  /** Shows perf's own output (default: thrown away). */
  verbose?: boolean
}

/** `perf record` of these processes for `seconds`; resolves to whether it wrote its file. */
export function recordPerf(r: PerfRecording): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(
      'perf',
      [
        'record',
        '--call-graph',
        r.callGraph ?? 'dwarf,16384',
        ...(r.frequency === undefined ? [] : ['-F', String(r.frequency)]),
        '-p',
        r.pids.join(','),
        '-o',
        r.file,
        '--',
        'sleep',
        String(r.seconds),
      ],
      { stdio: r.verbose ? 'inherit' : 'ignore' },
    )
    child.on('error', () => resolve(false))
    child.on('exit', (code) => resolve(code === 0))
  })
}

/** Records the server's database connections for `seconds`; resolves to the data file, or null. */
export async function perfRecord(postmaster: number, adminPid: number, seconds: number): Promise<string | null> {
  const pids = [...databaseProcesses(postmaster, adminPid).pids]
    .filter(([, p]) => p.role === "server's connections")
    .map(([pid]) => pid)
  const file = join(tmpdir(), `open-loop-perf-${process.pid}-${Date.now()}.data`)
  return (await recordPerf({ pids, file, seconds, frequency: 149 })) ? file : null
}

/**
 * Each sample of the database connections' CPU by the first phase its call stack shows: PostgreSQL's
 * own function names (the commit function runs under plpgsql_call_handler; the statements the server
 * sends are parsed in exec_parse_message and planned in BuildCachedPlan outside it).
 */
export const PHASES: [string, RegExp][] = [
  ['the JSON text of a changeset parsed to jsonb', /jsonb_from_cstring|jsonb_in\b/],
  ['commit function: row triggers', /plpgsql_exec_trigger/],
  ['commit function: planning inside', /BuildCachedPlan/],
  ['commit function: executor start-up', /standard_ExecutorStart|ExecInitNode/],
  ['commit function: index inserts', /ExecInsertIndexTuples/],
  ['commit function: the rest', /plpgsql_call_handler/],
  ["planning the server's statements", /BuildCachedPlan|pg_plan_queries/],
  ["parsing the server's statements", /exec_parse_message|raw_parser|parse_analyze/],
  ["executing the server's reads", /PortalRun/],
  ['transaction commit (WAL, locks released)', /CommitTransaction|AbortTransaction/],
  ['protocol and network', /pq_|secure_read|secure_write|sock_|tcp_|ReadCommand/],
]

export function summarisePerf(file: string | null, rate: number): void {
  if (!file) {
    console.log('\n(perf record failed: no perf, or no right to trace the database processes)')
    return
  }
  const text = execSync(`perf script -i ${file} --no-inline -F ip,sym 2>/dev/null`, {
    maxBuffer: 1 << 30,
  }).toString()
  rmSync(file, { force: true })
  const counts = new Map<string, number>()
  let all = 0
  for (const sample of text.split(/\n\s*\n/)) {
    if (sample.trim() === '') continue
    all++
    const inCommit = sample.includes('plpgsql_call_handler')
    let phase = 'other (idle loop, memory, the kernel)'
    for (const [name, pattern] of PHASES) {
      if (name.startsWith('commit function') && !inCommit) continue
      if (pattern.test(sample)) {
        phase = name
        break
      }
    }
    counts.set(phase, (counts.get(phase) ?? 0) + 1)
  }
  console.log(
    `\nThe database connections' CPU at ${rate}/s by phase (perf, ${all} samples at 149 Hz; each sample counted once, under the first phase its stack shows):\n`,
  )
  console.log('| phase | % of samples |')
  console.log('| --- | ---: |')
  for (const [name, n] of [...counts].sort((a, b) => b[1] - a[1]))
    console.log(`| ${name} | ${((100 * n) / Math.max(1, all)).toFixed(1)} |`)
}

/** The server's /metrics as name{labels} → value (counters, gauges, histogram sums and counts). */
export async function scrape(metricsPort: number): Promise<Map<string, number>> {
  const text = await new Promise<string>((resolve, reject) => {
    const req = httpRequest({ host, port: metricsPort, path: '/metrics', agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
  const values = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const space = line.lastIndexOf(' ')
    values.set(line.slice(0, space), Number(line.slice(space + 1)))
  }
  return values
}

/** Every server's /metrics merged: sums and counts added, the event-loop delay's gauges the worst of them. */
export async function scrapeAll(metricsPorts: number[]): Promise<Map<string, number>> {
  const merged = new Map<string, number>()
  for (const values of await Promise.all(metricsPorts.map(scrape))) {
    for (const [key, value] of values) {
      const before = merged.get(key)
      merged.set(
        key,
        before === undefined ? value : key.includes('eventloop_lag') ? Math.max(before, value) : before + value,
      )
    }
  }
  return merged
}

/** The sum of every series of one metric (all label sets); NaN when the server has no such metric. */
export function total(values: Map<string, number>, name: string): number {
  let sum = Number.NaN
  for (const [key, value] of values) {
    if (key === name || key.startsWith(`${name}{`)) sum = (Number.isNaN(sum) ? 0 : sum) + value
  }
  return sum
}

/**
 * What the server's database connections are doing, sampled from pg_stat_activity every few ms while a
 * rate runs: the mean number of the server's backends in each state. By Little's law, a mean of n
 * backends in a state at r answered requests/s is n / r seconds of that state per request.
 */
export function sampleBackends(admin: pg.Client): {
  stop: () => Promise<{ samples: number; mean: Map<string, number> }>
} {
  let running = true
  let samples = 0
  const counts = new Map<string, number>()
  const loop = (async () => {
    while (running) {
      const rows = (
        await admin.query<{ state: string | null; type: string | null; event: string | null }>(
          `SELECT state, wait_event_type AS type, wait_event AS event FROM pg_stat_activity WHERE application_name = 'promo-engine'`,
        )
      ).rows
      samples++
      for (const r of rows) {
        const key =
          r.state === 'active'
            ? r.type === null
              ? 'running'
              : r.type === 'Lock'
                ? `Lock:${r.event}`
                : `${r.type}:${r.event}`
            : (r.state ?? 'unknown')
        counts.set(key, (counts.get(key) ?? 0) + 1)
      }
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return { samples, mean: new Map([...counts].map(([k, n]) => [k, n / Math.max(1, samples)])) }
    },
  }
}
