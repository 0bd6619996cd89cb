import { fork } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/*
 * A probe of the machine itself, run beside a bench in its own process (not a test): what the bench's
 * processes would all feel at once, and so what no engine change can remove. Every 10 ms it notes how
 * late its timer fired (the process waited for a core) and the CPU time the hypervisor took from this
 * machine (steal, /proc/stat); every 50 ms it appends 8 kB to a file in the temporary directory (where
 * the embedded PostgreSQL keeps its data) and times the `fdatasync`, as a commit with fsync on does.
 * `bench/open-loop.ts` (TRACE=1) sets each burst of slow requests beside what the probe saw then.
 */

/** One reading: when (ms since the epoch), the timer's lateness, the steal since the last reading, a flush's duration (or -1). */
export type Reading = [at: number, lateMs: number, stealMs: number, flushMs: number]

/** The worst the probe saw between two moments (ms since the epoch). */
export interface Window {
  lateMs: number
  stealMs: number
  flushMs: number
}

export interface MachineProbe {
  /** Stops the probe and returns its readings. */
  stop(): Promise<Reading[]>
}

const TICK_MS = 10
const FLUSH_EVERY = 5

/** Starts the probe in a child process. */
export function startMachineProbe(): MachineProbe {
  const child = fork(fileURLToPath(import.meta.url), ['--probe'], { execArgv: ['--import', 'tsx'] })
  const readings = new Promise<Reading[]>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Reading[]))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`machine probe exited ${code}`))))
  })
  return {
    stop() {
      child.send('stop')
      return readings
    },
  }
}

/** The worst reading of each kind between `from` and `to` (ms since the epoch). */
export function worstBetween(readings: readonly Reading[], from: number, to: number): Window {
  const w: Window = { lateMs: 0, stealMs: 0, flushMs: 0 }
  for (const [at, late, steal, flush] of readings) {
    if (at < from || at > to) continue
    w.lateMs = Math.max(w.lateMs, late)
    w.stealMs += steal
    w.flushMs = Math.max(w.flushMs, flush)
  }
  return w
}

/** The probe's own distribution over its run: p99 and max of the timer's lateness and of the flushes. */
export function probeSummary(readings: readonly Reading[]): string {
  const pick = (xs: number[]) => {
    const s = xs.sort((a, b) => a - b)
    return `p99 ${(s[Math.floor(0.99 * (s.length - 1))] ?? 0).toFixed(1)}, max ${(s.at(-1) ?? 0).toFixed(1)}`
  }
  const steal = readings.reduce((sum, r) => sum + r[2], 0)
  return `timer lateness ms ${pick(readings.map((r) => r[1]))}; fdatasync of 8 kB ms ${pick(readings.filter((r) => r[3] >= 0).map((r) => r[3]))}; steal ${steal} ms over ${((readings.length * TICK_MS) / 1000).toFixed(0)} s`
}

function stealMs(): number {
  // cpu  user nice system idle iowait irq softirq steal …, in clock ticks of 10 ms
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]?.trim().split(/\s+/) ?? []
  return Number(fields[8] ?? 0) * 10
}

async function probe(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'machine-probe-'))
  const file = await open(join(dir, 'flush'), 'w')
  const block = Buffer.alloc(8192, 1)
  const readings: Reading[] = []
  let stolen = stealMs()
  let flushing = false
  let tick = 0
  let expected = performance.now() + TICK_MS
  const timer = setInterval(() => {
    const now = performance.now()
    const late = Math.max(0, now - expected)
    expected = now + TICK_MS
    const steal = stealMs()
    const reading: Reading = [performance.timeOrigin + now, late, steal - stolen, -1]
    stolen = steal
    readings.push(reading)
    if (++tick % FLUSH_EVERY === 0 && !flushing) {
      flushing = true
      const t = performance.now()
      void file
        .write(block)
        .then(() => file.datasync())
        .then(() => {
          reading[3] = performance.now() - t
          flushing = false
        })
    }
  }, TICK_MS)
  // The bench that started it ended without stopping it: nothing to report to.
  process.once('disconnect', () => process.exit(0))
  process.once('message', async () => {
    clearInterval(timer)
    await file.close()
    rmSync(dir, { recursive: true, force: true })
    process.send?.(readings, () => process.exit(0))
  })
}

if (process.argv.includes('--probe')) await probe()
