import { describe, expect, it } from 'vitest'
import { createEngine, engineContext } from '../src/engine'
import { seededRandom } from '../src/ids'
import { createMemoryStore } from '../src/memory'
import type { Store } from '../src/storage/ports'
import { manualClock } from './support/engine'

describe('createEngine', () => {
  it('defaults: memory store, UTC, half-up, prefixed random ids', async () => {
    const engine = createEngine()
    expect(engineContext(engine).config).toMatchObject({ timezone: 'UTC', rounding: 'half-up', maxRetries: 5 })
    const customer = await engine.customers.create({ source_id: 'x' })
    expect(customer.id).toMatch(/^cust_[0-9A-Za-z]{24}$/)
  })

  it('load hints: off on a store that reads in this process (no round trip to save), 1000 on another, as asked when asked', () => {
    expect(engineContext(createEngine()).hints.capacity).toBe(0)
    expect(engineContext(createEngine({ store: createMemoryStore() })).hints.capacity).toBe(0)
    const remote = { ...createMemoryStore(), inProcess: false }
    expect(engineContext(createEngine({ store: remote })).hints.capacity).toBe(1000)
    expect(engineContext(createEngine({ loadHints: 5 })).hints.capacity).toBe(5)
    expect(engineContext(createEngine({ store: createMemoryStore(), loadHints: 1000 })).hints.capacity).toBe(1000)
  })

  it('is deterministic with a seeded random source and a fixed clock', async () => {
    const run = async () => {
      const engine = createEngine({ random: seededRandom(7), clock: manualClock() })
      const campaign = await engine.campaigns.create({
        name: 'Coupons',
        campaign_type: 'DISCOUNT_COUPONS',
        vouchers_count: 3,
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
      })
      const codes = (await engineContext(engine).store.vouchers.list({ where: { campaign_id: campaign.id } })).data.map(
        (s) => s.value.code,
      )
      return { id: campaign.id, codes }
    }
    expect(await run()).toEqual(await run())
  })

  it('rejects an unknown time zone and an unknown rounding mode', () => {
    expect(() => createEngine({ timezone: 'Mars/Olympus' })).toThrow(
      expect.objectContaining({ code: 400, path: 'timezone' }),
    )
    // @ts-expect-error: a mode the engine does not know
    expect(() => createEngine({ rounding: 'banker' })).toThrow(expect.objectContaining({ code: 400, path: 'rounding' }))
  })

  it('retries a conflicting commit a bounded number of times, then fails with 409', async () => {
    const inner = createMemoryStore()
    let attempts = 0
    // A store whose every commit loses the race: the operation must give up after maxRetries + 1 tries.
    const store: Store = {
      ...inner,
      async commit() {
        attempts += 1
        return { ok: false, conflict: { collection: 'customers', id: 'cust_x', reason: 'version' } }
      },
    }
    const engine = createEngine({ store, maxRetries: 2 })
    await expect(engine.customers.create({ source_id: 'y' })).rejects.toMatchObject({
      code: 409,
      key: 'concurrent_modification',
    })
    expect(attempts).toBe(3)
  })

  it('recomputes after a conflict and succeeds when the race is over', async () => {
    const inner = createMemoryStore()
    let fail = 1
    const store: Store = {
      ...inner,
      async commit(changeset) {
        if (fail-- > 0) return { ok: false, conflict: { collection: 'customers', id: 'cust_x', reason: 'version' } }
        return inner.commit(changeset)
      },
    }
    const engine = createEngine({ store })
    const customer = await engine.customers.create({ source_id: 'z' })
    expect(await engine.customers.get('z')).toEqual({ ...customer, summary: expect.any(Object) })
  })
})
