import { OWN_STEPS } from './changeset'
import type { PoolClientLike, PoolLike } from './connection'
import { giveConnection, type PostgresStoreStats, type Statements, takeConnection } from './statements'

/** What `PostgresStore.warm` was asked. */
export interface WarmOptions {
  /** How many of the pool's connections to open and prepare (default: the pool's `max`, else 10). */
  connections?: number
}

/** What `PostgresStore.warm` did. */
export interface WarmResult {
  /** Connections opened (or found open) and prepared. */
  connections: number
  /** Connections that could not be opened or prepared, each with its error's message. */
  failed: string[]
}

/**
 * The commit calls that prepare a connection for its first commit (docs/postgres.md#tuning): one with
 * a step of every kind `pe_commit` applies itself that inserts or upserts, each with no rows, and one
 * per kind of guarded increment, of the empty id, which no entity has: its statement finds no row
 * and raises, and `pe_commit` answers "missing". Each statement is planned at its first execution in
 * a session; no step writes anything.
 */
export function warmPayloads(): string[] {
  const step = (kind: string, rows: unknown[]) => ({ c: kind.slice(2), k: kind, rows })
  const guarded = OWN_STEPS.filter((k) => k.startsWith('g '))
  return [
    { steps: OWN_STEPS.filter((k) => !k.startsWith('g ')).map((k) => step(k, [])) },
    ...guarded.map((k) => ({ steps: [step(k, [{ id: '', n: 1 }])] })),
  ].map((p) => JSON.stringify(p))
}

/**
 * Opens the pool's connections at once and prepares each (docs/postgres.md#tuning): the backend
 * started, the session setting run, `pe_commit` compiled and the statements of a checkout's commit
 * planned, in a transaction rolled back. A connection opened later, when traffic grows, costs the
 * request that opens it all of that, and a cold commit plans its statements while it holds the rows
 * other commits wait for.
 */
export async function warmConnections(
  pool: PoolLike,
  commitSql: string,
  statements: Statements,
  stats: PostgresStoreStats,
  options: WarmOptions = {},
): Promise<WarmResult> {
  const max = (pool as { options?: { max?: number } }).options?.max ?? 10
  const count = Math.max(0, Math.min(options.connections ?? max, max))
  const payloads = warmPayloads()
  // All taken before any is given back, so the pool opens `count` distinct connections.
  const taken = await Promise.allSettled(Array.from({ length: count }, () => takeConnection(pool)))
  const failed: string[] = []
  const prepared = await Promise.all(
    taken.map(async (t) => {
      if (t.status === 'rejected') {
        failed.push(message(t.reason))
        return false
      }
      const client: PoolClientLike = t.value
      try {
        stats.queries += 2 + payloads.length
        await client.query('BEGIN')
        for (const payload of payloads) await statements.jsonRow(client, commitSql, [payload])
        await client.query('ROLLBACK')
        giveConnection(client, false)
        return true
      } catch (error) {
        // Broken, or its transaction left open: discarded rather than handed to a request.
        giveConnection(client, true)
        failed.push(message(error))
        return false
      }
    }),
  )
  return { connections: prepared.filter(Boolean).length, failed }
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))
