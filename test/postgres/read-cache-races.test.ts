import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { type CacheEvent, noticeChannel, readCache } from '../../src/postgres/read-cache'

/*
 * The read cache's rule for reads that race a notice or a change of its listener
 * (docs/postgres.md#read-cache), on a stand-in for node-postgres whose notices the test sends itself:
 * a read keeps its row only when nothing was dropped since it was sent and the listener is ready.
 */

const row = (secret: string) => ({ value: { app_id: 'app_1', secret_hash: secret }, version: 1, shape: 1 })

function standIn() {
  const clients: FakeClient[] = []
  class FakeClient extends EventEmitter {
    constructor(readonly config: object) {
      super()
      clients.push(this)
    }
    async connect() {}
    async query(text: string) {
      return { rows: text.includes('pg_trigger') ? [{ n: 2 }] : [] }
    }
    async end() {
      this.emit('end')
    }
  }
  const pool = {
    Client: FakeClient,
    options: { connectionString: 'postgres://stand-in' },
    // The ping: delivered to the listening client after its statement returns, as PostgreSQL does.
    async query(_text: string, values: unknown[]) {
      setImmediate(() => clients.at(-1)?.emit('notification', { channel: values[0], payload: values[1] }))
      return { rows: [] }
    },
  }
  return { pool, clients }
}

function cacheOn() {
  const { pool, clients } = standIn()
  const events: CacheEvent[] = []
  const waiting: (() => void)[] = []
  const cache = readCache(
    pool,
    'promo_engine',
    (e) => {
      events.push(e)
      for (const w of waiting.splice(0)) w()
    },
    () => {},
  )
  if (!cache) throw new Error('a pg.Pool-like pool makes a cache')
  const readyNow = () => events.filter((e) => e.type !== 'notice').at(-1)?.type === 'ready'
  return {
    cache,
    clients,
    events,
    /** Resolves once the listener is ready (the first `get` starts it). */
    async ready() {
      while (!readyNow()) await new Promise<void>((r) => waiting.push(r))
    },
    /** Keeps a row read now (at the collection's current generation). */
    keep(collection: 'credentials' | 'access_tokens', key: string, value: ReturnType<typeof row>) {
      cache.set(collection, key, cache.generation(collection), value)
    },
    notice(collection: string) {
      clients.at(-1)?.emit('notification', { channel: noticeChannel('promo_engine'), payload: collection })
    },
  }
}

/** A cache whose listener a first read started and which is ready. */
async function readyCache() {
  const c = cacheOn()
  c.cache.get('credentials', 'k')
  await c.ready()
  return c
}

describe('the read cache, reads racing notices', () => {
  it('serves nothing before its listener is ready, and keeps nothing read before', async () => {
    const c = cacheOn()
    const early = c.cache.generation('credentials')
    expect(c.cache.get('credentials', 'k')).toBeUndefined()
    c.cache.set('credentials', 'k', early, row('a'))
    expect(c.cache.get('credentials', 'k')).toBeUndefined()
    await c.ready()
    // Read before ready, answered after: its generation moved when the listener became ready.
    c.cache.set('credentials', 'k', early, row('a'))
    expect(c.cache.get('credentials', 'k')).toBeUndefined()
    const now = c.cache.generation('credentials')
    c.cache.set('credentials', 'k', now, row('a'))
    expect(c.cache.get('credentials', 'k')).toEqual(row('a'))
    await c.cache.close()
  })

  it('drops on a notice of the collection, and does not keep a read sent before it', async () => {
    const c = await readyCache()
    c.keep('credentials', 'k', row('old'))
    c.keep('access_tokens', 't', row('token'))
    const sent = c.cache.generation('credentials')
    c.notice('credentials')
    expect(c.cache.get('credentials', 'k')).toBeUndefined()
    // Another collection's rows stay.
    expect(c.cache.get('access_tokens', 't')).toEqual(row('token'))
    // The read sent before the notice answers now, with what may be the old row: not kept.
    c.cache.set('credentials', 'k', sent, row('old'))
    expect(c.cache.get('credentials', 'k')).toBeUndefined()
    // This process's own commit drops the same way, before any notice.
    c.keep('access_tokens', 't', row('token'))
    const before = c.cache.generation('access_tokens')
    c.cache.invalidate('access_tokens')
    expect(c.cache.get('access_tokens', 't')).toBeUndefined()
    c.cache.set('access_tokens', 't', before, row('token'))
    expect(c.cache.get('access_tokens', 't')).toBeUndefined()
    await c.cache.close()
  })

  it('serves nothing while its listener is down, keeps nothing read meanwhile, and is made again at the next read', async () => {
    const c = await readyCache()
    c.keep('credentials', 'k', row('a'))
    const during = c.cache.generation('credentials')
    c.clients.at(-1)?.emit('error', new Error('terminating connection due to administrator command'))
    expect(c.events.at(-1)).toMatchObject({ type: 'down' })
    expect(c.cache.get('credentials', 'k')).toBeUndefined() // and this read starts a new listener
    c.cache.set('credentials', 'k', during, row('a'))
    await c.ready()
    expect(c.clients).toHaveLength(2)
    expect(c.cache.get('credentials', 'k')).toBeUndefined()
    c.cache.set('credentials', 'k', c.cache.generation('credentials'), row('a'))
    expect(c.cache.get('credentials', 'k')).toEqual(row('a'))
    await c.cache.close()
  })
})
