/**
 * `npm run fuzz:long`: the fuzz properties of `test/operations/fuzz.prop.test.ts`, run far longer.
 * The calls run in a worker thread; the main thread is the wall-time watchdog: a call still running
 * after FUZZ_WATCHDOG_MS (even one blocking its event loop) stops the run and is reported with its
 * arguments. Accepted and refused calls are printed per operation as it ends; at the end, failures
 * with their counterexamples and the slowest calls. Exit code 1 on any failure or stuck call.
 *
 * FUZZ_RUNS (per operation, default 500), FUZZ_SEED (default: from the clock, printed),
 * FUZZ_WATCHDOG_MS (default 10000), FUZZ_ONLY (run the operations whose path contains it).
 */
import { inspect } from 'node:util'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import fc from 'fast-check'
import { calls, checkCall, fixture, OPERATIONS } from '../test/support/fuzz'

interface Settings {
  runs: number
  seed: number
  watchdogMs: number
  only: string
}

type Message =
  | { type: 'start'; op: string; args: string }
  | { type: 'done'; op: string; ms: number; outcome: 'accepted' | 'refused' | 'failed' }
  | { type: 'failure'; op: string; report: string }
  | { type: 'finished'; op: string }
  | { type: 'end' }

const summary = (args: unknown) =>
  inspect(args, {
    depth: 3,
    compact: true,
    breakLength: Number.POSITIVE_INFINITY,
    maxStringLength: 60,
    maxArrayLength: 5,
  }).slice(0, 300)

async function work(settings: Settings): Promise<void> {
  const port = parentPort
  if (!port) throw new Error('fuzz-long: the worker has no parent port')
  const send = (m: Message) => port.postMessage(m)
  for (const [op, sample] of Object.entries(OPERATIONS)) {
    if (!op.includes(settings.only)) continue
    const f = await fixture()
    const details = await fc.check(
      fc.asyncProperty(calls(f, sample, op), async (args) => {
        send({ type: 'start', op, args: summary(args) })
        const started = performance.now()
        let outcome: 'accepted' | 'refused' | 'failed' = 'failed'
        try {
          outcome = await checkCall(f, op, args)
        } finally {
          send({ type: 'done', op, ms: performance.now() - started, outcome })
        }
      }),
      { numRuns: settings.runs, seed: settings.seed, endOnFailure: true },
    )
    if (details.failed) send({ type: 'failure', op, report: fc.defaultReportMessage(details) ?? 'failed' })
    send({ type: 'finished', op })
  }
  send({ type: 'end' })
}

function watch(settings: Settings): void {
  console.log(
    `fuzz:long — ${settings.runs} runs per operation, seed ${settings.seed}, watchdog ${settings.watchdogMs} ms${settings.only ? `, only ${settings.only}` : ''}`,
  )
  const startedAt = performance.now()
  // The worker loads this same file through tsx's loader, registered in the worker itself.
  const boot = `import('tsx/esm/api').then((tsx) => tsx.tsImport(${JSON.stringify(import.meta.url)}, ${JSON.stringify(import.meta.url)}))`
  const worker = new Worker(boot, { eval: true, workerData: settings })
  const counts = new Map<string, { accepted: number; refused: number; failed: number }>()
  const slowest: { op: string; ms: number; args: string }[] = []
  const failures: string[] = []
  let inFlight: { op: string; args: string; since: number } | undefined

  const report = (stuck?: string) => {
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(1)
    console.log(
      `\n${[...counts.values()].reduce((n, c) => n + c.accepted + c.refused + c.failed, 0)} calls in ${seconds} s`,
    )
    console.log('\nslowest calls:')
    for (const s of slowest) console.log(`  ${s.ms.toFixed(1)} ms  ${s.op}  ${s.args}`)
    if (stuck) console.log(`\nSTUCK: ${stuck}`)
    for (const f of failures) console.log(`\nFAILURE ${f}`)
    console.log(`\nseed ${settings.seed}: ${failures.length === 0 && !stuck ? 'no failures' : 'FAILED'}`)
  }

  const timer = setInterval(() => {
    if (inFlight && performance.now() - inFlight.since > settings.watchdogMs) {
      clearInterval(timer)
      const stuck = `${inFlight.op} still running after ${settings.watchdogMs} ms with ${inFlight.args}`
      void worker.terminate().then(() => {
        report(stuck)
        process.exit(1)
      })
    }
  }, 250)

  worker.on('message', (m: Message) => {
    switch (m.type) {
      case 'start':
        inFlight = { op: m.op, args: m.args, since: performance.now() }
        break
      case 'done': {
        const c = counts.get(m.op) ?? { accepted: 0, refused: 0, failed: 0 }
        c[m.outcome]++
        counts.set(m.op, c)
        slowest.push({ op: m.op, ms: m.ms, args: inFlight?.args ?? '' })
        slowest.sort((a, b) => b.ms - a.ms)
        slowest.length = Math.min(slowest.length, 15)
        inFlight = undefined
        break
      }
      case 'failure':
        failures.push(`${m.op}\n${m.report}`)
        break
      case 'finished': {
        const c = counts.get(m.op)
        console.log(`${m.op}: ${c?.accepted ?? 0} accepted, ${c?.refused ?? 0} refused, ${c?.failed ?? 0} failed`)
        break
      }
      case 'end':
        clearInterval(timer)
        report()
        process.exit(failures.length === 0 ? 0 : 1)
        break
      default: {
        const _never: never = m
        return _never
      }
    }
  })
  worker.on('error', (e) => {
    clearInterval(timer)
    failures.push(`worker: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
    report()
    process.exit(1)
  })
}

if (isMainThread) {
  watch({
    runs: Number(process.env.FUZZ_RUNS ?? 500),
    seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31),
    watchdogMs: Number(process.env.FUZZ_WATCHDOG_MS ?? 10_000),
    only: process.env.FUZZ_ONLY ?? '',
  })
} else {
  await work(workerData as Settings)
}
