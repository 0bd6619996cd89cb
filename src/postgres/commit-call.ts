import type { Changeset, CollectionName, CommitResult } from 'promo-engine/storage'
import { commitSteps, insertedKeys, keyedCollections, outcome, type Sent } from './changeset'
import { commitFault, type PoolLike, type Queryable } from './connection'
import { CACHED, type ReadCache } from './read-cache'
import { giveConnection, type PostgresStoreStats, type Statements, takeConnection } from './statements'

/** Where a commit is when the test hook is called (`PostgresStoreOptions.commitHook`). */
export type CommitStep = 'begin' | 'applied' | 'committed'

/** What a store's commits need: where they go, and the options that shape them. */
export interface CommitPath {
  /** The schema, quoted. */
  schema: string
  /** The store's pool, or undefined in a host's transaction (`client`). */
  pool: PoolLike | undefined
  /** The host's transaction (docs/postgres.md#host-transaction). */
  client: Queryable | undefined
  asyncActivities: boolean
  commitHook:
    | {
        after?: (step: CommitStep) => void | Promise<void>
        pauseAfterWrite?: { after: number; seconds: number }
      }
    | undefined
  cache: ReadCache | undefined
  stats: PostgresStoreStats
  statements: Statements
}

/** The statement of every commit: one call of `pe_commit` with the payload. */
export const commitStatement = (schema: string) => `SELECT ${schema}.pe_commit($1::jsonb) AS r`

/**
 * A store's `commit`: the changeset as one call of `pe_commit` (docs/postgres.md#commit), its payload
 * the steps of each collection's writes, the keys it inserts and the alternatives; the answer read
 * back as the engine's `CommitResult`, a conflict as data.
 */
export function commitCall(path: CommitPath): (changeset: Changeset) => Promise<CommitResult> {
  const { stats, cache, client: host } = path
  const commitSql = commitStatement(path.schema)

  async function send(body: Record<string, unknown>, payload: string): Promise<CommitResult> {
    if (host) {
      // The host's transaction: one statement, no BEGIN/COMMIT of ours.
      return outcome(await runCommit(host, payload), body as unknown as Sent)
    }
    const client = await takeConnection(path.pool as PoolLike)
    let broken: Error | undefined
    try {
      const hook = path.commitHook?.after
      if (!hook) return outcome(await runCommit(client, payload), body as unknown as Sent)
      await runStatement(client, 'BEGIN')
      await hook('begin')
      const r = await runCommit(client, payload)
      await hook('applied')
      await runStatement(client, 'COMMIT')
      await hook('committed')
      return outcome(r, body as unknown as Sent)
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error))
      throw error
    } finally {
      giveConnection(client, broken !== undefined && (broken as { key?: string }).key !== 'commit_failed')
    }
  }

  async function runStatement(client: Queryable, text: string): Promise<void> {
    stats.queries++
    try {
      await client.query(text)
    } catch (error) {
      throw commitFault(error)
    }
  }

  async function runCommit(client: Queryable, payload: string): Promise<unknown> {
    stats.queries++
    try {
      return (await path.statements.jsonRow(client, commitSql, [payload]))?.[0]
    } catch (error) {
      const code = (error as { code?: unknown }).code
      // Raised outside the function's own handler (at COMMIT in the host's transaction, for one): still a conflict.
      if (code === '40001' || code === '40P01')
        return { ok: false, conflict: { collection: 'locks', id: '', reason: 'version' } }
      throw commitFault(error)
    }
  }

  return async function commit(changeset: Changeset): Promise<CommitResult> {
    stats.commits++
    const keys = insertedKeys(changeset)
    const keyed = keyedCollections(
      changeset.alternatives?.length
        ? [...changeset.writes, ...changeset.alternatives.flatMap((a) => a.writes)]
        : changeset.writes,
    )
    // Built field by field: no object spreads on the path of every commit.
    const body: Record<string, unknown> = {}
    if (path.asyncActivities && !host && onlyAppendsActivities(changeset)) body.async = true
    body.steps = commitSteps(changeset.writes, (changeset.alternatives?.length ?? 0) > 0)
    if (keys.length > 0) body.keys = keys
    if (keyed.length > 0) body.uk = keyed
    if (changeset.alternatives?.length) {
      body.alternatives = changeset.alternatives.map(({ when: { collection, ...when }, tolerate = [], writes }) => ({
        when: { c: collection, ...when },
        tolerate: tolerate.map(({ collection: c, id, path }) => ({ c, id, path })),
        steps: commitSteps(writes),
      }))
    }
    if (path.commitHook?.pauseAfterWrite) body.pause = path.commitHook.pauseAfterWrite
    const payload = JSON.stringify(body)
    if (cache === undefined) return send(body, payload)
    // What this process writes is dropped from its own cache when the commit ends, however it ends,
    // without waiting for the notice (a conflict there means what it read may be old too).
    const written = cachedWritten(changeset)
    if (written.length === 0) return send(body, payload)
    try {
      return await send(body, payload)
    } finally {
      for (const c of written) cache.invalidate(c)
    }
  }
}

/** The cached collections a changeset (or one of its alternatives) writes. */
function cachedWritten(changeset: Changeset): CollectionName[] {
  const out: CollectionName[] = []
  const visit = (writes: readonly { collection: CollectionName }[]) => {
    for (const w of writes) if (CACHED.includes(w.collection) && !out.includes(w.collection)) out.push(w.collection)
  }
  visit(changeset.writes)
  for (const a of changeset.alternatives ?? []) visit(a.writes)
  return out
}

/** A changeset that writes nothing but new activities (docs/postgres.md#asynchronous-activity-commits). */
function onlyAppendsActivities(changeset: Changeset): boolean {
  return (
    changeset.writes.length > 0 &&
    !changeset.alternatives?.length &&
    changeset.writes.every((w) => w.collection === 'activities' && w.op === 'put' && w.expectedVersion === null)
  )
}
