import { describe, expect, it } from 'vitest'
import { createEngine, type EngineOptions } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { createMemoryStore } from '../../src/memory/memory-store'
import type { Clock } from '../../src/storage/ports'
import { dumpStore } from '../../src/testing'
import { rejection, testEngine } from '../support/engine'

/**
 * What a host's clock, id generator and random source return is checked where the engine uses it:
 * a wrong value fails the operation with an EngineError naming the option, and nothing is written.
 */

const CAMPAIGN = {
  name: 'Coupons',
  campaign_type: 'DISCOUNT_COUPONS',
  vouchers_count: 3,
  voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
} as const

async function refusedNaming(options: EngineOptions, option: string, text: string) {
  const { engine, store } = testEngine(options)
  const before = await dumpStore(store)
  const error = await rejection(engine.campaigns.create(CAMPAIGN))
  expect(error).toMatchObject({ code: 500, key: 'invalid_engine_option_result', path: option })
  expect(error.details).toContain(text)
  expect(await dumpStore(store)).toBe(before)
}

describe('an injected clock', () => {
  it.each([
    ['a string', '2026-01-15T10:00:00Z', '"2026-01-15T10:00:00Z" (a string)'],
    ['a number', 1_768_471_200_000, 'returned 1768471200000'],
    ['an invalid Date', new Date('never'), 'an invalid Date'],
    ['nothing', undefined, 'returned undefined'],
  ])('returning %s fails the operation naming clock', async (_label, value, text) => {
    await refusedNaming({ clock: { now: () => value as Date } }, 'clock', text)
  })
})

describe('an injected id generator', () => {
  it.each([
    ['an empty id', () => '', 'returned "" (a string)'],
    ['a number', () => 7 as unknown as string, 'returned 7'],
  ])('returning %s fails the operation naming ids', async (_label, ids, text) => {
    await refusedNaming({ ids }, 'ids', text)
  })

  it('repeating an id within one changeset fails it naming ids, before the store sees a clash', async () => {
    // A campaign and its three codes in one changeset: the second code's id is the first's again.
    await refusedNaming({ ids: (prefix) => `${prefix}same` }, 'ids', 'returned "v_same" again')
  })

  it('repeating an id of an earlier call fails the later one, leaving the first as it was', async () => {
    const { engine, store } = testEngine({ ids: (prefix) => `${prefix}same` })
    await engine.customers.create({ source_id: 'alice' })
    const before = await dumpStore(store)
    const error = await rejection(engine.customers.create({ source_id: 'bob' }))
    expect(error).toMatchObject({ code: 500, key: 'invalid_engine_option_result', path: 'ids' })
    expect(await dumpStore(store)).toBe(before)
  })

  it('restarted on the same data, giving an id the store holds, fails naming ids instead of retrying', async () => {
    const counter = () => {
      let n = 0
      return (prefix: string) => `${prefix}${++n}`
    }
    const first = testEngine({ ids: counter() })
    await first.engine.customers.create({ source_id: 'alice' })
    const again = createEngine({ store: first.store, clock: first.clock, ids: counter() })
    const before = await dumpStore(first.store)
    const error = await rejection(again.customers.create({ source_id: 'bob' }))
    expect(error).toMatchObject({ code: 500, key: 'invalid_engine_option_result', path: 'ids' })
    expect(error.details).toMatch(/which (customers|activities) already holds/)
    expect(await dumpStore(first.store)).toBe(before)
  })

  it('giving new ids each time is accepted', async () => {
    let n = 0
    const { engine } = testEngine({ ids: (prefix) => `${prefix}${++n}` })
    expect((await engine.campaigns.create(CAMPAIGN)).id).toMatch(/^camp_\d+$/)
  })
})

describe('an injected random source', () => {
  it.each([
    ['2', 2, 'returned 2'],
    ['1', 1, 'returned 1'],
    ['−1', -1, 'returned -1'],
    ['NaN', Number.NaN, 'returned NaN'],
    ['a string', '0.5', '"0.5" (a string)'],
  ])('returning %s fails the operation naming random', async (_label, value, text) => {
    await refusedNaming({ random: () => value as number }, 'random', text)
  })

  it('is used as given when in [0, 1): the same seed gives the same codes', async () => {
    const codes = async () => {
      const { engine } = testEngine({ random: seededRandom(7) })
      const campaign = await engine.campaigns.create(CAMPAIGN)
      return campaign.id
    }
    expect(await codes()).toBe(await codes())
  })
})

describe('createEngine', () => {
  it('calls none of the injected functions, so a seeded sequence starts at the first operation', () => {
    const calls: string[] = []
    createEngine({
      clock: {
        now: () => {
          calls.push('clock')
          return new Date()
        },
      },
      ids: (prefix) => {
        calls.push('ids')
        return `${prefix}1`
      },
      random: () => {
        calls.push('random')
        return 0.5
      },
    })
    expect(calls).toEqual([])
  })

  it.each([
    ['a repository', 'vouchers', 'has no vouchers repository'],
    ['a repository method', 'campaigns.findMany', 'has no campaigns.findMany()'],
    ['the change feed', 'changes', 'has no changes()'],
  ])('refuses a store missing %s, naming it', (_label, missing, text) => {
    const store = createMemoryStore() as unknown as Record<string, Record<string, unknown>>
    const [name, method] = missing.split('.') as [string, string | undefined]
    const broken = { ...store }
    if (method === undefined) delete broken[name]
    else broken[name] = { ...store[name], [method]: undefined }
    let error: unknown
    try {
      createEngine({ store: broken as never })
    } catch (e) {
      error = e
    }
    expect(error).toMatchObject({ code: 400, key: 'invalid_engine_options', path: 'store' })
    expect((error as { details: string }).details).toContain(text)
  })

  it('accepts a store whose methods live on a prototype', () => {
    const store = createMemoryStore()
    const wrapped = Object.create(store) as typeof store
    const clock: Clock = { now: () => new Date('2026-01-15T10:00:00Z') }
    expect(() => createEngine({ store: wrapped, clock })).not.toThrow()
  })
})
