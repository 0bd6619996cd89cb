/**
 * The memory path end to end, two builds side by side (docs/storage.md#commit): redeem (10 lines),
 * redeem (100 lines), a member's redemption with earning, validate (10 lines), each on a fresh
 * engine with the default memory store, clock and randomness, as a host embedding the package runs
 * them. Each build is a built package's `dist/` (run `npm run build` first).
 *
 *   npx tsx bench/memory-path.ts dist ../base-4e5e495/dist        # ROUNDS=15 by default
 *   ROUNDS=21 OPS=600 RAW=runs.json npx tsx bench/memory-path.ts dist ../base/dist
 *   npx tsx bench/memory-path.ts --report runs.json    # the tables of a run, stopped early or not
 *
 * The first build is the one measured: the ratios are its figures over each other build's.
 *
 * The method (what makes a ratio trustworthy on a shared machine; bench/RESULTS.md says more):
 * - every (round, workload, build) is its own child process, so one build's garbage or compiled code
 *   never lands in another's window, nor one workload's in the next;
 * - within a round the builds of one workload run back to back, first one build then the other, the
 *   order rotating between rounds, so a ratio compares two runs a few seconds apart;
 * - a child measures two windows, each on a fresh engine after 20 calls and a full collection
 *   (`--expose-gc`), so each build pays for the garbage of its window, not for what came before: one
 *   after WARMUP calls of a warm-up engine of its own (the process still compiling its hot paths, as
 *   in a host's first seconds) and one after STEADY calls (the compiler done: a host's steady state),
 *   that one REPEAT times on fresh engines, its median kept (`WINDOWS=300` measures the first alone,
 *   a short child, so many more rounds fit: the early window is the noisiest);
 * - the tables give each build's median with its spread (lowest–highest of the rounds) and, per other
 *   build, the median of the per-round ratios with their interquartile range and how many rounds
 *   came out at least 1.
 *
 * A child (`--child <dist> <workload>`) prints one JSON line: per window, calls per second of wall
 * time, of CPU time of every thread (`process.cpuUsage`: the compiler's and the collector's
 * background threads included) and of the main thread alone (`/proc/thread-self/schedstat`: what the
 * host's event loop spends). CPU time is what a loaded machine distorts least, since waiting for a
 * core does not count; the early window's background compiles make the every-thread figure the
 * noisier of the two. `PROFILE=<dir>` writes a CPU profile of each measured window.
 */
import { fork } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { cpus, loadavg } from 'node:os'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const OPS = Number(process.env.OPS ?? 400)
const WARMUP = Number(process.env.WARMUP ?? 300)
const STEADY = Number(process.env.STEADY ?? 3000)
const ROUNDS = Number(process.env.ROUNDS ?? 15)
// The windows measured, by how many calls precede them: `WINDOWS=300` measures the early one alone.
const WINDOWS = (process.env.WINDOWS ?? `${WARMUP},${STEADY}`).split(',').map(Number)
// A window after the compiler is done (≥ 1000 calls) is measured REPEAT times, on a fresh engine each,
// and reported by its median: what it measures does not change from one repeat to the next.
const REPEAT = Number(process.env.REPEAT ?? 3)

type Engine = {
  raw: Record<string, Record<string, (...a: unknown[]) => Promise<unknown>>>
  [ns: string]: unknown
}
type Op = () => Promise<unknown>

const lines = (n: number, products: string[]) =>
  Array.from({ length: n }, (_, i) => ({
    product_id: products[i % products.length],
    price: 1000 + ((i * 7919) % 5000),
    quantity: 1 + (i % 3),
  }))

/** Each workload: a fresh engine, its shop, and the request it repeats. */
const WORKLOADS: Record<string, (createEngine: (o?: object) => Engine) => Promise<Op>> = {
  'redeem (10 lines)': (c) => redeem(c, 10, false),
  'redeem (100 lines)': (c) => redeem(c, 100, false),
  "member's redemption with earning": (c) => redeem(c, 10, true),
  'validate (10 lines)': async (createEngine) => {
    const engine = createEngine()
    const products = await shop(engine)
    const body = {
      customer: { source_id: 'ana' },
      order: { items: lines(10, products) },
      redeemables: [{ object: 'voucher', id: 'TEN' }],
    }
    const validations = engine.raw.validations as { validateStackable(b: unknown): Promise<{ valid: boolean }> }
    if (!(await validations.validateStackable(body)).valid) throw new Error('bench setup: TEN is not valid')
    return () => validations.validateStackable(body)
  },
}

async function shop(engine: Engine): Promise<string[]> {
  const raw = engine.raw as Record<string, Record<string, (b: unknown) => Promise<{ id: string }>>>
  const products: string[] = []
  for (let i = 0; i < 10; i++) {
    products.push(
      (await raw.products?.create?.({ name: `P${i}`, source_id: `p${i}`, price: 1000 + i * 100 }))?.id ?? '',
    )
  }
  await raw.vouchers?.create?.({
    code: 'TEN',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'PERCENT', percent_off: 10 },
  })
  return products
}

async function redeem(createEngine: (o?: object) => Engine, n: number, member: boolean): Promise<Op> {
  const engine = createEngine()
  const products = await shop(engine)
  if (member) {
    const loyalties = engine.loyalties as Record<string, (...a: unknown[]) => Promise<{ id: string }>>
    const club = await (loyalties.create as (b: unknown) => Promise<{ id: string }>)({
      name: 'Club',
      type: 'AUTO_UPDATE',
      vouchers_count: 0,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
    })
    await (loyalties.createEarningRule as (id: string, b: unknown) => Promise<unknown>)(club.id, [
      {
        event: 'order.paid',
        loyalty: {
          type: 'PROPORTIONAL',
          calculation_type: 'ORDER_AMOUNT',
          order: { amount: { every: 100, points: 1 } },
        },
      },
    ])
    await (loyalties.createMember as (id: string, b: unknown) => Promise<unknown>)(club.id, {
      customer: { source_id: 'ana' },
    })
  }
  const redemptions = engine.raw.redemptions as {
    redeemStackable(b: unknown): Promise<{ redemptions: { result: string }[] }>
  }
  const body = {
    customer: { source_id: 'ana' },
    order: { items: lines(n, products), ...(member ? { status: 'PAID' } : {}) },
    redeemables: [{ object: 'voucher', id: 'TEN' }],
  }
  const first = await redemptions.redeemStackable(body)
  if (first.redemptions.some((r) => r.result !== 'SUCCESS')) throw new Error('bench setup: redemption failed')
  return () => redemptions.redeemStackable(body)
}

async function child(dist: string, name: string): Promise<void> {
  // `src` runs the sources through tsx (for a profile that names source files); anything else is a built dist/.
  const entry =
    dist === 'src' ? new URL('../src/index.ts', import.meta.url).href : pathToFileURL(resolve(dist, 'index.js')).href
  const built = (await import(entry)) as {
    createEngine: (o?: object) => Engine
  }
  // `engine.raw` (the operations typed for untrusted bodies) came after 4e5e495: the same functions.
  const createEngine = (o?: object) => {
    const engine = built.createEngine(o)
    return { ...engine, raw: engine.raw ?? engine } as Engine
  }
  const make = WORKLOADS[name]
  if (!make) throw new Error(`unknown workload ${name}`)
  const out: Record<string, Window> = {}
  // Warm-up compiles the hot paths on an engine of its own; the measured calls run on fresh ones.
  const warm = await make(createEngine)
  let warmed = 0
  for (const calls of WINDOWS) {
    for (; warmed < calls; warmed++) await warm()
    const repeats: Window[] = []
    for (let k = 0; k < (calls >= 1000 ? REPEAT : 1); k++) {
      repeats.push(await measure(await make(createEngine), `${name.replace(/\W+/g, '-')}-after-${calls}-${k}`))
    }
    const mid = (field: keyof Window) => median(repeats.map((r) => r[field]))
    out[`after ${calls} calls`] = { wall: mid('wall'), cpu: mid('cpu'), main: mid('main') }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`)
}

/** One window: OPS calls of `op` after 20 and a full collection, per second of wall, every thread's and the main thread's CPU. */
async function measure(op: Op, label: string): Promise<Window> {
  for (let i = 0; i < 20; i++) await op()
  ;((globalThis as { gc?: () => void }).gc ?? (() => {}))()
  const session = process.env.PROFILE ? new Session() : undefined
  if (session) {
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.start')
  }
  const start = performance.now()
  const cpu = process.cpuUsage()
  const mainAt = mainThreadSeconds()
  for (let i = 0; i < OPS; i++) await op()
  const mainUsed = mainThreadSeconds() - mainAt
  const used = process.cpuUsage(cpu)
  const wall = (performance.now() - start) / 1000
  if (session) {
    const { profile } = await session.post('Profiler.stop')
    const dir = process.env.PROFILE as string
    mkdirSync(dir, { recursive: true })
    writeFileSync(resolve(dir, `${label}-${process.pid}.cpuprofile`), JSON.stringify(profile))
    session.disconnect()
  }
  return { wall: OPS / wall, cpu: OPS / ((used.user + used.system) / 1e6), main: OPS / mainUsed }
}

/**
 * CPU time of the calling thread alone (Linux `schedstat`: nanoseconds on a core), so neither the
 * compiler's nor the collector's background threads count: what the host's event loop spends.
 */
function mainThreadSeconds(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e9
  } catch {
    return Number.NaN
  }
}

type Window = { wall: number; cpu: number; main: number }

function run(dist: string, name: string): Promise<Record<string, Window>> {
  return new Promise((done, fail) => {
    const p = fork(fileURLToPath(import.meta.url), ['--child', dist, name], {
      execArgv: ['--import', 'tsx', '--expose-gc'],
      silent: true,
    })
    let text = ''
    p.stdout?.on('data', (d) => {
      text += d
    })
    p.stderr?.on('data', (d) => process.stderr.write(d))
    p.on('exit', (code) => (code === 0 ? done(JSON.parse(text)) : fail(new Error(`child exited ${code}`))))
  })
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (s.length - 1) * q
  const lo = Math.floor(at)
  return (s[lo] as number) + ((s[Math.ceil(at)] as number) - (s[lo] as number)) * (at - lo)
}
const median = (xs: number[]) => quantile(xs, 0.5)

type Results = Record<string, Record<string, Record<string, Window>[]>>

async function main(): Promise<void> {
  const builds = process.argv.slice(2)
  if (builds.length === 0) throw new Error('usage: bench/memory-path.ts <dist> [<dist> …]')
  const names = Object.keys(WORKLOADS).filter((n) => process.env.ONLY === undefined || n.startsWith(process.env.ONLY))
  const loads: number[] = [loadavg()[0] as number]
  console.log(
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; ${new Date().toISOString()}; windows after ${WINDOWS.join(' and ')} warm-up calls (those after ≥ 1000 the median of ${REPEAT}), ${OPS} measured calls each, ${ROUNDS} rounds, a process per run`,
  )
  // results[workload][build][round][window]
  const results: Results = Object.fromEntries(names.map((n) => [n, Object.fromEntries(builds.map((b) => [b, []]))]))
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate which build goes first, so none always runs on the warmer or quieter side of a pair.
    const order = builds.map((_, i) => builds[(i + r) % builds.length] as string)
    for (const name of names) {
      for (const b of order) {
        results[name]?.[b]?.push(await run(b, name))
      }
    }
    loads.push(loadavg()[0] as number)
    process.stderr.write(`round ${r + 1}/${ROUNDS}, load ${loads.at(-1)?.toFixed(2)}\n`)
    // Every run's figures so far: a run stopped early still has its tables (`--report <file>`).
    if (process.env.RAW) writeFileSync(process.env.RAW, JSON.stringify({ builds, results, loads }))
  }
  report(builds, results, loads)
}

function report(builds: string[], results: Results, loads: number[]): void {
  console.log(
    `load average (1 min) during the run: min ${Math.min(...loads).toFixed(2)}, median ${median(loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)}`,
  )
  const rounds = Math.min(...Object.values(results).flatMap((byBuild) => Object.values(byBuild).map((r) => r.length)))
  const windows = [
    ...new Set(Object.values(results).flatMap((byBuild) => Object.values(byBuild).flat().flatMap(Object.keys))),
  ]
  for (const [unit, field] of [
    ['calls per second of CPU time, every thread', 'cpu'],
    ['calls per second of CPU time, the main thread alone', 'main'],
    ['calls per second of wall time', 'wall'],
  ] as const) {
    const ratios = builds.slice(1).map((b) => `${builds[0]} ÷ ${b}`)
    console.log(
      `\n| workload (${unit}; median, lowest–highest of ${rounds}) | ${builds.join(' | ')} | ${ratios.map((r) => `${r} (median, IQR, rounds ≥ 1)`).join(' | ')} |`,
    )
    console.log(`| --- | ${[...builds, ...ratios].map(() => '---:').join(' | ')} |`)
    for (const row of Object.keys(results).flatMap((name) => windows.map((w) => [name, w] as const))) {
      const [name, window] = row
      const runs = builds.map((b) =>
        (results[name]?.[b] ?? []).slice(0, rounds).map((x) => x[window]?.[field] ?? Number.NaN),
      )
      const cells = runs.map(
        (xs) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`,
      )
      const first = runs[0] as number[]
      // Paired by round: the two runs of a pair were a few seconds apart, under the same load.
      const vs = runs.slice(1).map((xs) => {
        const paired = xs.map((x, i) => (first[i] as number) / x)
        const wins = paired.filter((p) => p >= 1).length
        return `${median(paired).toFixed(2)}× (${quantile(paired, 0.25).toFixed(2)}–${quantile(paired, 0.75).toFixed(2)}, ${wins}/${paired.length})`
      })
      console.log(`| ${name}, ${window} | ${[...cells, ...vs].join(' | ')} |`)
    }
  }
}

if (process.argv[2] === '--child') await child(process.argv[3] as string, process.argv[4] as string)
else if (process.argv[2] === '--report') {
  const saved = JSON.parse(readFileSync(process.argv[3] as string, 'utf8')) as {
    builds: string[]
    results: Results
    loads: number[]
  }
  report(saved.builds, saved.results, saved.loads)
} else await main()
