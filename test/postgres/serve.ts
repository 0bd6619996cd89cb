import { startEmbedded } from './embedded'

/*
 * A PostgreSQL of your own for the tests, started apart from them (docs/postgres.md#tests):
 *
 *   node --import tsx test/postgres/serve.ts [port]
 *
 * prints `PROMO_PG_URL=…` and serves until Ctrl-C or SIGTERM (one process, so `kill` stops the server
 * too). Its settings are the server defaults (fsync on, max_connections 100), not those of the tests'
 * own embedded server (fsync off, 200 connections), so a run against it checks that the tests ask
 * nothing of a server that a host's ordinary one lacks.
 */

const server = await startEmbedded({}, process.argv[2] ? Number(process.argv[2]) : undefined)
console.log(`PROMO_PG_URL=${server.url}`)
const stop = async () => {
  await server.stop()
  process.exit(0)
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
setInterval(() => {}, 1 << 30)
