import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresStore, type PostgresStore } from '../../src/postgres'
import { storeContract } from '../../src/testing'
import { LISTING_INDEXES } from '../../src/testing/listing'
import { cloneDatabase, emptySchema } from './database'
import { staleColumns } from './derived-columns'

describe('PostgreSQL store: the storage contract', () => {
  let pool: pg.Pool
  let drop: () => Promise<void>
  let store: PostgresStore
  beforeAll(async () => {
    const db = await cloneDatabase()
    drop = db.drop
    pool = new pg.Pool({ connectionString: db.url, max: 20 }).on('error', () => {})
    store = createPostgresStore({ pool, indexes: LISTING_INDEXES })
    await store.migrate()
  })
  // Every write a contract test made left each derived column equal to its expression over the
  // stored value (docs/postgres.md#schema): no row trigger computes them, the statements do.
  afterEach(async () => {
    expect(await staleColumns(pool, 'promo_engine', LISTING_INDEXES)).toEqual([])
  })
  afterAll(async () => {
    await pool.end()
    await drop()
  })
  for (const c of storeContract(async ({ indexes }) => {
    await emptySchema(pool, 'promo_engine')
    return createPostgresStore({ pool, indexes })
  })) {
    it(c.name, c.run)
  }
})
