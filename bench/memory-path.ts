/**
 * The memory path end to end, two builds side by side (docs/storage.md#commit): redeem (10 lines),
 * redeem (100 lines), a member's redemption with earning, validate (10 lines), each on a fresh
 * engine with the default memory store, clock and randomness, as a host embedding the package runs
 * them. Each build is a built package's `dist/` (run `npm run build` first); the runs alternate
 * between the builds in fresh processes, and the table gives the median of each build's runs.
 *
 *   npx tsx bench/memory-path.ts dist ../base-4e5e495/dist        # rounds=9 by default
 *   ROUNDS=15 OPS=400 RAW=runs.json npx tsx bench/memory-path.ts dist ../base/dist
 *
 * The first build is the one measured: the ratios are its figures over each other build's.
 *
 * A child (`--child <dist>`) prints one JSON line: ops/s per workload. Not a test: times on a shared
 * machine are noisy, which is why the builds alternate and the load average is printed.
 */
import { fork } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const OPS = Number(process.env.OPS ?? 400)
const WARMUP = Number(process.env.WARMUP ?? 150)
const ROUNDS = Number(process.env.ROUNDS ?? 9)

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

async function child(dist: string): Promise<void> {
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
  const out: Record<string, number> = {}
  // ONLY=<workload name prefix> runs one workload (for a CPU profile: node --cpu-prof).
  const only = process.env.ONLY
  const workloads = Object.entries(WORKLOADS).filter(([name]) => only === undefined || name.startsWith(only))
  // A first pass compiles the hot paths; the measured pass runs on fresh engines.
  for (const [, make] of workloads) {
    const op = await make(createEngine)
    for (let i = 0; i < WARMUP; i++) await op()
  }
  for (const [name, make] of workloads) {
    const op = await make(createEngine)
    for (let i = 0; i < 20; i++) await op()
    const start = performance.now()
    const cpu = process.cpuUsage()
    for (let i = 0; i < OPS; i++) await op()
    const used = process.cpuUsage(cpu)
    out[name] = OPS / ((performance.now() - start) / 1000)
    // CPU time is what a loaded machine distorts least: waiting for a core does not count.
    out[`${name} cpu`] = OPS / ((used.user + used.system) / 1e6)
  }
  process.stdout.write(`${JSON.stringify(out)}\n`)
}

function run(dist: string): Promise<Record<string, number>> {
  return new Promise((done, fail) => {
    const p = fork(fileURLToPath(import.meta.url), ['--child', dist], { execArgv: ['--import', 'tsx'], silent: true })
    let text = ''
    p.stdout?.on('data', (d) => {
      text += d
    })
    p.stderr?.on('data', (d) => process.stderr.write(d))
    p.on('exit', (code) => (code === 0 ? done(JSON.parse(text)) : fail(new Error(`child exited ${code}`))))
  })
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

async function main(): Promise<void> {
  const builds = process.argv.slice(2)
  if (builds.length === 0) throw new Error('usage: bench/memory-path.ts <dist> [<dist> …]')
  const loads: number[] = [loadavg()[0] as number]
  console.log(
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; ${new Date().toISOString()}; ${OPS} ops per row, ${ROUNDS} rounds`,
  )
  const results = new Map<string, Record<string, number>[]>(builds.map((b) => [b, []]))
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which build goes first, so neither always runs on the warmer or quieter half.
    for (const b of r % 2 ? [...builds].reverse() : builds) results.get(b)?.push(await run(b))
    loads.push(loadavg()[0] as number)
    process.stderr.write(`round ${r + 1}/${ROUNDS}, load ${loads.at(-1)?.toFixed(2)}\n`)
  }
  console.log(
    `load average (1 min) during the run: min ${Math.min(...loads).toFixed(2)}, median ${median(loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)}`,
  )
  // Every run's figures, for a table of another statistic later.
  if (process.env.RAW) writeFileSync(process.env.RAW, JSON.stringify(Object.fromEntries(results)))
  for (const [unit, suffix] of [
    ['ops per second of CPU time', ' cpu'],
    ['ops per second of wall time', ''],
  ] as const) {
    const ratios = builds.slice(1).map((b) => `${builds[0]} ÷ ${b}`)
    console.log(`\n| workload (${unit}, median of ${ROUNDS}) | ${[...builds, ...ratios].join(' | ')} |`)
    console.log(`| --- | ${[...builds, ...ratios].map(() => '---:').join(' | ')} |`)
    for (const name of Object.keys(WORKLOADS)) {
      const runs = builds.map((b) => (results.get(b) ?? []).flatMap((x) => x[`${name}${suffix}`] ?? []))
      if (runs.some((r) => r.length === 0)) continue
      const meds = runs.map(median)
      const vs = meds.slice(1).map((m) => `${((meds[0] as number) / m).toFixed(2)}×`)
      console.log(`| ${name} | ${[...meds.map((m) => m.toFixed(0)), ...vs].join(' | ')} |`)
    }
  }
}

if (process.argv[2] === '--child') await child(process.argv[3] as string)
else await main()
