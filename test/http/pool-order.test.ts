import { EventEmitter } from 'node:events'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { commitsFirst } from '../../packages/server/src/server'

/** A connection that connects at once: the pool's queue is what is under test, not a database. */
class Connection extends EventEmitter {
  connect(callback: (error?: Error) => void): void {
    callback()
  }
  end(callback?: () => void): void {
    callback?.()
  }
}

/** The server's pool with one connection, held, and waiters queued in the order given. */
async function served(order: ('read' | 'commit')[], gate: boolean): Promise<string[]> {
  const pool = new pg.Pool({ max: 1, Client: Connection as never })
  if (gate) commitsFirst(pool as never)
  const held = await pool.connect()
  const served: string[] = []
  const done = order.map((kind, n) => {
    const name = `${kind} ${n}`
    // The store reads through pool.query, which queues a callback; it commits on a connection it takes.
    if (kind === 'read')
      return new Promise<void>((resolve) =>
        pool.connect((_error: Error | undefined, client?: pg.PoolClient, release?: () => void) => {
          served.push(name)
          ;(release ?? (() => client?.release()))()
          resolve()
        }),
      )
    return pool.connect().then((client) => {
      served.push(name)
      client.release()
    })
  })
  held.release()
  await Promise.all(done)
  await pool.end()
  return served
}

describe("the server's pool (docs/postgres.md#tuning)", () => {
  it('serves a waiting commit before waiting reads, commits among themselves in order', async () => {
    const order: ('read' | 'commit')[] = ['read', 'read', 'commit', 'read', 'commit']
    expect(await served(order, false)).toEqual(['read 0', 'read 1', 'commit 2', 'read 3', 'commit 4'])
    expect(await served(order, true)).toEqual(['commit 2', 'commit 4', 'read 0', 'read 1', 'read 3'])
  })

  it('leaves a connection that is free at once to whoever asks', async () => {
    const pool = new pg.Pool({ max: 2, Client: Connection as never })
    commitsFirst(pool as never)
    const a = await pool.connect()
    const b = await pool.connect()
    expect(pool.totalCount).toBe(2)
    a.release()
    b.release()
    await pool.end()
  })
})
