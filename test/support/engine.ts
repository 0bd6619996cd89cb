import { expect } from 'vitest'
import { createEngine, type EngineOptions } from '../../src/engine'
import { EngineError } from '../../src/errors'
import { seededRandom } from '../../src/ids'
import { createMemoryStore } from '../../src/memory'
import type { Clock } from '../../src/storage/ports'
import { defaultTestStore } from './store'

/** A clock the test moves by hand. */
export function manualClock(
  start = '2026-01-15T10:00:00.000Z',
): Clock & { set(iso: string): void; advance(ms: number): void } {
  let now = new Date(start)
  return {
    now: () => new Date(now),
    set(iso) {
      now = new Date(iso)
    },
    advance(ms) {
      now = new Date(now.getTime() + ms)
    },
  }
}

/**
 * An engine with a manual clock and seeded randomness: every run gives the same ids and codes. `store`
 * is the store itself, as a host holds it: rows as stored, with their shapes (the engine reads them
 * upgraded, docs/storage.md#shape-versions).
 */
export function testEngine(options: EngineOptions = {}) {
  const clock = manualClock()
  const store = options.store ?? defaultTestStore() ?? createMemoryStore()
  const engine = createEngine({ clock, random: seededRandom(42), ...options, store })
  return { engine, clock, store }
}

/**
 * Every entity in the store, for asserting that a rejected operation wrote nothing; `except` leaves
 * out collections a refusal does write (a refused rollback records a failed one and its activity).
 */
export async function snapshot(
  store: ReturnType<typeof testEngine>['store'],
  except: readonly string[] = [],
): Promise<string> {
  const out: Record<string, unknown> = {}
  for (const [name, repo] of Object.entries(store)) {
    if (except.includes(name)) continue
    if (typeof repo === 'object' && repo !== null && 'list' in repo) {
      // By id: every collection is listed whole by id, not all by created_at (src/storage/indexes.ts).
      const byId = { order: { field: 'id', direction: 'asc' } } as const
      out[name] = (await (repo as { list(q: typeof byId): Promise<{ data: unknown[] }> }).list(byId)).data
    }
  }
  return JSON.stringify(out)
}

/** The EngineError an operation rejects with (fails the test when it resolves or throws anything else). */
export async function rejection(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(EngineError)
  return error as EngineError
}

/** A copy without the given keys (an explicit `undefined` is itself bad input under exactOptional). */
export function without<T extends object>(obj: T, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)))
}

/** A code taking `amountOff` off the order, usable `quantity` times (unlimited when not given). */
export function amountOffVoucher(
  engine: ReturnType<typeof testEngine>['engine'],
  code: string,
  amountOff: number,
  quantity?: number,
) {
  return engine.vouchers.create({
    code,
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: amountOff, effect: 'APPLY_TO_ORDER' },
    ...(quantity === undefined ? {} : { redemption: { quantity } }),
  })
}
