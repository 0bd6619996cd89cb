import pg from 'pg'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { createPostgresStore } from '../../src/postgres'
import type { Store } from '../../src/storage/ports'
import { setPropertyRunShare, useTestStore } from '../support/store'
import { cloneDatabase, emptySchema } from './database'
import { staleColumns } from './derived-columns'
import { ENGINE_SCHEMAS } from './global-setup'

/*
 * Setup of the `postgres-operations` project: the operation suites, unchanged, with every
 * `testEngine()` on PostgreSQL. Each file gets its own database cloned from the template; each engine
 * a schema emptied for it, taken in turn from a few migrated ones so that a test holding two engines
 * at once still gives each its own data.
 */

let pool: pg.Pool | undefined
let drop: (() => Promise<void>) | undefined
let turn = 0
/** The schemas handed out since the last test ended. */
const used = new Set<string>()

// Property tests make a fresh store per run: a twentieth of their runs on PostgreSQL keeps the suite fast.
setPropertyRunShare(0.05)

beforeAll(async () => {
  const db = await cloneDatabase()
  drop = db.drop
  pool = new pg.Pool({ connectionString: db.url, max: 8 }).on('error', () => {})
  const p = pool
  useTestStore(() => {
    const schema = ENGINE_SCHEMAS[turn++ % ENGINE_SCHEMAS.length] as string
    used.add(schema)
    return afterReady(emptySchema(p, schema), createPostgresStore({ pool: p, schema }))
  })
})

// Whatever the operations wrote left each derived column equal to its expression over the stored
// value (docs/postgres.md#schema): the statements compute them, no row trigger does.
afterEach(async () => {
  const schemas = [...used]
  used.clear()
  for (const schema of schemas) if (pool) expect(await staleColumns(pool, schema)).toEqual([])
})

afterAll(async () => {
  useTestStore(undefined)
  setPropertyRunShare(1)
  await pool?.end()
  await drop?.()
})

/** The store, with every call waiting until `ready` settles (the engine is made synchronously). */
function afterReady(ready: Promise<void>, store: Store): Store {
  const wrap = <F extends (...args: never[]) => Promise<unknown>>(f: F) =>
    (async (...args: Parameters<F>) => {
      await ready
      return f(...args)
    }) as unknown as F
  const out: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(store)) {
    if (typeof member === 'function') out[name] = wrap(member as never)
    else if (member && typeof member === 'object' && 'list' in member) {
      out[name] = Object.fromEntries(
        Object.entries(member).map(([k, f]) => [k, typeof f === 'function' ? wrap(f as never) : f]),
      )
    } else out[name] = member
  }
  return out as unknown as Store
}
