/**
 * Percentiles of the qualification bench (bench/qualifications-shop.ts): wall time and this process's
 * CPU time per call (`process.cpuUsage`, which leaves out time spent waiting for a core on a loaded
 * machine), and the rows the memory store's lists examined per call.
 *
 *   npx tsx bench/qualifications-percentiles.ts            # 1,000 tiers
 *   npx tsx bench/qualifications-percentiles.ts 1000 5000  # the same requests on several shop sizes
 *
 * Not a test: times on a shared machine are noisy.
 */
import { qualificationBenchShop } from './qualifications-shop'

const sizes = process.argv.slice(2).map(Number).filter(Boolean)
const SIZES = sizes.length > 0 ? sizes : [1000]
const WARMUP = 100
const CALLS = 1000

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number
}

async function measure(call: () => Promise<unknown>, stats: { rowsExamined: number; calls: number }) {
  for (let i = 0; i < WARMUP; i++) await call()
  const wall: number[] = []
  const cpu: number[] = []
  const rows0 = stats.rowsExamined
  const calls0 = stats.calls
  for (let i = 0; i < CALLS; i++) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    await call()
    wall.push(performance.now() - t0)
    const c = process.cpuUsage(c0)
    cpu.push((c.user + c.system) / 1000)
  }
  wall.sort((a, b) => a - b)
  cpu.sort((a, b) => a - b)
  const f = (x: number) => x.toFixed(2)
  return {
    wall: `${f(percentile(wall, 50))} / ${f(percentile(wall, 95))}`,
    cpu: `${f(percentile(cpu, 50))} / ${f(percentile(cpu, 95))}`,
    rows: Math.round((stats.rowsExamined - rows0) / CALLS),
    calls: Math.round((stats.calls - calls0) / CALLS),
  }
}

console.log('| case | tiers | wall p50 / p95 (ms) | CPU p50 / p95 (ms) | rows examined | store calls |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
for (const n of SIZES) {
  const { engine, store, qualification, best } = await qualificationBenchShop(n)
  const q = await measure(() => engine.raw.qualifications.checkEligibility(qualification), store.stats)
  console.log(`| checkEligibility | ${n} | ${q.wall} | ${q.cpu} | ${q.rows} | ${q.calls} |`)
  const b = await measure(() => engine.raw.qualifications.bestStack(best), store.stats)
  console.log(`| bestStack | ${n} | ${b.wall} | ${b.cpu} | ${b.rows} | ${b.calls} |`)
}
