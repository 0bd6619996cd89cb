/**
 * The reference server (`npm run serve`): the engine behind `promo-engine/http` on node:http, with
 * application keys alone authenticating (as the hosted service does), pending async actions run in the
 * background, and export files downloadable. Point the official SDK's `apiUrl` at the printed address.
 *
 * Environment: PORT (default 3000), HOST (default 127.0.0.1), DATABASE_URL (the PostgreSQL store,
 * migrated at start; without it the memory store), and the keys PROMO_APP_ID / PROMO_APP_SECRET,
 * PROMO_CLIENT_ID / PROMO_CLIENT_SECRET / PROMO_CLIENT_ORIGINS (comma-separated, default `*`),
 * PROMO_MANAGEMENT_ID / PROMO_MANAGEMENT_SECRET. Keys not given are created at start and printed once.
 * PROMO_FILES_SECRET signs export file links (default: random at start, so links die with the process).
 * What has expired (idempotency records, tokens, session locks, old export files) is purged in the
 * background too.
 */
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { createAdaptorServer } from '@hono/node-server'
import { createEngine, type Engine, type EngineOptions } from '../src'
import { createFetchHandler } from '../src/http'
import { createPostgresStore } from '../src/postgres'

export interface Keys {
  server: { app_id: string; secret: string }
  client: { app_id: string; secret: string }
  management: { app_id: string; secret: string }
}

export interface ServeOptions {
  engine?: Engine
  engineOptions?: EngineOptions
  port?: number
  hostname?: string
  /** How often pending async actions run, in ms. Default 1000; 0 leaves them to a separate worker. */
  asyncIntervalMs?: number
  /** How often expired records are purged, in ms. Default 60,000; 0 leaves it to a separate worker. */
  purgeIntervalMs?: number
  env?: Record<string, string | undefined>
}

export interface RunningServer {
  url: string
  engine: Engine
  keys: Keys
  close(): Promise<void>
}

export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  const env = options.env ?? {}
  const hostname = options.hostname ?? '127.0.0.1'
  // Listen first: the engine's file urls name the port the server got.
  let handler: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 })
  const server = createAdaptorServer({ fetch: (request: Request) => handler(request), overrideGlobalObjects: false })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, hostname, resolve))
  const url = `http://${hostname}:${(server.address() as AddressInfo).port}`
  const engine =
    options.engine ??
    createEngine({
      authentication: 'keys',
      filesBaseUrl: `${url}/v1/files/`,
      filesSecret: env.PROMO_FILES_SECRET,
      ...options.engineOptions,
    })
  const keys: Keys = {
    server: await application(engine, 'server', env.PROMO_APP_ID, env.PROMO_APP_SECRET),
    client: await application(engine, 'client', env.PROMO_CLIENT_ID, env.PROMO_CLIENT_SECRET, env.PROMO_CLIENT_ORIGINS),
    management: await application(engine, 'management', env.PROMO_MANAGEMENT_ID, env.PROMO_MANAGEMENT_SECRET),
  }
  handler = createFetchHandler(engine)
  const stopActions = every(options.asyncIntervalMs ?? 1000, 'async actions', () => engine.asyncActions.runPending())
  const stopPurge = every(options.purgeIntervalMs ?? 60_000, 'purge', () => purgeAll(engine))
  return {
    url,
    engine,
    keys,
    close: async () => {
      stopActions()
      stopPurge()
      await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())))
    },
  }
}

async function application(
  engine: Engine,
  family: 'server' | 'client' | 'management',
  appId: string | undefined,
  secret: string | undefined,
  origins?: string,
) {
  const given = appId !== undefined && secret !== undefined ? { app_id: appId, secret } : {}
  const allowed = family === 'client' ? { allowed_origins: (origins ?? '*').split(',').map((o) => o.trim()) } : {}
  return engine.auth.createApplication({ name: `${family} (reference server)`, family, ...given, ...allowed })
}

/** Runs background work on a timer, one run at a time; returns the function that stops it. */
function every(intervalMs: number, name: string, work: () => Promise<unknown>): () => void {
  if (intervalMs <= 0) return () => {}
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    work()
      .catch((error: unknown) => console.error(`${name}:`, error))
      .finally(() => {
        running = false
      })
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}

/** Purges expired records a batch (one commit) at a time until none is left. */
export async function purgeAll(engine: Engine): Promise<void> {
  let more = true
  while (more) more = (await engine.maintenance.purgeExpired()).has_more
}

async function main(): Promise<void> {
  const env = process.env
  // With a connection string the engine runs on PostgreSQL (migrated here; safe from several servers at once).
  const store = env.DATABASE_URL ? createPostgresStore({ connectionString: env.DATABASE_URL }) : undefined
  if (store) await store.migrate()
  const running = await startServer({
    env,
    ...(store ? { engineOptions: { store } } : {}),
    port: Number(env.PORT ?? 3000),
    hostname: env.HOST ?? '127.0.0.1',
  })
  const { server, client, management } = running.keys
  console.log(`promo-engine listening on ${running.url} (${store ? 'PostgreSQL' : 'memory'} store; keys authenticate, bearer tokens optional)

  VoucherifyServerSide({ applicationId: '${server.app_id}', secretKey: '${server.secret}', apiUrl: '${running.url}' })
  VoucherifyClientSide({ clientApplicationId: '${client.app_id}', clientSecretKey: '${client.secret}', origin: 'http://localhost', apiUrl: '${running.url}' })
  management: X-Management-Id: ${management.app_id}  X-Management-Token: ${management.secret}

Secrets are printed once; set PROMO_APP_ID/PROMO_APP_SECRET (and the client and management pairs) to keep them.`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
