import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFINITIONS } from '../../packages/server/src/setting-definitions'
import { type Embedded, freePort, startEmbedded } from '../postgres/embedded'

/**
 * The built CLI (`packages/server/bin/promo-engine.js` running `dist/cli.js`: what `npx promo-engine serve` runs) as a deployment
 * runs it: its own process on an embedded PostgreSQL, signalled, restarted, its database stopped
 * under it. Checked on what operators see: exit codes, stderr lines, JSON log lines, /readyz,
 * /metrics, and the answers clients get.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const CLI = join(ROOT, 'packages/server/bin/promo-engine.js')
/** The server application's keys; the rotation test gives it a new secret. */
const SERVER = { id: 'app_cli_test', secret: 's'.repeat(32) }
const keys = () => ({ 'X-App-Id': SERVER.id, 'X-App-Token': SERVER.secret })
const FILES_SECRET = 'f'.repeat(40)

let pg: Embedded
let cwd: string

beforeAll(async () => {
  const built = spawnSync('npm', ['run', 'build:server', '--silent'], { cwd: ROOT, encoding: 'utf8' })
  if (built.status !== 0) throw new Error(`npm run build:server failed: ${built.stderr}`)
  pg = await startEmbedded({ fsync: 'off' })
  cwd = mkdtempSync(join(tmpdir(), 'promo-cli-'))
}, 120_000)

afterAll(async () => {
  await pg?.stop()
  rmSync(cwd, { recursive: true, force: true })
})

interface Cli {
  child: ChildProcess
  url: string
  metricsUrl: string
  /** Every stdout line, parsed. */
  logs: Record<string, unknown>[]
  stdout: () => string
  exit: Promise<{ code: number | null; stderr: string }>
}

function run(args: string[], env: Record<string, string> = {}, command = [process.execPath, CLI]) {
  const child = spawn(command[0] as string, [...command.slice(1), ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      DATABASE_URL: pg.url,
      PROMO_FILES_SECRET: FILES_SECRET,
      PROMO_APP_ID: SERVER.id,
      PROMO_APP_SECRET: SERVER.secret,
      LOG_LEVEL: 'info',
      ...env,
    },
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stderr })),
  )
  return { child, exit, stdout: () => stdout }
}

const parsed = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)

/** Starts `serve` and waits for its `listening` line. */
async function serve(env: Record<string, string> = {}, npm?: string[]): Promise<Cli> {
  const port = await freePort()
  const metricsPort = await freePort()
  const flags = ['--port', String(port), '--metrics-port', String(metricsPort)]
  const started = npm ? run(flags, env, npm) : run(['serve', ...flags], env)
  await until(async () => {
    const exited = started.child.exitCode !== null
    if (exited) throw new Error(`serve exited: ${(await started.exit).stderr}${started.stdout()}`)
    return started.stdout().includes('"msg":"listening"')
  })
  return {
    ...started,
    url: `http://127.0.0.1:${port}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    get logs() {
      return parsed(started.stdout())
    },
  }
}

/** Polls until `done` holds; bounded, so a broken server fails the test instead of hanging it. */
async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await done()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('the condition never held')
}

async function stop(cli: Cli, signal: NodeJS.Signals = 'SIGTERM') {
  cli.child.kill(signal)
  return cli.exit
}

const api = (cli: Cli, path: string, init: RequestInit = {}) =>
  fetch(`${cli.url}${path}`, { ...init, headers: { ...keys(), 'Content-Type': 'application/json', ...init.headers } })

describe('promo-engine serve (the built CLI) on PostgreSQL', { timeout: 60_000 }, () => {
  it("the built CLI imports only Node's modules and its package's dependencies; the library's are bundled, never pinned twice", () => {
    const bundle = readFileSync(join(ROOT, 'packages/server/dist/cli.js'), 'utf8')
    // An ES module bundle: its imports are statements of their own lines, or import() calls.
    const bare = [
      ...bundle.matchAll(/^import\b[^;\n]*?["']([^"'./][^"'\n]*)["'];?$|\bimport\(\s*["']([^"'./][^"'\n]*)["']\s*\)/gm),
    ]
    const imported = new Set(
      bare
        .map((m) => (m[1] ?? m[2]) as string)
        .filter((name) => !builtinModules.includes(name.replace(/^node:/, '')))
        .map((name) =>
          name
            .split('/')
            .slice(0, name.startsWith('@') ? 2 : 1)
            .join('/'),
        ),
    )
    const own = (path: string) =>
      JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as {
        dependencies: Record<string, string>
        devDependencies?: Record<string, string>
      }
    const server = own('packages/server/package.json')
    const root = own('package.json')
    expect([...imported].sort()).toEqual(Object.keys(server.dependencies).sort())
    // decimal.js and valibot come with the library's source, from the root's lock: one version each.
    for (const name of Object.keys(root.dependencies)) expect(server.dependencies).not.toHaveProperty(name)
    // What both name (pg, the HTTP adapter) is the same version in both.
    for (const [name, version] of Object.entries(server.dependencies)) {
      const rootVersion = root.dependencies[name] ?? root.devDependencies?.[name]
      if (rootVersion !== undefined) expect(`${name}@${version}`).toBe(`${name}@${rootVersion}`)
    }
  })

  it('checks its settings at start: one line naming the variable and the rule, exit 1; --help lists each', async () => {
    for (const [env, named] of [
      [{ PROMO_DB_POOL_SIZE: '0' }, 'PROMO_DB_POOL_SIZE must be a whole number from 1 to 1000'],
      [{ PROMO_APP_SECRET: 'x'.repeat(21) }, 'PROMO_APP_SECRET must be 24 to 512 characters; it has 21'],
      [{ PROMO_FILES_SECRET: '' }, 'PROMO_FILES_SECRET must be set'],
    ] as const) {
      const { code, stderr } = await run(['serve'], env).exit
      expect(code).toBe(1)
      expect(stderr.trim().split('\n')).toHaveLength(1)
      expect(stderr).toContain(named)
    }
    const help = run(['--help'])
    expect((await help.exit).code).toBe(0)
    for (const d of Object.values(DEFINITIONS)) {
      expect(help.stdout()).toContain(d.env)
      if (d.fallback !== undefined) expect(help.stdout()).toContain(`(default ${d.fallback})`)
    }
  })

  it('restarts on its own data with the kept keys; refuses another secret for the app id; rotate-secret changes it', async () => {
    const first = await serve()
    expect((await api(first, '/v1/customers', { method: 'POST', body: '{"source_id":"kept"}' })).status).toBe(200)
    expect(await stop(first)).toMatchObject({ code: 0 })

    const again = await serve()
    expect((await api(again, '/v1/customers/kept')).status).toBe(200)
    expect(again.logs.find((l) => l.family === 'server')).toMatchObject({ outcome: 'existing' })
    expect(await stop(again)).toMatchObject({ code: 0 })

    const wrong = await run(['serve', '--port', '0', '--metrics-port', '0'], { PROMO_APP_SECRET: 'w'.repeat(32) }).exit
    expect(wrong.code).toBe(1)
    expect(wrong.stderr.trim().split('\n')).toEqual([
      `PROMO_APP_SECRET is not the secret stored for server application ${SERVER.id} (PROMO_APP_ID), or that id belongs to another kind of application; to give it a new secret run: promo-engine rotate-secret ${SERVER.id}`,
    ])

    const rotate = run(['rotate-secret', SERVER.id])
    expect((await rotate.exit).code).toBe(0)
    const rotated = JSON.parse(rotate.stdout()) as { app_id: string; secret: string }
    expect(rotated.app_id).toBe(SERVER.id)
    const old = SERVER.secret
    SERVER.secret = rotated.secret
    const withNew = await serve({ PROMO_APP_SECRET: rotated.secret })
    expect((await api(withNew, '/v1/customers/kept')).status).toBe(200)
    expect((await api(withNew, '/v1/customers/kept', { headers: { 'X-App-Token': old } })).status).toBe(401)
    // Secrets are never logged.
    expect(withNew.stdout()).not.toContain(rotated.secret)
    expect(await stop(withNew)).toMatchObject({ code: 0 })
  })

  it('a server already running refuses a secret rotated by another process, without reading the credential per request', async () => {
    const live = await serve()
    // Its read cache listens once the credential has been read (the keys' check at start reads it).
    await until(() => live.logs.some((l) => l.msg === 'read cache: listening for notices'))
    expect((await api(live, '/v1/customers/kept')).status).toBe(200)
    const rotate = run(['rotate-secret', SERVER.id])
    expect((await rotate.exit).code).toBe(0)
    const old = SERVER.secret
    SERVER.secret = (JSON.parse(rotate.stdout()) as { secret: string }).secret
    // The notice reaches it as the rotation commits: the old secret is refused from then on.
    await until(async () => (await api(live, '/v1/customers/kept', { headers: { 'X-App-Token': old } })).status === 401)
    expect((await api(live, '/v1/customers/kept')).status).toBe(200)
    expect(live.logs.filter((l) => l.msg === 'read cache: off until its listener is back')).toEqual([])
    expect(await stop(live)).toMatchObject({ code: 0 })
  })

  it('writes the keys it creates once, mode 0600, names the file in the log, and reads them at restart', async () => {
    const env = { PROMO_APP_ID: '', PROMO_APP_SECRET: '', PROMO_KEYS_FILE: join(cwd, 'keys.json') }
    const first = await serve(env)
    expect(statSync(join(cwd, 'keys.json')).mode & 0o777).toBe(0o600)
    expect(first.logs.find((l) => l.keys_file !== undefined)).toMatchObject({ keys_file: join(cwd, 'keys.json') })
    await stop(first)
    const again = await serve(env)
    expect(again.logs.filter((l) => l.msg === 'application keys').map((l) => l.outcome)).toEqual([
      'existing',
      'existing',
      'existing',
    ])
    await stop(again)
  })

  it('answers 503 with Retry-After and /readyz 503 while the database is down, and serves again once it is back', async () => {
    const cli = await serve({ PROMO_ASYNC_INTERVAL_MS: '50' })
    expect((await fetch(`${cli.url}/readyz`)).status).toBe(200)
    await pg.pause()
    try {
      expect((await fetch(`${cli.url}/readyz`)).status).toBe(503)
      expect((await fetch(`${cli.url}/healthz`)).status).toBe(200)
      const down = await api(cli, '/v1/customers/kept')
      expect(down.status).toBe(503)
      expect(down.headers.get('Retry-After')).toBe('1')
      expect(await down.json()).toMatchObject({ code: 503, key: 'store_unavailable' })
      await until(() => cli.logs.some((l) => l.msg === 'background task failing'))
    } finally {
      await pg.resume()
    }
    await until(async () => (await fetch(`${cli.url}/readyz`)).status === 200)
    expect((await api(cli, '/v1/customers/kept')).status).toBe(200)
    await until(() => cli.logs.some((l) => l.msg === 'background task recovered'))
    // One line per failure streak, however many ticks failed.
    expect(cli.logs.filter((l) => l.msg === 'background task failing')).toHaveLength(1)
    expect(cli.stdout()).not.toMatch(/\n\s+at /)
    await stop(cli)
  })

  it('drains 8 in-flight requests on SIGTERM: /readyz 503 first, every request answered, exit 0', async () => {
    const cli = await serve({ PROMO_SHUTDOWN_DELAY_MS: '1000' })
    // Eight requests whose bodies are still arriving when the signal comes.
    const inFlight = Array.from({ length: 8 }, (_, i) => {
      const body = JSON.stringify({ source_id: `drained-${i}` })
      const req = httpRequest(`${cli.url}/v1/customers`, {
        method: 'POST',
        headers: { ...keys(), 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
      })
      const answered = new Promise<number>((resolve, reject) => {
        req.on('response', (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        })
        req.on('error', reject)
      })
      req.write(body.slice(0, 5))
      return { req, answered, rest: body.slice(5) }
    })
    await until(() => cli.logs.length > 0 && inFlight.every(({ req }) => req.socket !== null))
    cli.child.kill('SIGTERM')
    await until(() => cli.logs.some((l) => l.msg?.toString().startsWith('shutting down')))
    expect((await fetch(`${cli.url}/readyz`)).status).toBe(503)
    for (const { req, rest } of inFlight) req.end(rest)
    expect(await Promise.all(inFlight.map((r) => r.answered))).toEqual(Array(8).fill(200))
    const { code } = await cli.exit
    expect(code).toBe(0)
    expect(cli.logs.at(-1)).toMatchObject({ msg: 'stopped' })
  })

  it('logs one JSON line per request and serves /metrics as Prometheus text labelled by route template', async () => {
    const cli = await serve()
    const answers = [
      await api(cli, '/v1/customers', { method: 'POST', body: '{"source_id":"metered"}' }),
      await api(cli, '/v1/customers/metered'),
      await api(cli, '/v1/customers/nobody-here'),
      await api(cli, '/v1/nothing'),
    ]
    const ids = answers.map((a) => a.headers.get('X-Request-Id'))
    const lines = cli.logs.filter((l) => l.msg === 'request')
    expect(lines.map((l) => l.req_id)).toEqual(ids)
    expect(lines.map((l) => [l.route, l.status, l.error_key])).toEqual([
      ['/v1/customers', 200, null],
      ['/v1/customers/:customerId', 200, null],
      ['/v1/customers/:customerId', 404, 'not_found'],
      [null, 404, 'endpoint_not_found'],
    ])
    expect(lines.map((l) => l.level)).toEqual(['info', 'info', 'info', 'info'])
    expect(cli.stdout()).not.toContain(SERVER.secret)

    const text = await (await fetch(cli.metricsUrl)).text()
    const samples = prometheus(text)
    const requests = samples.filter((s) => s.name === 'promo_engine_http_requests_total')
    expect(requests).toContainEqual({
      name: 'promo_engine_http_requests_total',
      labels: { method: 'GET', route: '/v1/customers/:customerId', status: '404' },
      value: 1,
    })
    // Labels are templates, statuses and keys: never an id or a code.
    expect(text).not.toContain('metered')
    expect(text).not.toContain('nobody-here')
    expect(samples.some((s) => s.name === 'promo_engine_commits_total' && s.labels.outcome === 'committed')).toBe(true)
    expect(samples.filter((s) => s.name === 'promo_engine_db_pool_connections').map((s) => s.labels.state)).toEqual([
      'in_use',
      'idle',
      'waiting',
    ])
    expect(samples.some((s) => s.name === 'promo_engine_http_request_duration_seconds_bucket')).toBe(true)
    // Admission (docs/http.md#admission): nothing working or waiting once answered; every API request
    // that ran waited for its place once (none here: one at a time).
    expect(samples.filter((s) => s.name === 'promo_engine_http_requests_in_flight')).toEqual([
      { name: 'promo_engine_http_requests_in_flight', labels: { state: 'working' }, value: 0 },
      { name: 'promo_engine_http_requests_in_flight', labels: { state: 'waiting' }, value: 0 },
    ])
    expect(samples.find((s) => s.name === 'promo_engine_http_admission_wait_seconds_count')?.value).toBe(3)
    // Every statement the requests sent waited for a pool connection once (reads and commits alike).
    const waits = samples.find((s) => s.name === 'promo_engine_db_pool_wait_seconds_count')
    expect(waits?.value).toBeGreaterThanOrEqual(answers.length)
    // Not on the API port.
    expect((await fetch(`${cli.url}/metrics`)).status).toBe(404)
    await stop(cli, 'SIGINT')
    expect((await cli.exit).code).toBe(0)
  })

  it('opens its whole pool at start and keeps idle connections by default; PROMO_DB_IDLE_TIMEOUT_MS closes them after that long idle', async () => {
    const db = new Client({ connectionString: pg.url })
    await db.connect()
    // A server's connections (its pool's and its read cache's listener), by the application name each sets.
    const backends = async (name: string) =>
      Number(
        (
          await db.query<{ n: string }>(
            'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
            [name],
          )
        ).rows[0]?.n,
      )
    try {
      // Kept longer than node-postgres's own default (10 s), after which it would have closed them; and
      // closed within a second of idling when told so.
      for (const { name, env, wait } of [
        { name: 'idle-kept', env: { PROMO_DB_POOL_SIZE: '6' }, wait: 12_000 },
        { name: 'idle-closed', env: { PROMO_DB_POOL_SIZE: '6', PROMO_DB_IDLE_TIMEOUT_MS: '100' }, wait: 1_000 },
      ]) {
        const cli = await serve({
          ...env,
          DATABASE_URL: `${pg.url}${pg.url.includes('?') ? '&' : '?'}application_name=${name}`,
        })
        let stopped = false
        try {
          // Before any request: the pool's six connections (docs/postgres.md#tuning), and the read cache's listener.
          const opened = await backends(name)
          if (name === 'idle-kept') expect(opened).toBe(7)
          // Eight commits at once: each takes a connection of its own.
          const created = await Promise.all(
            Array.from({ length: 8 }, (_, i) =>
              api(cli, '/v1/customers', { method: 'POST', body: JSON.stringify({ source_id: `${name}-${i}` }) }),
            ),
          )
          expect(created.map((r) => r.status)).toEqual(Array(8).fill(200))
          const busy = await backends(name)
          expect(busy).toBeGreaterThanOrEqual(5)
          // Warmed at start: none opened for the burst.
          if (name === 'idle-kept') expect(busy).toBe(opened)
          await new Promise((resolve) => setTimeout(resolve, wait))
          if (name === 'idle-kept') expect(await backends(name)).toBe(busy)
          else expect(await backends(name)).toBeLessThanOrEqual(busy - 3)
          stopped = true
          expect((await stop(cli)).code).toBe(0)
        } finally {
          // A failed expectation leaves no server running.
          if (!stopped) await stop(cli)
        }
      }
    } finally {
      await db.end()
    }
  })

  it('PROMO_DB_ASYNC_ACTIVITIES=on: a validation commits its activity without waiting for the flush, a redemption waits as always', async () => {
    expect((await run(['migrate']).exit).code).toBe(0)
    const db = new Client({ connectionString: pg.url })
    await db.connect()
    try {
      // Each activity row notes the synchronous_commit of the transaction that inserted it.
      await db.query(`CREATE TABLE IF NOT EXISTS public.commit_modes (mode text NOT NULL);
        CREATE OR REPLACE FUNCTION public.note_commit_mode() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN INSERT INTO public.commit_modes VALUES (current_setting('synchronous_commit')); RETURN NULL; END $$;
        CREATE OR REPLACE TRIGGER note_commit_mode AFTER INSERT ON promo_engine.activities
          FOR EACH ROW EXECUTE FUNCTION public.note_commit_mode();`)
      const modes = async (request: () => Promise<Response>) => {
        await db.query('TRUNCATE public.commit_modes')
        expect((await request()).status).toBe(200)
        return (await db.query<{ mode: string }>('SELECT DISTINCT mode FROM public.commit_modes')).rows.map(
          (r) => r.mode,
        )
      }
      const order = { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] }
      const body = (customer: string) =>
        JSON.stringify({
          customer: { source_id: customer },
          order,
          redeemables: [{ object: 'voucher', id: 'ASYNC-CLI' }],
        })
      for (const [setting, validation] of [
        ['on', ['off']],
        ['off', ['on']],
      ] as const) {
        const cli = await serve({ PROMO_DB_ASYNC_ACTIVITIES: setting })
        if (setting === 'on') {
          const created = await api(cli, '/v1/vouchers', {
            method: 'POST',
            body: JSON.stringify({
              code: 'ASYNC-CLI',
              type: 'DISCOUNT_VOUCHER',
              discount: { type: 'AMOUNT', amount_off: 100 },
            }),
          })
          expect(created.status).toBe(200)
        }
        // A redemption writes more than activities: it waits for its flush whatever the setting. It
        // also makes the customer, whose validations are recorded as activities.
        expect(await modes(() => api(cli, '/v1/redemptions', { method: 'POST', body: body(`c-${setting}`) }))).toEqual([
          'on',
        ])
        expect(await modes(() => api(cli, '/v1/validations', { method: 'POST', body: body(`c-${setting}`) }))).toEqual(
          validation,
        )
        expect((await stop(cli)).code).toBe(0)
      }
    } finally {
      await db.query(
        'DROP TRIGGER IF EXISTS note_commit_mode ON promo_engine.activities; DROP TABLE IF EXISTS public.commit_modes',
      )
      await db.end()
    }
  })

  it('npm run serve: SIGTERM sent to npm alone reaches the server, which stops and closes its port', async () => {
    const npm = ['npm', '--prefix', ROOT, 'run', 'serve', '--silent', '--']
    const cli = await serve({ DATABASE_URL: '', PROMO_KEYS_FILE: join(cwd, 'npm-keys.json') }, npm)
    expect((await fetch(`${cli.url}/healthz`)).status).toBe(200)
    const { code } = await stop(cli)
    expect(code).toBe(0)
    await expect(fetch(`${cli.url}/healthz`)).rejects.toThrow()
  })
})

/** Parses the Prometheus text format strictly: every line is a comment, a sample, or empty. */
function prometheus(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const samples: { name: string; labels: Record<string, string>; value: number }[] = []
  const typed = new Set<string>()
  for (const line of text.split('\n')) {
    if (line === '') continue
    const type = /^# TYPE ([a-zA-Z_:][\w:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line)
    if (type) {
      typed.add(type[1] as string)
      continue
    }
    if (/^# HELP [a-zA-Z_:][\w:]* .*$/.test(line)) continue
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (-?[\d.e+-]+|NaN|\+Inf|-Inf)$/.exec(line)
    if (!sample) throw new Error(`not Prometheus text: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, k, v] of (sample[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[k as string] = v as string
    }
    const name = sample[1] as string
    if (![name, name.replace(/_(bucket|sum|count)$/, '')].some((n) => typed.has(n))) {
      throw new Error(`sample without a TYPE: ${line}`)
    }
    samples.push({ name, labels, value: Number(sample[3]) })
  }
  return samples
}
